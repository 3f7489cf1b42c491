package org.tandembroker.store.bdbha;

import org.tandembroker.store.bdb.JeLogFigures;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
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
import org.tandembroker.core.store.replication.ReplicationControl;
import org.tandembroker.store.bdb.BdbTransaction;
import org.tandembroker.store.bdb.ChangeSet;
import org.tandembroker.store.bdb.JeStoreFigures;
import org.tandembroker.store.bdb.StoreDatabases;
import org.tandembroker.store.bdb.StoredEntryPages;
import org.tandembroker.store.bdb.StoreReader;
import org.tandembroker.store.bdb.commit.CommitterStats;

/**
 * The replicated JE store ({@code <store type="bdb-ha">}): one node of a JE replication group. The node is active
 * while JE has elected (or an operator designated) it master <em>and</em> a majority acknowledges it (the
 * {@link QuorumHeartbeat}: a new master becomes active with its first acknowledged heartbeat, a master that loses
 * its majority passivates and becomes active again when the majority returns); passive otherwise. The virtual host
 * follows. Record layout, content chunks and removal semantics are the standalone store's ({@link StoreDatabases}).
 *
 * <p>The JE environment and everything about roles, the group and restarts lives in
 * {@link ReplicatedEnvironmentFacade}; what writes while master lives in a {@link MasterSession}. This class
 * glues them to the {@link MessageStore} contract and offers the management operations of spec 1.6.8 as plain
 * methods (designation, group membership, replica lag).
 *
 * <p><b>Threads.</b>
 * <ul>
 *   <li>{@code ha-<vhost>} (the facade thread) calls {@link StoreRoleListener}, one call at a time, and writes
 *       {@link #session} and {@link #serving}; it waits for the virtual host's passivation before closing a
 *       session, so that every transaction has ended before JE's handles close (unless the store is being closed:
 *       then the virtual host is the one closing it).</li>
 *   <li>{@code ha-committer-<vhost>-*} commit and complete commit futures; {@code ha-heartbeat-<vhost>} proves
 *       quorum (see {@link MasterSession}).</li>
 *   <li>{@code ha-reader-<vhost>} reads content for {@link #loadContent} and the pages of recovered entries and
 *       message ids ({@link StoredEntries}), one read at a time, content first ({@link StoreReader}).</li>
 *   <li>{@link #recover} runs on the caller's thread (the virtual host's), as the contract asks; it reads
 *       configuration records only.</li>
 * </ul>
 * Other threads read {@link #session} (volatile) and use it only through its thread-safe methods; a session
 * closed under them fails their operation with {@code NOT_ACTIVE}.
 */
