package org.tandembroker.store.bdbha;

import org.tandembroker.core.store.replication.ReplicaLag;
import org.tandembroker.store.bdb.JeLogFigures;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import com.sleepycat.je.rep.ReplicationNetworkConfig;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.store.HotBackup;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.core.store.StoreFigureSource;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;
import org.tandembroker.core.store.replication.ReplicationControl;
import org.tandembroker.store.bdb.BdbTransaction;
import org.tandembroker.store.bdb.ChangeSet;
import org.tandembroker.store.bdb.JeStoreFigures;
import org.tandembroker.store.bdb.StoreDatabases;
import org.tandembroker.store.bdb.StoredEntryPages;
import org.tandembroker.store.bdb.StoreReader;
import org.tandembroker.store.bdb.commit.CommitterStats;

/**
 * The replicated JE store ({@code <store type="bdb-ha">}): one node of a JE replication group, serving while
 * {@link NodeRoleMachine} says so (master, and no heartbeat has found the quorum lost), passive otherwise; the
 * virtual host follows. Record layout, content chunks and removal semantics are the standalone store's
 * ({@link StoreDatabases}).
 *
 * <p>The role decisions live in {@link NodeRoleMachine}, the JE environment in
 * {@link ReplicatedEnvironmentFacade}, what writes while master in a {@link MasterSession}, the group's management
 * in {@link GroupAdministration}. This class glues them to the {@link MessageStore} contract and offers the
 * management operations of spec 1.6.8 as plain methods.
 *
 * <p><b>Threads.</b>
 * <ul>
 *   <li>{@code ha-<vhost>} (the machine's thread) makes every role change and calls {@link StoreRoleListener};
 *       it opens and closes master sessions here ({@link JeNode}).</li>
 *   <li>{@code ha-committer-<vhost>-*} commit and complete commit futures; {@code ha-heartbeat-<vhost>} proves
 *       quorum (see {@link MasterSession}).</li>
 *   <li>{@code ha-reader-<vhost>} reads content for {@link #loadContent} and the pages of recovered entries and
 *       message ids ({@link StoredEntries}), one read at a time, content first ({@link StoreReader}).</li>
 *   <li>{@link #recover} runs on the caller's thread (the virtual host's), as the contract asks; it reads
 *       configuration records only.</li>
 * </ul>
 * Other threads read the machine's session (volatile) and use it only through its thread-safe methods; a session
 * closed under them fails their operation with {@code NOT_ACTIVE}.
 */
