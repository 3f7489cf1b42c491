package org.tandembroker.core.vhost;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.queue.BrokerQueue;

/**
 * The client connections a virtual host admitted, and the temporary queues each owns (deleted when it leaves).
 * Concurrent collections: connections come and go on their network threads; the life-cycle thread closes and
 * forgets them all when the host leaves ACTIVE.
 *
 * <p><b>Holding a connection during a failover.</b> A refusal without a redirect makes a failover client back off
 * (Qpid JMS doubles its delay from 10 ms after every failed attempt), so a client refused by every node while the
 * group elects would reconnect seconds after the new master serves. A connection that arrives while this node is
 * {@linkplain ServingStatus#undecided undecided} is therefore held, unanswered, until the node serves (admitted),
 * learns which node serves (refused with a redirect), stops, or {@link #MAX_ADMISSION_WAIT} passes (refused as
 * before). The waiters are a concurrent set: added on network threads, answered on the life-cycle thread or the
 * timer's.
 */
final class ClientAdmission {
    /** Longest time a connection is held unanswered while this node is undecided (see the class comment). */
    static final Duration MAX_ADMISSION_WAIT = Duration.ofSeconds(5);

    private final String hostName;
    private final ServingStatus status;
    private final Topology topology;
    private final Set<ClientConnection> connections = ConcurrentHashMap.newKeySet();
    private final Map<ClientConnection, Set<String>> temporaryQueues = new ConcurrentHashMap<>();
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();

    /** A held connection and its answer. */
    private record Waiter(ClientConnection connection, CompletableFuture<Admission> answer) {
    }

    ClientAdmission(String hostName, ServingStatus status, Topology topology) {
        this.hostName = hostName;
        this.status = status;
        this.topology = topology;
        status.onChange(() -> {
            if (!status.undecided()) {
                answerWaiters();
            }
        });
    }

    /**
     * Admits or refuses now, or, while this node is undecided, holds the connection for at most {@code maxWait}
     * and answers once it is decided (see the class comment). The answer may complete on any thread.
     */
    CompletableFuture<Admission> admitOrWait(ClientConnection connection, Duration maxWait) {
        Admission now = admit(connection);
        if (now instanceof Admission.Admitted || !status.undecided() || maxWait.isZero() || maxWait.isNegative()) {
            return CompletableFuture.completedFuture(now);
        }
        Waiter waiter = new Waiter(connection, new CompletableFuture<>());
        waiters.add(waiter);
        CompletableFuture.delayedExecutor(maxWait.toMillis(), TimeUnit.MILLISECONDS).execute(() -> answer(waiter));
        if (!status.undecided()) {
            answer(waiter); // decided between the first answer and the registration
        }
        return waiter.answer();
    }

    private void answerWaiters() {
        for (Waiter waiter : List.copyOf(waiters)) {
            answer(waiter);
        }
    }

    private void answer(Waiter waiter) {
        if (waiters.remove(waiter)) {
            try {
                waiter.answer().complete(admit(waiter.connection()));
            } catch (RuntimeException e) {
                waiter.answer().completeExceptionally(e);
            }
        }
    }

    /** Admits while the host is active; a connection added as the host leaves ACTIVE is refused after all. */
    Admission admit(ClientConnection connection) {
        if (status.isActive()) {
            connections.add(connection);
            if (status.isActive()) {
                return new Admission.Admitted(() -> deregister(connection));
            }
            connections.remove(connection);
        }
        return status.refusal();
    }

    private void deregister(ClientConnection connection) {
        connections.remove(connection);
        Set<String> owned = temporaryQueues.remove(connection);
        if (owned != null) {
            for (String queueName : owned) {
                BrokerQueue queue = topology.queue(queueName);
                if (queue != null) {
                    topology.deleteQueue(queue, "its connection closed");
                }
            }
        }
    }

    CompletableFuture<String> createTemporaryQueue(ClientConnection owner) {
        try {
            status.requireActive();
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
        String queueName = "TempQueue." + UUID.randomUUID(); // one word after "TempQueue.": permissions can grant TempQueue.*
        QueueConfig qc = new QueueConfig(queueName, false, 0, 0, 0, 0, null);
        return topology.declareQueue(qc, false).thenApply(queue -> {
            temporaryQueues.computeIfAbsent(owner, c -> ConcurrentHashMap.newKeySet()).add(queueName);
            return queueName;
        });
    }

    int connectionCount() {
        return connections.size();
    }

    List<String> connectionDescriptions() {
        return connections.stream().map(ClientConnection::describe).sorted().toList();
    }

    /** Closes the connections whose description equals {@code description}; returns how many. */
    int closeConnection(String description, String reason) {
        int closed = 0;
        for (ClientConnection connection : List.copyOf(connections)) {
            if (connection.describe().equals(description)) {
                connection.closeByBroker(reason, null);
                closed++;
            }
        }
        return closed;
    }

    /** The host left ACTIVE: every connection is told why (and where to go, when {@code redirect} is known). */
    void closeAll(String reason, String redirect) {
        for (ClientConnection connection : List.copyOf(connections)) {
            connection.closeByBroker("virtual host '" + hostName + "' is no longer active on this node: " + reason,
                    redirect);
        }
    }

    /** Forgets every connection and temporary queue (the queues themselves go with the topology). */
    void forgetAll() {
        connections.clear();
        temporaryQueues.clear();
    }
}