public final class ReplicatedMessageStore implements MessageStore {
    public static final String TYPE = "bdb-ha";

    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedMessageStore.class);
    /** How long the facade waits for the virtual host to passivate before closing the session regardless. */
    private static final long PASSIVATION_WAIT_SECONDS = 120;

    private final ReplicatedStoreSettings settings;
    private final StoreContext context;
    private final String name;
    private final ReplicatedEnvironmentFacade facade;
    private final StoreReader reader;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final AtomicLong nextMessageId = new AtomicLong(1);
    /** Completed by {@link #close()}: the facade thread stops waiting for a virtual host that is closing us. */
    private final CompletableFuture<Void> closeSignal = new CompletableFuture<>();
    private volatile Thread readerThread;
    private volatile boolean closing;
    private volatile StoreRoleListener listener;
    private volatile MasterSession session;
    /** Written on the facade thread: the virtual host was told it is active (a majority acknowledged us). */
    private volatile boolean serving;
    /** Facade thread only. */
    private boolean quorumLossLogged;

    public ReplicatedMessageStore(ReplicatedStoreSettings settings, StoreContext context) {
        this.settings = settings;
        this.context = context;
        this.name = TYPE + " store of " + context.virtualHostName() + " (node " + settings.nodeName() + " of group "
                + settings.groupName() + ")";
        this.facade = new ReplicatedEnvironmentFacade(settings, context.clientAddress(), context.operationalLog(),
                new Roles());
        this.reader = new StoreReader("ha-reader-" + context.virtualHostName(), thread -> readerThread = thread);
    }

    @Override
    public void start(StoreRoleListener roleListener) {
        if (closeRequested.get() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException(name + " can be started once, and not after close");
        }
        this.listener = roleListener;
        context.operationalLog().log(LogCode.MST_1001, TYPE, context.virtualHostName(), settings.storePath());
        facade.start();
    }

    /** The facade's calls, on the facade thread. */
    private final class Roles implements ReplicatedEnvironmentFacade.RoleHandler {

        /**
         * Opens the master session and activates the virtual host at once. JE makes a node master only when a
         * majority elected it or an operator designated it, so it may serve; activating now lets recovery and the
         * clients' reconnection overlap the replicas' syncup with the new master (client commits wait for their
         * acknowledgements anyway). The quorum heartbeat then confirms the majority: when its first beat fails,
         * the host passivates again until one succeeds.
         */
        @Override
        public void becameMaster(ReplicatedEnvironment environment) {
            SessionEvents events = new SessionEvents();
            MasterSession opened = MasterSession.open(environment, settings, name, context.operationalLog(), events);
            nextMessageId.accumulateAndGet(opened.databases().highestMessageId() + 1, Math::max);
            events.owner = opened;
            session = opened;
            if (!closing && listener != null && !serving) {
                serving = true;
                tellListener(() -> listener.becameActive());
            }
        }

        @Override
        public void becamePassive(Optional<String> masterClientAddress, String reason) {
            boolean wasMaster = session != null;
            serving = false;
            if (!closing && listener != null) {
                CompletableFuture<Void> passivated = tellListener(
                        () -> listener.becamePassive(masterClientAddress, reason));
                if (wasMaster) {
                    awaitPassivation(passivated);
                }
            }
            closeSession();
        }
    }

    /**
     * What one master session reports, handed to the facade thread; reports of a session that is no longer the
     * current one are dropped there.
     */
    private final class SessionEvents implements MasterSession.NodeEvents {
        /** Set on the facade thread right after the session opened, before any report is handled there. */
        private MasterSession owner;

        @Override
        public void quorumGained() {
            facade.execute(() -> {
                if (session != owner || owner == null || closing) {
                    return;
                }
                if (quorumLossLogged) {
                    quorumLossLogged = false;
                    context.operationalLog().log(LogCode.HA_1005, settings.nodeName(),
                            "regained: a majority acknowledges this master again; serving clients");
                }
                if (!serving) {
                    serving = true;
                    tellListener(() -> listener.becameActive());
                }
            });
        }

        @Override
        public void quorumLost(String reason) {
            facade.execute(() -> {
                if (session != owner || owner == null || closing) {
                    return;
                }
                quorumLossLogged = true;
                context.operationalLog().log(LogCode.HA_1005, settings.nodeName(), "lost: " + reason
                        + "; this master does not serve clients until a majority acknowledges it again (or, in a "
                        + "two-node group, an operator designates it primary)");
                if (serving) {
                    serving = false;
                    awaitPassivation(tellListener(() -> listener.becamePassive(Optional.empty(),
                            "quorum lost: " + reason)));
                }
            });
        }

        @Override
        public void restartRequired(String reason) {
            facade.restartRequired(reason);
        }
    }

    /** On the facade thread. */
    private void closeSession() {
        MasterSession current = session;
        if (current == null) {
            return;
        }
        session = null;
        // Reads that saw the session finish first: the reader is single-threaded, so a no-op behind them suffices.
        try {
            reader.submit(() -> { }).get(1, TimeUnit.MINUTES);
        } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
            // reader closed or stuck: close regardless
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (closing) {
                current.closeHandingOver(); // still master: the broker stops (a role change or failure is not this)
            } else {
                current.close();
            }
        } catch (RuntimeException e) {
            LOG.warn("{}: closing the master session reported: {}", name, ReplicationFailures.firstLine(e));
        }
    }

    private void awaitPassivation(CompletableFuture<Void> passivated) {
        try {
            // The virtual host may be the one closing this store, on the thread that would complete the future.
            CompletableFuture.anyOf(passivated, closeSignal).get(PASSIVATION_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            LOG.warn("{}: the virtual host did not passivate within {} s; closing the store's handles anyway", name,
                    PASSIVATION_WAIT_SECONDS);
        } catch (ExecutionException e) {
            LOG.warn("{}: passivating the virtual host failed: {}", name, String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private CompletableFuture<Void> tellListener(java.util.function.Supplier<CompletableFuture<Void>> call) {
        try {
            CompletableFuture<Void> result = call.get();
            return result == null ? CompletableFuture.completedFuture(null) : result;
        } catch (RuntimeException e) {
            LOG.error("{}: the store role listener failed", name, e);
            return CompletableFuture.completedFuture(null);
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
                if (session != recovering) {
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
        MasterSession current = session;
        if (current == null || !serving) {
            return CompletableFuture.failedFuture(notActive());
        }
        return current.commit(changes);
    }

    @Override
    public CompletableFuture<byte[]> loadContent(long messageId) {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        try {
            reader.execute(() -> readContent(messageId, result));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(notActive());
        }
        return result;
    }

    private void readContent(long messageId, CompletableFuture<byte[]> result) {
        MasterSession current = session;
        if (current == null) {
            result.completeExceptionally(notActive());
            return;
        }
        try {
            Optional<byte[]> content = current.databases().readContent(messageId);
            if (content.isPresent()) {
                result.complete(content.get());
            } else {
                result.completeExceptionally(new BrokerException(ErrorKind.INTERNAL_ERROR,
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
        if (session == null || !serving) {
            throw notActive();
        }
        return nextMessageId.getAndIncrement();
    }

    @Override
    public StoreStatus status() {
        String state = facade.nodeState();
        if (closeRequested.get()) {
            return new StoreStatus("CLOSED", false, name + ": closed");
        }
        Optional<String> failure = facade.failure();
        if (failure.isPresent()) {
            return new StoreStatus("DETACHED", false, name + ": failed: " + failure.get());
        }
        MasterSession current = session;
        boolean writable = current != null && serving && !current.diskFull();
        String role = switch (state) {
            case "MASTER", "REPLICA", "UNKNOWN", "DETACHED" -> state;
            default -> "UNKNOWN"; // OPENING, RESTARTING
        };
        StringBuilder description = new StringBuilder(name).append(": ").append(state);
        if (state.equals("MASTER")) {
            description.append(isDesignatedPrimary() ? " (designated primary)" : "")
                    .append(current != null && !serving ? ", not serving: no majority acknowledges it" : "")
                    .append(", replicas connected: ").append(facade.replicaLags().keySet());
            if (current != null && current.diskFull()) {
                description.append(", disk full at ").append(settings.storePath())
                        .append(": commits fail until disk space is freed or maxDisk is raised");
            }
        } else {
            facade.masterName().ifPresent(master -> description.append(", master ").append(master));
            facade.masterClientAddress().ifPresent(address -> description.append(" (clients: ")
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
        closing = true;
        closeSignal.complete(null);
        Thread current = Thread.currentThread();
        MasterSession currentSession = session;
        boolean ownThread = facade.runsOn(current) || current == readerThread
                || (currentSession != null && currentSession.runsOn(current));
        if (ownThread) {
            Thread closer = new Thread(this::closeNow, "ha-close-" + context.virtualHostName());
            closer.setDaemon(true);
            closer.start();
            return;
        }
        closeNow();
    }

    private void closeNow() {
        facade.close();
        reader.shutdown();
        context.operationalLog().log(LogCode.MST_1003, name);
    }

    private MasterSession requireSession() {
        MasterSession current = session;
        if (current == null || !serving) {
            throw notActive();
        }
        return current;
    }

    private BrokerException notActive() {
        return new BrokerException(ErrorKind.NOT_ACTIVE, name + " is not the master (" + facade.nodeState()
                + facade.masterName().map(master -> ", master is " + master).orElse("") + ")");
    }

    // ---- management (spec 1.6.8); the JMX layer maps these one to one ----

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
        return facade.nodeState();
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
        return facade.isDesignatedPrimary();
    }

    /** Sets the designated-primary flag (two-node groups); completes once JE applied it. */
    public CompletableFuture<Void> setDesignatedPrimary(boolean designatedPrimary) {
        return facade.setDesignatedPrimary(designatedPrimary);
    }

    /** Sets this node's election priority ({@code je.rep.node.priority}; 0 = never master). */
    public CompletableFuture<Void> setNodePriority(int priority) {
        return facade.setNodePriority(priority);
    }

    /** The group's members as this node knows them. */
    public List<GroupMember> groupMembers() {
        return facade.members();
    }

    /** On the master: how far each connected replica is behind. */
    public SortedMap<String, ReplicaLag> replicaLags() {
        return facade.replicaLags();
    }

    /** The master's name, when one is known. */
    public Optional<String> masterName() {
        return facade.masterName();
    }

    /** Removes a stopped node from the group. */
    public CompletableFuture<Void> removeNodeFromGroup(String nodeName) {
        return facade.removeNodeFromGroup(nodeName);
    }

    /** Changes the replication address of a stopped node. */
    public CompletableFuture<Void> updateAddress(String nodeName, String host, int port) {
        return facade.updateAddress(nodeName, host, port);
    }

    /** Moves the master role to {@code nodeName}; completes with the new master's name. */
    public CompletableFuture<String> transferMaster(String nodeName, int timeoutSeconds) {
        return facade.transferMaster(nodeName, timeoutSeconds);
    }

    /** The commit pipeline's counters while master. */
    public Optional<CommitterStats> committerStats() {
        MasterSession current = session;
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
