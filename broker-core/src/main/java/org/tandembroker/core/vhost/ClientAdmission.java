package org.tandembroker.core.vhost;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.queue.BrokerQueue;

/**
 * The client connections a virtual host admitted, and the temporary queues each owns (deleted when it leaves).
 * Concurrent collections: connections come and go on their network threads; the life-cycle thread closes and
 * forgets them all when the host leaves ACTIVE.
 */
final class ClientAdmission {
    private final String hostName;
    private final ServingStatus status;
    private final Topology topology;
    private final Set<ClientConnection> connections = ConcurrentHashMap.newKeySet();
    private final Map<ClientConnection, Set<String>> temporaryQueues = new ConcurrentHashMap<>();

    ClientAdmission(String hostName, ServingStatus status, Topology topology) {
        this.hostName = hostName;
        this.status = status;
        this.topology = topology;
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
