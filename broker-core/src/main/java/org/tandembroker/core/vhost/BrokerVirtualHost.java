package org.tandembroker.core.vhost;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exchange.Exchange;
import org.tandembroker.core.exec.OwningThread;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.NamedSubscription;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.replication.MemberState;
import org.tandembroker.core.txn.LocalTransaction;
import org.tandembroker.core.txn.StoreBackedTransaction;

/**
 * The broker's virtual host: exchanges, queues and their store, and the connections using them. It composes one
 * part per job and delegates to them:
 * <ul>
 *   <li>{@link VirtualHostLifecycle}: store open/close, activation with recovery, passivation, stop;</li>
 *   <li>{@link ServingStatus}: whether this node serves, and the refusal when not;</li>
 *   <li>{@link Topology}: exchanges and queues by name, queue declaration and deletion;</li>
 *   <li>{@link AddressResolver}: addresses to destinations and subscriptions;</li>
 *   <li>{@link Publisher}: putting routed messages on queues, and the publish counters;</li>
 *   <li>{@link ClientAdmission}: admitted connections and their temporary queues.</li>
 * </ul>
 * Front ends see it as a {@link VirtualHost}; the daemon and management use the rest. Thread-safe: each part
 * names the thread that owns its state; nothing here blocks a caller's thread on the store.
 */
public final class BrokerVirtualHost implements VirtualHost, ManagedVirtualHost {
    private final VirtualHostConfig config;
    private final CurrentStore store;
    private final ServingStatus status;
    private final Topology topology;
    private final ClientAdmission admission;
    private final Publisher publisher;
    private final AddressResolver addresses;
    private final VirtualHostLifecycle lifecycle;

    /** A virtual host whose queues keep every entry on the heap (no heap window). */
    public BrokerVirtualHost(VirtualHostConfig config, Supplier<MessageStore> storeSupplier,
                             OperationalLog operationalLog, ContentBudget contentBudget, Executor queuePool,
                             ScheduledExecutorService housekeeping) {
        this(config, storeSupplier, operationalLog, contentBudget, 0, queuePool, housekeeping);
    }

