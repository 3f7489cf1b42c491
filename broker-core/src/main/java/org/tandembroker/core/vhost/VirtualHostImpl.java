package org.tandembroker.core.vhost;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.BindingConfig;
import org.tandembroker.core.config.ExchangeConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exchange.Binding;
import org.tandembroker.core.exchange.Exchange;
import org.tandembroker.core.exchange.ExchangeType;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.exec.SerialExecutor;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.QueueHost;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.txn.LocalTransaction;
import org.tandembroker.core.txn.LocalTransactionImpl;
import org.tandembroker.core.txn.TransactionParticipant;

/**
 * A virtual host: exchanges, queues and their store, and the connections using them.
 *
 * <p><b>Threads.</b> Life-cycle changes (activation with recovery, passivation, stop) run one at a time on the
 * host's own "vhost-NAME" thread, whoever asked for them (the store's role events, an operator); so do the steps
 * of the background loading of recovered queue entries ({@link RecoveredEntryLoader}), between them, so that a
 * passivation or stop cancels the loading before it drops the queues. The queue and exchange maps are concurrent
 * maps read by network threads; each queue's state is owned by its own {@link SerialExecutor}. Nothing here
 * blocks a caller's thread on the store.
 *
 * <p><b>Recovery.</b> See {@link #recoverAndActivate}: the host serves once the configuration and the head of each
 * queue are recovered; the rest loads in the background.
 */
public final class VirtualHostImpl implements VirtualHost, ManagedVirtualHost {
    private static final Logger LOG = LoggerFactory.getLogger(VirtualHostImpl.class);
    private static final List<ExchangeConfig> BUILT_IN_EXCHANGES = List.of(
            new ExchangeConfig("amq.direct", ExchangeType.DIRECT, true),
            new ExchangeConfig("amq.topic", ExchangeType.TOPIC, true),
            new ExchangeConfig("amq.fanout", ExchangeType.FANOUT, true));
    private static final long EXPIRY_SWEEP_MILLIS = 5_000;

    private final VirtualHostConfig config;
    private final Supplier<MessageStore> storeSupplier;
    private final OperationalLog operationalLog;
    private final ContentBudget contentBudget;
    private final Executor queuePool;
    private final ScheduledExecutorService housekeeping;
    private final ExecutorService lifecycle;
    private final QueueHost queueHost = new HostForQueues();

    private final Map<String, BrokerQueue> queues = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<BrokerQueue>> queueDeclarations = new ConcurrentHashMap<>();
    private final Map<String, Exchange> exchanges = new ConcurrentHashMap<>();
    private final Set<ClientConnection> connections = ConcurrentHashMap.newKeySet();
    private final Map<ClientConnection, Set<String>> temporaryQueues = new ConcurrentHashMap<>();

    private volatile VirtualHostState state = VirtualHostState.PASSIVE;
    private volatile MessageStore store;
    private volatile String activeNodeAddress;
    private volatile String passiveReason = "starting";
    /** Why new publishes are refused (the disk watermark), or null; read on every publish, written rarely. */
    private volatile String publishRefusal;
    private final LongAdder messagesIn = new LongAdder();
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder storeCommits = new LongAdder();
    private final LongAdder storeCommitNanos = new LongAdder();
    private final LongAdder publishesRefused = new LongAdder();
    private ScheduledFuture<?> expirySweep;
    /** The current activation's background loading; written on the life-cycle thread. */
    private volatile RecoveredEntryLoader recoveryLoader;
    private final CompletableFuture<VirtualHostState> firstRole = new CompletableFuture<>();

