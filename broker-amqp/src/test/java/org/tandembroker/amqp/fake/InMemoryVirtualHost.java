package org.tandembroker.amqp.fake;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.security.Permission;
import org.tandembroker.core.txn.LocalTransaction;
import org.tandembroker.core.vhost.AddressKind;
import org.tandembroker.core.vhost.Admission;
import org.tandembroker.core.vhost.ClientConnection;
import org.tandembroker.core.vhost.Destination;
import org.tandembroker.core.vhost.PublishResult;
import org.tandembroker.core.vhost.VirtualHost;
import org.tandembroker.core.vhost.VirtualHostState;

/**
 * A virtual host in memory for front-end tests. Every address is a queue (created on first use) unless it is
 * declared unknown. Tests can hold publishes ({@link #holdPublishes}) and complete or fail them by hand, refuse
 * admissions, and fail commits. Thread-safe: queue state lives on one queue executor; the rest is concurrent.
 */
public final class InMemoryVirtualHost implements VirtualHost {
    private final String name;
    private final ExecutorService queueExecutor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fake-queue");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, InMemoryQueue> queues = new ConcurrentHashMap<>();
    private final Set<String> unknownAddresses = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<HeldPublish> held = new ConcurrentLinkedQueue<>();
    private final List<InMemoryTransaction> transactions = new CopyOnWriteArrayList<>();
    private final List<ClientConnection> connections = new CopyOnWriteArrayList<>();
    private final AtomicInteger deregistrations = new AtomicInteger();
    private final List<SubscriptionRequest> subscriptionRequests = new CopyOnWriteArrayList<>();
    private final AtomicInteger temporaryQueues = new AtomicInteger();
    private final AtomicInteger publishAttempts = new AtomicInteger();
    private volatile Function<ClientConnection, Admission.Refused> refusal = c -> null;
    private volatile boolean holdPublishes;
    private volatile BrokerException publishFailure;
    private volatile BrokerException commitFailure;

    /** What a consumer asked for. */
    public record SubscriptionRequest(String address, SubscriptionOptions options) {
    }

    /** A publish the test completes by hand. */
    public record HeldPublish(InMemoryQueue queue, IncomingMessage message, CompletableFuture<PublishResult> future) {
        public void complete() {
            queue.enqueue(message);
            future.complete(new PublishResult(1));
        }

        public void fail(BrokerException failure) {
            future.completeExceptionally(failure);
        }
    }

    public InMemoryVirtualHost(String name) {
        this.name = name;
    }

    // ---- test controls

    public InMemoryQueue queue(String address) {
        return queues.computeIfAbsent(address, a -> new InMemoryQueue(a, queueExecutor));
    }

    public void declareUnknown(String address) {
        unknownAddresses.add(address);
    }

    /** While on, publish futures stay incomplete until the test completes them. */
    public void holdPublishes(boolean hold) {
        holdPublishes = hold;
    }

    public List<HeldPublish> heldPublishes() {
        return List.copyOf(held);
    }

    /** Removes and returns the oldest held publish, or null. */
    public HeldPublish takeHeldPublish() {
        return held.poll();
    }

    public int publishAttempts() {
        return publishAttempts.get();
    }

    public void refuseAdmissions(Function<ClientConnection, Admission.Refused> refusal) {
        this.refusal = refusal;
    }

    /** Every publish without a transaction fails with this (null: publishes succeed). */
    public void failPublishes(BrokerException failure) {
        publishFailure = failure;
    }

    public void failCommits(BrokerException failure) {
        commitFailure = failure;
    }

    public List<InMemoryTransaction> transactions() {
        return List.copyOf(transactions);
    }

    public List<ClientConnection> connections() {
        return List.copyOf(connections);
    }

    public List<SubscriptionRequest> subscriptionRequests() {
        return List.copyOf(subscriptionRequests);
    }

    public int deregistrations() {
        return deregistrations.get();
    }

    public void shutdown() {
        queueExecutor.shutdownNow();
    }

    // ---- VirtualHost

    @Override
    public String name() {
        return name;
    }

    @Override
    public VirtualHostState state() {
        return VirtualHostState.ACTIVE;
    }

    @Override
    public Admission admit(ClientConnection connection) {
        Admission.Refused refused = refusal.apply(connection);
        if (refused != null) {
            return refused;
        }
        connections.add(connection);
        AtomicInteger once = new AtomicInteger();
        return new Admission.Admitted(() -> {
            if (once.getAndIncrement() == 0) {
                connections.remove(connection);
                deregistrations.incrementAndGet();
            }
        });
    }

    @Override
    public CompletableFuture<Destination> resolveDestination(String address, AddressKind kind, ClientAccess access) {
        try {
            access.require(Permission.SEND, address);
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (unknownAddresses.contains(address)) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.NOT_FOUND,
                    "no queue or exchange '" + address + "' in virtual host " + name));
        }
        InMemoryQueue queue = queue(address);
        return CompletableFuture.completedFuture(new Destination() {
            @Override
            public String address() {
                return address;
            }

            @Override
            public CompletableFuture<PublishResult> publish(IncomingMessage message, LocalTransaction transaction) {
                publishAttempts.incrementAndGet();
                if (transaction instanceof InMemoryTransaction inMemory) {
                    inMemory.addPublish(queue, message);
                    return CompletableFuture.completedFuture(new PublishResult(1));
                }
                BrokerException failure = publishFailure;
                if (failure != null) {
                    return CompletableFuture.failedFuture(failure);
                }
                if (holdPublishes) {
                    HeldPublish publish = new HeldPublish(queue, message, new CompletableFuture<>());
                    held.add(publish);
                    return publish.future();
                }
                queue.enqueue(message);
                return CompletableFuture.completedFuture(new PublishResult(1));
            }
        });
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String address, ConsumerTarget target, SubscriptionOptions options,
                                                     ClientAccess access) {
        try {
            access.require(Permission.CONSUME, address);
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
        subscriptionRequests.add(new SubscriptionRequest(address, options));
        if (unknownAddresses.contains(address)) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.NOT_FOUND,
                    "no queue '" + address + "' in virtual host " + name));
        }
        return CompletableFuture.completedFuture(queue(address).subscribe(target, options));
    }

    @Override
    public CompletableFuture<String> createTemporaryQueue(ClientConnection owner) {
        String address = "temp-" + temporaryQueues.incrementAndGet();
        queue(address);
        return CompletableFuture.completedFuture(address);
    }

    @Override
    public LocalTransaction beginTransaction() {
        InMemoryTransaction transaction = new InMemoryTransaction(commitFailure);
        transactions.add(transaction);
        return transaction;
    }
}