public final class ReplicatedMessageStore implements MessageStore {
    public static final String TYPE = "bdb-ha";

    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedMessageStore.class);

    private final ReplicatedStoreSettings settings;
    private final StoreContext context;
    private final String name;
    private final NodeRoleMachine<MasterSession> machine;
    private final ReplicatedEnvironmentFacade facade;
    private final GroupAdministration group;
    private final DiskLimitHeadroom headroom;
    private final StoreReader reader;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final AtomicLong nextMessageId = new AtomicLong(1);
    private volatile Thread readerThread;
    /** The warm-up's scratch replica beside this store, started and closed with it; null for a real store. */
    private final RehearsalGroup rehearsalGroup;

    public ReplicatedMessageStore(ReplicatedStoreSettings settings, StoreContext context) {
        this(settings, context, null);
    }

    /** The master of the warm-up's scratch group ({@link ReplicatedMessageStoreFactory#rehearsalStore}). */
    ReplicatedMessageStore(ReplicatedStoreSettings settings, StoreContext context, RehearsalGroup rehearsalGroup) {
        this.rehearsalGroup = rehearsalGroup;
        this.settings = settings;
        this.context = context;
        this.name = TYPE + " store of " + context.virtualHostName() + " (node " + settings.nodeName() + " of group "
                + settings.groupName() + ")";
        this.machine = new NodeRoleMachine<>(new NodeRoleMachine.Settings(name, settings.virtualHostName(),
                settings.nodeName(), settings.groupName(), settings.designatedPrimary(),
                ReplicatedEnvironmentFacade.replicaAckNone(settings)), new JeNode(), context.operationalLog());
        this.facade = new ReplicatedEnvironmentFacade(settings,
                NodeAddresses.of(context.clientAddress(), context.managementAddress()), context.operationalLog(),
                machine.owningThread());
        this.group = new GroupAdministration(settings, facade, machine);
        this.headroom = new DiskLimitHeadroom(settings.nodeName(), context.virtualHostName(), settings.storePath(),
                settings.diskLimits(), facade::environment, context.operationalLog());
        this.reader = new StoreReader("ha-reader-" + context.virtualHostName(), thread -> readerThread = thread);
    }

    @Override
    public void start(StoreRoleListener roleListener) {
        if (closeRequested.get() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException(name + " can be started once, and not after close");
        }
        context.operationalLog().log(LogCode.MST_1001, TYPE, context.virtualHostName(), settings.storePath());
        machine.start(rehearsalGroup == null ? roleListener : rehearsalGroup.activeOnceJoined(roleListener));
        headroom.start();
    }

    /** The machine's hands on JE and on the master session, on the {@code ha-<vhost>} thread. */
    private final class JeNode implements NodeEnvironment<MasterSession> {

        @Override
        public OpenOutcome open(int attempt, boolean designatedPrimary, StateChanges changes) {
            return facade.open(attempt, designatedPrimary, changes);
        }

        @Override
        public Optional<Invalidation> invalidation() {
            return facade.invalidation();
        }

        @Override
        public void close() {
            facade.close();
        }

        @Override
        public SessionOutcome<MasterSession> openSession(SessionReports reports) {
            ReplicatedEnvironment environment = facade.environment().orElse(null);
            if (environment == null) {
                return new SessionOutcome.Refused<>(ReplicationFailures.Action.NONE, "the environment is closed");
            }
            try {
                MasterSession opened = MasterSession.open(environment, settings, name, context.operationalLog(),
                        reports);
                nextMessageId.accumulateAndGet(opened.databases().highestMessageId() + 1, Math::max);
                return new SessionOutcome.Opened<>(opened);
            } catch (RuntimeException e) {
                Optional<ReplicationFailures.Verdict> verdict = ReplicationFailures.classify(e, settings.nodeName());
                if (verdict.isEmpty()) {
                    return new SessionOutcome.Failed<>(ReplicationFailures.firstLine(e));
                }
                ReplicationFailures.Action action = verdict.get().action();
                return new SessionOutcome.Refused<>(action, ReplicationFailures.firstLine(
                        action == ReplicationFailures.Action.QUORUM_LOST ? verdict.get().error() : e));
            }
        }

        @Override
        public void closeSession(MasterSession session, boolean handingOver, boolean quorumKnownLost) {
            // Reads that saw the session finish first: the reader is single-threaded, so a no-op behind them
            // suffices.
            try {
                reader.submit(() -> { }).get(1, TimeUnit.MINUTES);
            } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
                // reader closed or stuck: close regardless
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (handingOver) {
                session.closeHandingOver(quorumKnownLost); // still master: the broker stops
            } else {
                session.close();
            }
        }

        @Override
        public Optional<String> clientAddressOf(String masterName) {
            return facade.clientAddressOf(masterName);
        }

        @Override
        public void applyDesignation(boolean designated) {
            group.applyDesignation(designated);
        }

        @Override
        public OptionalInt electableNodes() {
            return group.electableNodes();
        }
    }

    // ---- the MessageStore contract ----

    /**
     * Replays the configuration records on the caller's thread; the returned pages are read on the reader thread
     * from the same master session, and fail with {@code NOT_ACTIVE} once that session has closed (a later
     * activation recovers afresh).
     */
    @Override
    public StoredEntries recover(RecoveryHandler handler) {
        MasterSession current = requireSession();
        StoreDatabases.RecoveryStart start;
        try {
            start = current.databases().recoverConfiguration(handler);
        } catch (BrokerException e) {
            throw e;
        } catch (RuntimeException e) {
            throw ReplicationFailures.classify(e, settings.nodeName()).map(ReplicationFailures.Verdict::error)
                    .orElseGet(() -> new BrokerException(ErrorKind.INTERNAL_ERROR, name + ": recovery failed: "
                            + ReplicationFailures.firstLine(e), e));
        }
        long horizon = start.horizon();
        nextMessageId.accumulateAndGet(horizon + 1, Math::max);
        LOG.info("{}: recovered {} configuration records; messages and queue entries up to id {} are read in pages",
                name, start.configRecords(), horizon);
        return new StoredEntryPages(horizon, new StoredEntryPages.PageReader() {
            @Override
            public <T> CompletableFuture<T> read(String failure, Function<StoreDatabases, T> work) {
                return readPage(current, failure, work);
            }
        });
    }

    /** A recovery read on the reader thread, valid only while {@code recovering} is still the session. */
    private <T> CompletableFuture<T> readPage(MasterSession recovering, String failure,
                                              Function<StoreDatabases, T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            reader.executeInBackground(() -> {
                if (machine.session() != recovering) {
                    result.completeExceptionally(notActive());
                    return;
                }
                try {
                    result.complete(work.apply(recovering.databases()));
                } catch (RuntimeException e) {
                    result.completeExceptionally(ReplicationFailures.classify(e, settings.nodeName())
                            .map(ReplicationFailures.Verdict::error)
                            .orElseGet(() -> new BrokerException(ErrorKind.INTERNAL_ERROR, name + ": " + failure
                                    + ": " + ReplicationFailures.firstLine(e), e)));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(notActive());
        }
        return result;
    }

    @Override
    public StoreTransaction newTransaction() {
        return new BdbTransaction(this::commit);
    }

    private CompletableFuture<Void> commit(ChangeSet changes) {
        MasterSession current = servingSession();
        if (current == null) {
            return CompletableFuture.failedFuture(notActive());
        }
        if (!changes.removalOnly() && headroom.refusesNewData()) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED,
                    headroom.refusal()));
        }
        return current.commit(changes);
    }

    @Override
    public CompletableFuture<byte[]> loadContent(long messageId) {
        return loadContent(null, messageId);
    }

    @Override
    public CompletableFuture<byte[]> loadContent(UUID holder, long messageId) {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        try {
            reader.execute(() -> readContent(holder, messageId, result));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(notActive());
        }
        return result;
    }

    @Override
    public CompletableFuture<List<StoredEntry>> readMessages(long[] ids) {
        return readMessages(null, ids);
    }

    @Override
    public CompletableFuture<List<StoredEntry>> readMessages(UUID holder, long[] ids) {
        CompletableFuture<List<StoredEntry>> result = new CompletableFuture<>();
        try {
            reader.execute(() -> {
                MasterSession current = machine.session();
                if (current == null) {
                    result.completeExceptionally(notActive());
                    return;
                }
                try {
                    result.complete(current.databases().readMessages(holder, ids));
                } catch (RuntimeException e) {
                    result.completeExceptionally(ReplicationFailures.classify(e, settings.nodeName())
                            .map(ReplicationFailures.Verdict::error)
                            .orElseGet(() -> new BrokerException(ErrorKind.INTERNAL_ERROR, name + ": cannot read "
                                    + ids.length + " messages: " + ReplicationFailures.firstLine(e), e)));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(notActive());
        }
        return result;
    }

    @Override
    public boolean readsMessagesById() {
        return true;
    }

    private void readContent(UUID holder, long messageId, CompletableFuture<byte[]> result) {
        MasterSession current = machine.session();
        if (current == null) {
            result.completeExceptionally(notActive());
            return;
        }
        try {
            Optional<byte[]> content = current.databases().readContent(holder, messageId);
            if (content.isPresent()) {
                result.complete(content.get());
            } else {
                result.completeExceptionally(new BrokerException(ErrorKind.NOT_FOUND,
                        name + ": message " + messageId + " is not in the store"));
            }
        } catch (RuntimeException e) {
            result.completeExceptionally(ReplicationFailures.classify(e, settings.nodeName())
                    .map(ReplicationFailures.Verdict::error)
                    .orElseGet(() -> new BrokerException(ErrorKind.INTERNAL_ERROR, name + ": cannot read message "
                            + messageId + ": " + ReplicationFailures.firstLine(e), e)));
        }
    }

    @Override
    public long nextMessageId() {
        if (servingSession() == null) {
            throw notActive();
        }
        return nextMessageId.getAndIncrement();
    }

    @Override
    public StoreStatus status() {
        NodeRole state = machine.role();
        if (closeRequested.get()) {
            return new StoreStatus("CLOSED", false, name + ": closed");
        }
        Optional<String> failure = machine.failure();
        if (failure.isPresent()) {
            return new StoreStatus("DETACHED", false, name + ": failed: " + failure.get());
        }
        MasterSession current = machine.session();
        boolean serving = machine.serving();
        boolean writable = current != null && serving && !current.diskFull();
        String role = switch (state) {
            case MASTER, REPLICA, UNKNOWN, DETACHED, FAILED -> state.reported();
            case OPENING, RESTARTING, CLOSED -> NodeRole.UNKNOWN.name();
        };
        StringBuilder description = new StringBuilder(name).append(": ").append(state.reported());
        if (state == NodeRole.MASTER) {
            description.append(isDesignatedPrimary() ? " (designated primary)" : "")
                    .append(current != null && !serving ? ", not serving: no majority acknowledges it" : "")
                    .append(", replicas connected: ").append(group.replicaLags().keySet());
            if (current != null && current.diskFull()) {
                description.append(", disk full at ").append(settings.storePath())
                        .append(": commits fail until disk space is freed or maxDisk is raised");
            }
        } else {
            machine.masterName().ifPresent(master -> description.append(", master ").append(master));
            machine.masterClientAddress().ifPresent(address -> description.append(" (clients: ")
                    .append(address).append(')'));
        }
        description.append(", durability ").append(durability()).append(coalescingSync() ? " with coalescing sync"
                : "");
        return new StoreStatus(role, writable, description.toString());
    }

    /**
     * Closes the store: the session (pending commits fail with NOT_ACTIVE) and the environment. Blocks until the
     * environment is closed, unless called from one of the store's own threads. Does not call the role listener
     * (the virtual host is the one closing). Idempotent.
     */
    @Override
    public void close() {
        if (!closeRequested.compareAndSet(false, true)) {
            return;
        }
        machine.closing();
        facade.abandonOpening();
        Thread current = Thread.currentThread();
        MasterSession currentSession = machine.session();
        boolean ownThread = machine.runsOn(current) || current == readerThread
                || (currentSession != null && currentSession.runsOn(current));
        if (ownThread) {
            NamedThreadFactory.daemonThread("ha-close-" + context.virtualHostName()).newThread(this::closeNow)
                    .start();
            return;
        }
        closeNow();
    }

    private void closeNow() {
        headroom.stop();
        machine.close();
        facade.release();
        reader.shutdown();
        context.operationalLog().log(LogCode.MST_1003, name);
        if (rehearsalGroup != null) {
            rehearsalGroup.closeReplica();
        }
    }

    private MasterSession requireSession() {
        MasterSession current = servingSession();
        if (current == null) {
            throw notActive();
        }
        return current;
    }

    /** The master session while the virtual host is told it is active; null otherwise. */
    private MasterSession servingSession() {
        MasterSession current = machine.session();
        return current != null && machine.serving() ? current : null;
    }

    private BrokerException notActive() {
        return new BrokerException(ErrorKind.NOT_ACTIVE, name + " is not the master (" + machine.role().reported()
                + machine.masterName().map(master -> ", master is " + master).orElse("") + ")");
    }

    // ---- management (spec 1.6.8); the JMX layer maps these one to one ----

    /** The network configuration of this node's replication connections (for DbPing and group administration). */
    ReplicationNetworkConfig networkConfig() {
        return facade.networkConfig();
    }

    public String groupName() {
        return settings.groupName();
    }

    public String nodeName() {
        return settings.nodeName();
    }

    public String nodeHostPort() {
        return settings.nodeHostPort();
    }

    public String helperHostPort() {
        return settings.helperHostPort();
    }

    /** JE's state of this node: MASTER, REPLICA, UNKNOWN, DETACHED (or OPENING, RESTARTING, CLOSED). */
    public String nodeState() {
        return machine.role().reported();
    }

    /** The durability triplet, e.g. {@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY}. */
    public String durability() {
        return ReplicatedStoreSettings.format(settings.durability());
    }

    public boolean coalescingSync() {
        return settings.coalescingSync();
    }

    /** The live designated-primary flag (as JE has it; configured, then changed at run time). */
    public boolean isDesignatedPrimary() {
        return group.isDesignatedPrimary();
    }

    /** Sets the designated-primary flag (two-node groups); completes once JE applied it. */
    public CompletableFuture<Void> setDesignatedPrimary(boolean designatedPrimary) {
        return machine.designate(designatedPrimary);
    }

    /** Sets this node's election priority ({@code je.rep.node.priority}; 0 = never master). */
    public CompletableFuture<Void> setNodePriority(int priority) {
        return group.setNodePriority(priority);
    }

    /** The group's members as this node knows them. */
    public List<GroupMember> groupMembers() {
        return group.members();
    }

    /** On the master: how far each connected replica is behind. */
    public SortedMap<String, ReplicaLag> replicaLags() {
        return group.replicaLags();
    }

    /** The master's name, when one is known. */
    public Optional<String> masterName() {
        return machine.masterName();
    }

    /** Removes a stopped node from the group. */
    public CompletableFuture<Void> removeNodeFromGroup(String nodeName) {
        return group.removeNodeFromGroup(nodeName);
    }

    /** Changes the replication address of a stopped node. */
    public CompletableFuture<Void> updateAddress(String nodeName, String host, int port) {
        return group.updateAddress(nodeName, host, port);
    }

    /** Moves the master role to {@code nodeName}; completes with the new master's name. */
    public CompletableFuture<String> transferMaster(String nodeName, int timeoutSeconds) {
        return group.transferMaster(nodeName, timeoutSeconds);
    }

    /** The commit pipeline's counters while master. */
    public Optional<CommitterStats> committerStats() {
        MasterSession current = machine.session();
        return current == null ? Optional.empty() : Optional.of(current.committerStats());
    }

    /** JE's disk figures for this node's store; empty while the environment is not open. Not for hot paths. */
    public Optional<JeLogFigures> logFigures() {
        try {
            return facade.environment().filter(ReplicatedEnvironment::isValid)
                    .map(env -> JeLogFigures.of(env.getStats(new com.sleepycat.je.StatsConfig())));
        } catch (RuntimeException e) {
            return Optional.empty(); // being closed or replaced: the next reading tries again
        }
    }

    /** The warm-up's scratch replica beside this master, when this store is the warm-up's. */
    Optional<ReplicatedMessageStore> rehearsalReplica() {
        return Optional.ofNullable(rehearsalGroup).map(RehearsalGroup::replica);
    }

    /**
     * The JE environment while open, for this module's tools (a hot backup runs JE's {@code DbBackup} on it) and
     * tests; never for the broker. It may be replaced (restart) or closed at any time: check it is valid.
     */
    public Optional<ReplicatedEnvironment> environment() {
        return facade.environment();
    }

    // ---- what the store offers management (see MessageStore) ----

    @Override
    public Optional<StoreFigureSource> figures() {
        return Optional.of(new JeStoreFigures(this::logFigures, this::committerStats));
    }

    @Override
    public Optional<ReplicationControl> replication() {
        return Optional.of(new ReplicatedStoreControl(this));
    }

    @Override
    public Optional<HotBackup> hotBackup() {
        return Optional.of(new ReplicatedStoreBackup(this));
    }

    @Override
    public String toString() {
        return name;
    }
}