    public VirtualHostImpl(VirtualHostConfig config, Supplier<MessageStore> storeSupplier,
                           OperationalLog operationalLog, ContentBudget contentBudget, Executor queuePool,
                           ScheduledExecutorService housekeeping) {
        this.config = config;
        this.storeSupplier = storeSupplier;
        this.operationalLog = operationalLog;
        this.contentBudget = contentBudget;
        this.queuePool = queuePool;
        this.housekeeping = housekeeping;
        this.lifecycle = Executors.newSingleThreadExecutor(new NamedThreadFactory("vhost-" + config.name(), true));
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public VirtualHostState state() {
        return state;
    }

    public VirtualHostConfig config() {
        return config;
    }

    public Optional<MessageStore> store() {
        return Optional.ofNullable(store);
    }

    /** Queues by name (a snapshot, for management and tests). */
    public Map<String, BrokerQueue> queues() {
        return Map.copyOf(queues);
    }

    public Optional<BrokerQueue> queue(String queueName) {
        return Optional.ofNullable(queues.get(queueName));
    }

    public Map<String, Exchange> exchanges() {
        return Map.copyOf(exchanges);
    }

    /** Completes with ACTIVE or PASSIVE once the store has first said which this node is. */
    public CompletableFuture<VirtualHostState> firstRoleDecided() {
        return firstRole;
    }

    public int connectionCount() {
        return connections.size();
    }

    /** Each open client connection's {@link ClientConnection#describe()} (a snapshot, for management). */
    public List<String> connectionDescriptions() {
        return connections.stream().map(ClientConnection::describe).sorted().toList();
    }

    /**
     * Operator: closes the client connections whose {@link ClientConnection#describe()} equals {@code description},
     * telling the client {@code reason}. Returns how many were asked to close (0: no such connection).
     */
    public int closeConnection(String description, String reason) {
        int closed = 0;
        for (ClientConnection connection : List.copyOf(connections)) {
            if (connection.describe().equals(description)) {
                connection.closeByBroker(reason, null);
                closed++;
            }
        }
        return closed;
    }

    // ---- publish refusal (the disk watermark) and counters, for management ----

    /**
     * Refuses every new publish with {@code RESOURCE_LIMIT_EXCEEDED} and {@code reason} until
     * {@link #acceptPublishes()}; consumers and acknowledgements carry on. Any thread.
     */
    public void refusePublishes(String reason) {
        publishRefusal = reason;
    }

    /** Accepts publishes again after {@link #refusePublishes}. Any thread. */
    public void acceptPublishes() {
        publishRefusal = null;
    }

    /** Why publishes are refused, when they are. */
    public Optional<String> publishRefusal() {
        return Optional.ofNullable(publishRefusal);
    }

    public PublishStatistics publishStatistics() {
        return new PublishStatistics(messagesIn.sum(), bytesIn.sum(), storeCommits.sum(), storeCommitNanos.sum(),
                publishesRefused.sum());
    }

    // ---- life cycle ----

    /** Creates and starts the store; the host becomes ACTIVE when the store says this node may serve. */
    public void start() {
        operationalLog.log(LogCode.VHT_1001, name());
        openStore();
    }

    private void openStore() {
        MessageStore newStore = storeSupplier.get();
        store = newStore;
        newStore.start(new RoleListener(newStore));
    }

    /** Operator: stop serving on this node and close the store, without stopping the JVM. */
    public CompletableFuture<Void> passivate(String reason) {
        return onLifecycleThread(() -> {
            if (state == VirtualHostState.ACTIVE) {
                deactivate(null, reason);
            }
            MessageStore current = store;
            store = null;
            if (current != null) {
                current.close();
            }
        });
    }

    /** Operator: reopen the store and serve again (after {@link #passivate}). */
    public CompletableFuture<Void> activate() {
        return onLifecycleThread(() -> {
            if (state == VirtualHostState.STOPPED) {
                throw new BrokerException(ErrorKind.ILLEGAL_STATE, "virtual host '" + name() + "' is stopped");
            }
            if (store == null) {
                openStore();
            }
        });
    }

    /** Closes connections and the store; the host cannot be started again. */
    public CompletableFuture<Void> stop() {
        return onLifecycleThread(() -> {
            if (state == VirtualHostState.ACTIVE) {
                deactivate(null, "broker shutting down");
            }
            state = VirtualHostState.STOPPED;
            MessageStore current = store;
            store = null;
            if (current != null) {
                current.close();
            }
            operationalLog.log(LogCode.VHT_1004, name());
        }).whenComplete((ok, failure) -> lifecycle.shutdown());
    }

    private CompletableFuture<Void> onLifecycleThread(Runnable work) {
        return CompletableFuture.runAsync(work, lifecycle);
    }

    /** The store's role events, forwarded to the life-cycle thread. */
    private final class RoleListener implements StoreRoleListener {
        private final MessageStore source;

        RoleListener(MessageStore source) {
            this.source = source;
        }

        @Override
        public CompletableFuture<Void> becameActive() {
            return onLifecycleThread(() -> {
                if (store != source || state != VirtualHostState.PASSIVE) {
                    return;
                }
                try {
                    recoverAndActivate(source);
                    firstRole.complete(VirtualHostState.ACTIVE);
                } catch (RuntimeException e) {
                    LOG.error("Activation of virtual host '{}' failed", name(), e);
                    clearState("activation failed: " + e.getMessage());
                    firstRole.completeExceptionally(e);
                    throw e;
                }
            });
        }

        @Override
        public CompletableFuture<Void> becamePassive(Optional<String> activeNodeClientAddress, String reason) {
            return onLifecycleThread(() -> {
                if (store != source) {
                    return;
                }
                activeNodeAddress = activeNodeClientAddress.orElse(null);
                if (state == VirtualHostState.ACTIVE) {
                    deactivate(activeNodeAddress, reason);
                } else {
                    passiveReason = reason;
                }
                firstRole.complete(VirtualHostState.PASSIVE);
            });
        }
    }

    /**
     * Recovers and serves (life-cycle thread). Configuration records first, then the head of every durable queue
     * ({@link RecoveredEntryLoader#loadHeads()}); the host is ACTIVE from then on, whatever the queues' depth. When
     * a queue holds more, its entries load in the background (MST-1012 says so; MST-1005 and MST-1006 follow when
     * everything is loaded), its consumers take what is loaded, and what clients publish meanwhile joins each queue
     * behind its recovered entries ({@link BrokerQueue}). Otherwise MST-1005 and MST-1006 come before VHT-1002.
     */
    private void recoverAndActivate(MessageStore source) {
        operationalLog.log(LogCode.MST_1004, name());
        for (ExchangeConfig builtIn : BUILT_IN_EXCHANGES) {
            exchanges.put(builtIn.name(), new Exchange(UUID.nameUUIDFromBytes(builtIn.name().getBytes()),
                    builtIn.name(), builtIn.type(), true));
        }
        ConfigurationRecovery configuration = new ConfigurationRecovery();
        StoredEntries stored = source.recover(configuration);
        configuration.bind();
        RecoveredEntryLoader loader = new RecoveredEntryLoader(name(), source, stored,
                configuration.durableQueues(), this::onLifecycleThreadUnlessStopped, housekeeping, operationalLog);
        recoveryLoader = loader;
        boolean loadedAll = loader.loadHeads();
        if (loadedAll) {
            loader.finish(Runnable::run); // its steps run on the store's reader thread while this one waits
            loader.done().join();
        } else {
            operationalLog.log(LogCode.MST_1012, loader.entriesLoaded(), loader.queuesLoading());
        }
        declareFromConfiguration(source);
        activeNodeAddress = null;
        state = VirtualHostState.ACTIVE;
        expirySweep = housekeeping.scheduleWithFixedDelay(
                () -> queues.values().forEach(BrokerQueue::expireEntries),
                EXPIRY_SWEEP_MILLIS, EXPIRY_SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        operationalLog.log(LogCode.VHT_1002, name());
        if (!loadedAll) {
            loader.loadRest();
        }
    }

    /** A step of background loading; dropped when the host has stopped (the loading was cancelled before). */
    private void onLifecycleThreadUnlessStopped(Runnable step) {
        try {
            lifecycle.execute(step);
        } catch (RejectedExecutionException e) {
            // stopped: stop() cancelled the loading first
        }
    }

    /**
     * Whether recovered queue entries are still loading in the background, or the messages no queue holds still
     * being removed (any thread).
     */
    public boolean recoveryInProgress() {
        RecoveredEntryLoader loader = recoveryLoader;
        return loader != null && !loader.done().isDone();
    }

    /** Turns configuration records back into queues, exchanges and bindings. Runs on the life-cycle thread. */
    private final class ConfigurationRecovery implements RecoveryHandler {
        private final List<ConfigRecord> bindingRecords = new ArrayList<>();
        private final Map<UUID, BrokerQueue> queuesById = new HashMap<>();

        @Override
        public void configRecord(ConfigRecord record) {
            switch (record.type()) {
                case ConfigRecord.QUEUE -> {
                    QueueConfig qc = ConfigRecords.toQueueConfig(record);
                    BrokerQueue queue = newQueue(record.id(), qc, false);
                    queue.expectRecoveredEntries();
                    queues.put(qc.name(), queue);
                    queuesById.put(record.id(), queue);
                }
                case ConfigRecord.EXCHANGE -> {
                    ExchangeConfig ec = ConfigRecords.toExchangeConfig(record);
                    exchanges.put(ec.name(), new Exchange(record.id(), ec.name(), ec.type(), true));
                }
                case ConfigRecord.BINDING -> bindingRecords.add(record);
                default -> LOG.warn("Ignoring unknown configuration record type '{}' ({})", record.type(), record.id());
            }
        }

        void bind() {
            for (ConfigRecord record : bindingRecords) {
                String exchangeName = record.attributes().get("exchange");
                BrokerQueue queue = queuesById.get(UUID.fromString(record.attributes().get("queue")));
                Exchange exchange = exchanges.get(exchangeName);
                if (queue == null || exchange == null) {
                    LOG.warn("Ignoring binding {} to missing exchange '{}' or queue", record.id(), exchangeName);
                    continue;
                }
                exchange.bind(new Binding(record.id(), exchangeName, queue, record.attributes().get("key")));
            }
        }

        List<BrokerQueue> durableQueues() {
            return List.copyOf(queuesById.values());
        }
    }

    private void declareFromConfiguration(MessageStore source) {
        StoreTransaction declarations = source.newTransaction();
        for (ExchangeConfig ec : config.exchanges()) {
            if (!exchanges.containsKey(ec.name())) {
                UUID id = UUID.randomUUID();
                exchanges.put(ec.name(), new Exchange(id, ec.name(), ec.type(), ec.durable()));
                if (ec.durable()) {
                    declarations.putConfig(ConfigRecords.exchangeRecord(id, ec));
                }
            }
        }
        for (QueueConfig qc : config.queues()) {
            if (!queues.containsKey(qc.name())) {
                BrokerQueue queue = newQueue(UUID.randomUUID(), qc, false);
                queues.put(qc.name(), queue);
                if (qc.durable()) {
                    declarations.putConfig(ConfigRecords.queueRecord(queue.id(), qc));
                }
                operationalLog.log(LogCode.VHT_1005, qc.name(), qc.durable());
            }
        }
        for (BindingConfig bc : config.bindings()) {
            Exchange exchange = exchanges.get(bc.exchange());
            BrokerQueue queue = queues.get(bc.queue());
            if (exchange.find(queue, bc.bindingKey()).isEmpty()) {
                Binding binding = new Binding(UUID.randomUUID(), exchange.name(), queue, bc.bindingKey());
                exchange.bind(binding);
                if (queue.isDurable()) {
                    declarations.putConfig(ConfigRecords.bindingRecord(binding));
                }
            }
        }
        if (!declarations.isEmpty()) {
            declarations.commit().join();
        }
    }

    /** Leaves ACTIVE: connections closed (with a redirect when known), in-memory state dropped, store untouched. */
    private void deactivate(String redirect, String reason) {
        state = VirtualHostState.PASSIVE;
        passiveReason = reason;
        for (ClientConnection connection : List.copyOf(connections)) {
            connection.closeByBroker("virtual host '" + name() + "' is no longer active on this node: " + reason,
                    redirect);
        }
        clearState(reason);
        operationalLog.log(LogCode.MST_1007);
        operationalLog.log(LogCode.VHT_1003, name(), reason);
    }

    private void clearState(String reason) {
        RecoveredEntryLoader loader = recoveryLoader;
        if (loader != null) {
            loader.cancel(); // before the queues shut down: nothing more is added to them or removed for them
            recoveryLoader = null;
        }
        if (expirySweep != null) {
            expirySweep.cancel(false);
            expirySweep = null;
        }
        connections.clear();
        temporaryQueues.clear();
        List<CompletableFuture<Void>> shutdowns = new ArrayList<>();
        for (BrokerQueue queue : queues.values()) {
            shutdowns.add(queue.shutdown(reason, false));
        }
        CompletableFuture.allOf(shutdowns.toArray(CompletableFuture[]::new)).join();
        queues.clear();
        queueDeclarations.clear();
        exchanges.clear();
    }

    // ---- clients ----

    @Override
    public Admission admit(ClientConnection connection) {
        if (state == VirtualHostState.ACTIVE) {
            connections.add(connection);
            if (state == VirtualHostState.ACTIVE) {
                return new Admission.Admitted(() -> deregister(connection));
            }
            connections.remove(connection);
        }
        return refusal();
    }

    private Admission refusal() {
        String redirect = activeNodeAddress;
        String text = "virtual host '" + name() + "' is not active on this node (" + state + ": " + passiveReason + ")"
                + (redirect != null ? "; the active node serves clients at " + redirect : "; try another node");
        return new Admission.Refused(ErrorKind.NOT_ACTIVE, text, redirect);
    }

    private void deregister(ClientConnection connection) {
        connections.remove(connection);
        Set<String> owned = temporaryQueues.remove(connection);
        if (owned != null) {
            for (String queueName : owned) {
                BrokerQueue queue = queues.get(queueName);
                if (queue != null) {
                    deleteQueue(queue, "its connection closed");
                }
            }
        }
    }

    private void requireActive() {
        if (state != VirtualHostState.ACTIVE) {
            Admission.Refused refused = (Admission.Refused) refusal();
            throw new BrokerException(ErrorKind.NOT_ACTIVE, refused.description());
        }
    }

    @Override
    public CompletableFuture<Destination> resolveDestination(String address) {
        try {
            requireActive();
            if (address == null || address.isEmpty()) {
                throw new BrokerException(ErrorKind.INVALID_FIELD, "an empty address names no queue or exchange");
            }
            BrokerQueue queue = queues.get(address);
            if (queue != null) {
                return CompletableFuture.completedFuture(new QueueDestination(address, queue));
            }
            Optional<ExchangeAddress> exchangeAddress = exchangeAddress(address);
            if (exchangeAddress.isPresent()) {
                ExchangeAddress ea = exchangeAddress.get();
                return CompletableFuture.completedFuture(new ExchangeDestination(address, ea.exchange(), ea.key()));
            }
            return autoCreatedQueue(address).thenApply(q -> new QueueDestination(address, q));
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private record ExchangeAddress(Exchange exchange, String key) {
    }

    private Optional<ExchangeAddress> exchangeAddress(String address) {
        Exchange exchange = exchanges.get(address);
        if (exchange != null) {
            return Optional.of(new ExchangeAddress(exchange, null));
        }
        int slash = address.indexOf('/');
        if (slash > 0) {
            exchange = exchanges.get(address.substring(0, slash));
            if (exchange != null) {
                return Optional.of(new ExchangeAddress(exchange, address.substring(slash + 1)));
            }
        }
        return Optional.empty();
    }

    private CompletableFuture<BrokerQueue> autoCreatedQueue(String address) {
        if (!config.autoCreateQueues()) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.NOT_FOUND,
                    "no queue or exchange named '" + address + "' in virtual host '" + name()
                            + "' (auto-create is off)"));
        }
        return declareQueue(config.queueDefaults().named(address), false);
    }

    /** Finds or creates a queue; durable queues are stored before they become visible. Any thread. */
    public CompletableFuture<BrokerQueue> declareQueue(QueueConfig queueConfig, boolean autoDelete) {
        BrokerQueue existing = queues.get(queueConfig.name());
        if (existing != null) {
            return CompletableFuture.completedFuture(existing);
        }
        String queueName = queueConfig.name();
        CompletableFuture<BrokerQueue> declared = new CompletableFuture<>();
        CompletableFuture<BrokerQueue> inProgress = queueDeclarations.putIfAbsent(queueName, declared);
        if (inProgress != null) {
            return inProgress;
        }
        BrokerQueue queue = newQueue(UUID.randomUUID(), queueConfig, autoDelete);
        CompletableFuture<Void> stored;
        try {
            if (queueConfig.durable()) {
                StoreTransaction txn = currentStore().newTransaction();
                txn.putConfig(ConfigRecords.queueRecord(queue.id(), queueConfig));
                stored = txn.commit();
            } else {
                stored = CompletableFuture.completedFuture(null);
            }
        } catch (BrokerException e) {
            stored = CompletableFuture.failedFuture(e);
        }
        stored.whenComplete((ok, failure) -> {
            queueDeclarations.remove(queueName, declared);
            if (failure != null) {
                declared.completeExceptionally(BrokerException.from(failure));
                return;
            }
            BrokerQueue winner = queues.putIfAbsent(queueName, queue);
            if (winner == null) {
                operationalLog.log(LogCode.VHT_1005, queueName, queueConfig.durable());
                declared.complete(queue);
            } else {
                declared.complete(winner);
            }
        });
        return declared;
    }

    private MessageStore currentStore() {
        MessageStore current = store;
        if (current == null) {
            throw new BrokerException(ErrorKind.NOT_ACTIVE, "virtual host '" + name() + "' has no open store");
        }
        return current;
    }

    private BrokerQueue newQueue(UUID id, QueueConfig qc, boolean autoDelete) {
        return new BrokerQueue(id, qc, autoDelete, new SerialExecutor("queue-" + qc.name(), queuePool), queueHost);
    }

    /** Deletes a queue and its messages (private subscription and temporary queues). */
    public CompletableFuture<Void> deleteQueue(BrokerQueue queue, String reason) {
        if (!queues.remove(queue.name(), queue)) {
            return CompletableFuture.completedFuture(null);
        }
        StoreTransaction txn = queue.isDurable() ? currentStore().newTransaction() : null;
        for (Exchange exchange : exchanges.values()) {
            for (Binding removed : exchange.unbindAll(queue)) {
                if (txn != null) {
                    txn.removeConfig(removed.id());
                }
            }
        }
        if (txn != null) {
            txn.removeConfig(queue.id());
            txn.commit();
        }
        operationalLog.log(LogCode.VHT_1006, queue.name());
        return queue.shutdown("queue '" + queue.name() + "' deleted: " + reason, true);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String address, ConsumerTarget target,
                                                     SubscriptionOptions options) {
        try {
            requireActive();
            BrokerQueue queue = queues.get(address);
            if (queue != null) {
                return queue.subscribe(target, options.preSettled());
            }
            Optional<ExchangeAddress> exchangeAddress = exchangeAddress(address);
            if (exchangeAddress.isPresent()) {
                return subscribeToExchange(exchangeAddress.get(), target, options);
            }
            return autoCreatedQueue(address).thenCompose(q -> q.subscribe(target, options.preSettled()));
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Subscription> subscribeToExchange(ExchangeAddress address, ConsumerTarget target,
                                                                SubscriptionOptions options) {
        Exchange exchange = address.exchange();
        String key = address.key() != null ? address.key() : switch (exchange.type()) {
            case TOPIC -> "#";
            case DIRECT, FANOUT -> "";
        };
        boolean durable = options.durableName() != null;
        String queueName = durable ? options.durableName() : "sub-" + exchange.name() + "-" + UUID.randomUUID();
        QueueConfig qc = new QueueConfig(queueName, durable, config.queueDefaults().maxDepthMessages(),
                config.queueDefaults().maxDepthBytes(), config.queueDefaults().messageTtlMillis(),
                config.queueDefaults().maxDeliveries(), config.queueDefaults().deadLetterQueue());
        return declareQueue(qc, !durable).thenCompose(queue -> {
            if (exchange.find(queue, key).isEmpty()) {
                Binding binding = new Binding(UUID.randomUUID(), exchange.name(), queue, key);
                exchange.bind(binding);
                if (queue.isDurable()) {
                    StoreTransaction txn = currentStore().newTransaction();
                    txn.putConfig(ConfigRecords.bindingRecord(binding));
                    return txn.commit().thenCompose(ok -> queue.subscribe(target, options.preSettled()));
                }
            }
            return queue.subscribe(target, options.preSettled());
        });
    }

    @Override
    public CompletableFuture<String> createTemporaryQueue(ClientConnection owner) {
        try {
            requireActive();
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
        String queueName = "TempQueue-" + UUID.randomUUID();
        QueueConfig qc = new QueueConfig(queueName, false, 0, 0, 0, 0, null);
        return declareQueue(qc, false).thenApply(queue -> {
            temporaryQueues.computeIfAbsent(owner, c -> ConcurrentHashMap.newKeySet()).add(queueName);
            return queueName;
        });
    }

    @Override
    public LocalTransaction beginTransaction() {
        requireActive();
        MessageStore current = currentStore();
        return new LocalTransactionImpl(current::newTransaction);
    }

    // ---- publishing ----

    private final class QueueDestination implements Destination {
        private final String address;
        private final List<BrokerQueue> target;

        QueueDestination(String address, BrokerQueue queue) {
            this.address = address;
            this.target = List.of(queue);
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public CompletableFuture<PublishResult> publish(IncomingMessage message, LocalTransaction transaction) {
            return publishTo(target, address, message, transaction);
        }
    }

    private final class ExchangeDestination implements Destination {
        private final String address;
        private final Exchange exchange;
        private final String fixedKey;

        ExchangeDestination(String address, Exchange exchange, String fixedKey) {
            this.address = address;
            this.exchange = exchange;
            this.fixedKey = fixedKey;
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public CompletableFuture<PublishResult> publish(IncomingMessage message, LocalTransaction transaction) {
            String key = fixedKey != null ? fixedKey : message.metadata().subject();
            return publishTo(exchange.route(key), address, message, transaction);
        }
    }

    private CompletableFuture<PublishResult> publishTo(List<BrokerQueue> targets, String address,
                                                       IncomingMessage incoming, LocalTransaction transaction) {
        try {
            requireActive();
            String refusal = publishRefusal;
            if (refusal != null) {
                publishesRefused.increment();
                throw new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED, refusal);
            }
            if (targets.isEmpty()) {
                return CompletableFuture.completedFuture(new PublishResult(0));
            }
            MessageMetadata metadata = incoming.metadata();
            if (address.equals(metadata.to())) {
                metadata = new MessageMetadata(address, metadata.subject(), metadata.persistent(),
                        metadata.priority(), metadata.expiresAtMillis(), metadata.arrivalMillis(),
                        metadata.contentSize());
            }
            int size = metadata.contentSize();
            List<BrokerQueue> reserved = new ArrayList<>(targets.size());
            try {
                for (BrokerQueue queue : targets) {
                    queue.reserve(size);
                    reserved.add(queue);
                }
            } catch (BrokerException full) {
                reserved.forEach(q -> q.cancelReservation(size));
                throw full;
            }
            MessageStore current = currentStore();
            boolean stored = metadata.persistent() && targets.stream().anyMatch(BrokerQueue::isDurable);
            ServerMessage message = new ServerMessage(current.nextMessageId(), metadata, incoming.content(), stored);
            message.setReferences(targets.size());
            TransactionalPublish publish = new TransactionalPublish(message, targets);
            if (transaction != null) {
                ((LocalTransactionImpl) transaction).enlist(publish);
                return CompletableFuture.completedFuture(new PublishResult(targets.size()));
            }
            if (!stored) {
                publish.committed();
                return CompletableFuture.completedFuture(new PublishResult(targets.size()));
            }
            StoreTransaction txn = current.newTransaction();
            publish.prepare(txn);
            long commitStart = System.nanoTime();
            return txn.commit().handle((ok, failure) -> {
                if (failure != null) {
                    publish.rolledBack();
                    throw BrokerException.from(failure);
                }
                storeCommitNanos.add(System.nanoTime() - commitStart);
                storeCommits.increment();
                publish.committed();
                return new PublishResult(targets.size());
            });
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A routed message: stored with its durable entries, then enqueued in memory. */
    private final class TransactionalPublish implements TransactionParticipant {
        private final ServerMessage message;
        private final List<BrokerQueue> targets;

        TransactionalPublish(ServerMessage message, List<BrokerQueue> targets) {
            this.message = message;
            this.targets = targets;
        }

        @Override
        public void prepare(StoreTransaction storeTransaction) {
            if (!message.isStored()) {
                return;
            }
            storeTransaction.storeMessage(message.id(), MetadataCodec.encode(message.metadata()),
                    message.contentOnHeap());
            for (BrokerQueue queue : targets) {
                if (queue.isDurable()) {
                    storeTransaction.enqueue(queue.id(), message.id());
                }
            }
        }

        @Override
        public void committed() {
            messagesIn.increment();
            bytesIn.add(message.metadata().contentSize());
            message.retainWithin(contentBudget);
            for (BrokerQueue queue : targets) {
                queue.enqueue(message);
            }
        }

        @Override
        public void rolledBack() {
            for (BrokerQueue queue : targets) {
                queue.cancelReservation(message.metadata().contentSize());
            }
        }
    }

    /** What queues ask of their host. */
    private final class HostForQueues implements QueueHost {
        @Override
        public StoreTransaction newStoreTransaction() {
            return currentStore().newTransaction();
        }

        @Override
        public CompletableFuture<byte[]> loadContent(long messageId) {
            return currentStore().loadContent(messageId);
        }

        @Override
        public CompletableFuture<BrokerQueue> deadLetterQueue(String queueName) {
            QueueConfig dlq = config.queueDefaults().asDeadLetterQueue(queueName);
            return declareQueue(dlq, false);
        }

        @Override
        public void autoDelete(BrokerQueue queue) {
            deleteQueue(queue, "its last consumer left");
        }

        @Override
        public OperationalLog operationalLog() {
            return operationalLog;
        }

        @Override
        public long nowMillis() {
            return System.currentTimeMillis();
        }
    }

    @Override
    public String toString() {
        return "virtual host '" + name() + "' (" + state + ")";
    }
}