    /**
     * @param queueWindow new entries a durable queue keeps on the heap before further messages stay in the store
     *                    only ({@code <memory queueWindow>}); 0: no limit
     */
    public BrokerVirtualHost(VirtualHostConfig config, Supplier<MessageStore> storeSupplier,
                             OperationalLog operationalLog, ContentBudget contentBudget, int queueWindow,
                             Executor queuePool, ScheduledExecutorService housekeeping) {
        this.config = config;
        OwningThread lifecycleThread = new OwningThread("vhost-" + config.name());
        this.store = new CurrentStore(config.name());
        this.status = new ServingStatus(config.name(), lifecycleThread);
        this.topology = new Topology(config, store, operationalLog, queueWindow, contentBudget, queuePool, housekeeping);
        this.admission = new ClientAdmission(config.name(), status, topology);
        this.publisher = new Publisher(status, store, contentBudget);
        this.addresses = new AddressResolver(config, status, topology, publisher,
                new TopicSubscriptions(config, topology));
        this.lifecycle = new VirtualHostLifecycle(config, storeSupplier, store, status, topology, admission,
                operationalLog, housekeeping, lifecycleThread);
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public VirtualHostState state() {
        return status.state();
    }

    public VirtualHostConfig config() {
        return config;
    }

    public Optional<MessageStore> store() {
        return store.get();
    }

    /** Queues by name (a snapshot, for management and tests). */
    public Map<String, BrokerQueue> queues() {
        return topology.queuesSnapshot();
    }

    public Optional<BrokerQueue> queue(String queueName) {
        return Optional.ofNullable(topology.queue(queueName));
    }

    public Map<String, Exchange> exchanges() {
        return topology.exchangesSnapshot();
    }

    /**
     * Whether this host does its part on this node (any thread): serving, a replica of its group, waiting, failed
     * (its store cannot serve here) or stopped.
     */
    @Override
    public VirtualHostStanding standing() {
        VirtualHostState state = status.state();
        if (state == VirtualHostState.ACTIVE) {
            return VirtualHostStanding.SERVING;
        }
        if (state == VirtualHostState.STOPPED) {
            return VirtualHostStanding.STOPPED;
        }
        if (status.failure() != null) {
            return VirtualHostStanding.FAILED;
        }
        boolean replica = store.get().flatMap(MessageStore::replication)
                .map(control -> control.nodeState() == MemberState.REPLICA).orElse(false);
        return replica ? VirtualHostStanding.REPLICA : VirtualHostStanding.WAITING;
    }

    /** Why this host does not serve (the store's last reason, or its failure), or "serving" (any thread). */
    @Override
    public String standingReason() {
        return status.reason();
    }

    /** Runs {@code observer} (on the host's life-cycle thread) after every change of serving state. */
    public void onStandingChange(Runnable observer) {
        status.onChange(observer);
    }

    /**
     * Completes with ACTIVE or PASSIVE once the store has first said which this node is; exceptionally when the
     * store failed (it cannot serve on this node).
     */
    public CompletableFuture<VirtualHostState> firstRoleDecided() {
        return lifecycle.firstRoleDecided();
    }

    // ---- connections, for management ----

    public int connectionCount() {
        return admission.connectionCount();
    }

    /** Each open client connection's {@link ClientConnection#describe()} (a snapshot, for management). */
    public List<String> connectionDescriptions() {
        return admission.connectionDescriptions();
    }

    /**
     * Operator: closes the client connections whose {@link ClientConnection#describe()} equals {@code description},
     * telling the client {@code reason}. Returns how many were asked to close (0: no such connection).
     */
    public int closeConnection(String description, String reason) {
        return admission.closeConnection(description, reason);
    }

    // ---- publish refusal (the disk watermark) and counters, for management ----

    /**
     * Refuses every new publish with {@code RESOURCE_LIMIT_EXCEEDED} and {@code reason} until
     * {@link #acceptPublishes()}; consumers and acknowledgements carry on. Any thread.
     */
    public void refusePublishes(String reason) {
        publisher.refusePublishes(reason);
    }

    /** Accepts publishes again after {@link #refusePublishes}. Any thread. */
    public void acceptPublishes() {
        publisher.acceptPublishes();
    }

    /** Why publishes are refused, when they are. */
    public Optional<String> publishRefusal() {
        return publisher.publishRefusal();
    }

    /** Counters since this host was created. */
    public PublishStatistics publishStatistics() {
        return publisher.statistics();
    }

    // ---- life cycle ----

    /** Creates and starts the store; the host becomes ACTIVE when the store says this node may serve. */
    public void start() {
        lifecycle.start();
    }

    /** Operator: stop serving on this node and close the store, without stopping the JVM. */
    public CompletableFuture<Void> passivate(String reason) {
        return lifecycle.passivate(reason);
    }

    /** Operator: reopen the store and serve again (after {@link #passivate}). */
    public CompletableFuture<Void> activate() {
        return lifecycle.activate();
    }

    /** Closes connections and the store; the host cannot be started again. */
    public CompletableFuture<Void> stop() {
        return lifecycle.stop();
    }

    /**
     * Whether recovered queue entries are still loading in the background, or the messages no queue holds still
     * being removed (any thread).
     */
    public boolean recoveryInProgress() {
        return lifecycle.recoveryInProgress();
    }

    // ---- clients ----

    @Override
    public Admission admit(ClientConnection connection) {
        return admission.admit(connection);
    }

    @Override
    public CompletableFuture<Admission> admitWhenDecided(ClientConnection connection) {
        return admission.admitOrWait(connection, ClientAdmission.MAX_ADMISSION_WAIT);
    }

    @Override
    public CompletableFuture<Destination> resolveDestination(String address, AddressKind kind,
                                                             ClientAccess access) {
        return addresses.resolveDestination(address, kind, access);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String address, ConsumerTarget target,
                                                     SubscriptionOptions options, ClientAccess access) {
        return addresses.subscribe(address, target, options, access);
    }

    @Override
    public CompletableFuture<Optional<SubscriptionTerms>> findSubscription(NamedSubscription subscription,
                                                                           ClientAccess access) {
        return addresses.findSubscription(subscription, access);
    }

    @Override
    public CompletableFuture<Void> unsubscribe(NamedSubscription subscription, ClientAccess access) {
        return addresses.unsubscribe(subscription, access);
    }

    /** The terms of the named subscription whose queue this is; empty for any other queue (for management). */
    @Override
    public Optional<SubscriptionTerms> subscriptionOf(String queueName) {
        return Optional.ofNullable(topology.subscriptionTerms(queueName));
    }

    @Override
    public CompletableFuture<String> createTemporaryQueue(ClientConnection owner) {
        return admission.createTemporaryQueue(owner);
    }

    @Override
    public LocalTransaction beginTransaction() {
        status.requireActive();
        MessageStore current = store.require();
        return new StoreBackedTransaction(current::newTransaction);
    }

    /** Finds or creates a queue; durable queues are stored before they become visible. Any thread. */
    public CompletableFuture<BrokerQueue> declareQueue(QueueConfig queueConfig, boolean autoDelete) {
        return topology.declareQueue(queueConfig, autoDelete);
    }

    /** Deletes a queue and its messages (private subscription and temporary queues). */
    public CompletableFuture<Void> deleteQueue(BrokerQueue queue, String reason) {
        return topology.deleteQueue(queue, reason);
    }

    @Override
    public String toString() {
        return "virtual host '" + name() + "' (" + status.state() + ")";
    }
}
