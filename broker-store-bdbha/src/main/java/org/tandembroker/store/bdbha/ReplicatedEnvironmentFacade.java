package org.tandembroker.store.bdbha;

import com.sleepycat.je.Durability;
import com.sleepycat.je.DbInternal;
import com.sleepycat.je.EnvironmentFailureException;
import com.sleepycat.je.EnvironmentLockedException;
import com.sleepycat.je.StatsConfig;
import com.sleepycat.je.dbi.EnvironmentImpl;
import com.sleepycat.je.rep.InsufficientLogException;
import com.sleepycat.je.rep.NetworkRestore;
import com.sleepycat.je.rep.NetworkRestoreConfig;
import com.sleepycat.je.rep.NodeType;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import com.sleepycat.je.rep.ReplicatedEnvironmentStats;
import com.sleepycat.je.rep.ReplicationConfig;
import com.sleepycat.je.rep.ReplicationGroup;
import com.sleepycat.je.rep.ReplicationMutableConfig;
import com.sleepycat.je.rep.ReplicationNode;
import com.sleepycat.je.rep.RollbackException;
import com.sleepycat.je.rep.RollbackProhibitedException;
import com.sleepycat.je.rep.StateChangeEvent;
import com.sleepycat.je.rep.impl.networkRestore.NetworkBackupStats;
import com.sleepycat.je.rep.util.DbPing;
import com.sleepycat.je.rep.util.ReplicationGroupAdmin;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;

/**
 * Owns this node's JE {@link ReplicatedEnvironment}: opening (with network restore when JE asks for it),
 * restarting, closing, JE's state changes, mutable configuration (designated primary, priority) and group
 * administration. Nothing outside this class and {@link MasterSession} touches JE's replication API; the store
 * only hears "master" ({@link RoleHandler#becameMaster}) and "not master" ({@link RoleHandler#becamePassive}).
 *
 * <p><b>Threads.</b> Everything that changes the environment runs on one thread, {@code ha-<vhost>}, which owns
 * every field that is not volatile. JE's {@code StateChangeListener}, the heartbeat and the committers only hand
 * work to it (JE must not be blocked or re-entered inside its listener). The environment is created on this
 * thread too, because JE renames the thread that creates it (the name is restored afterwards). Methods that only
 * read ({@link #members()}, {@link #replicaLags()}, the getters) run on the caller's thread against the
 * {@code volatile} environment and return empty results while it is being replaced. The facade thread blocks
 * while JE opens (at most {@code je.rep.envUnknownStateTimeout} without a quorum, {@code je.rep.envSetupTimeout}
 * otherwise), restores from the network, or waits for the virtual host to passivate.
 */
public final class ReplicatedEnvironmentFacade implements AutoCloseable {
    static {
        // JE re-validates every mutable property, helper hosts included, whenever one changes (a designation,
        // a priority): with name resolution, a helper whose host name no longer resolves (the failed partner of a
        // pair, in a container or a cloud) makes the designation itself fail. JE resolves helpers when it
        // connects anyway; the store checks their host:port form at start-up.
        if (System.getProperty("je.rep.skipHelperHostResolution") == null) {
            System.setProperty("je.rep.skipHelperHostResolution", "true");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedEnvironmentFacade.class);

    /** Attempts to open the environment before the node gives up (each may include a network restore). */
    static final int OPEN_ATTEMPTS = 5;
    private static final long OPEN_RETRY_DELAY_MILLIS = 2000;
    private static final int LOOKUP_ATTEMPTS = 10;
    private static final int LOOKUP_TIMEOUT_MILLIS = 2000;
    private static final long LOOKUP_RETRY_DELAY_MILLIS = 1000;
    private static final long RESTORE_PROGRESS_MILLIS = 10_000;

    /** How the store reacts to the node's role; called on the facade thread, one call at a time. */
    interface RoleHandler {
        /**
         * JE made this node master: open what writes (the store tells the virtual host once a majority has
         * acknowledged this master). Throws JE's exception when the node cannot write after all.
         */
        void becameMaster(ReplicatedEnvironment environment);

        /**
         * This node may not write: tell the virtual host (waiting until it has passivated, so that every
         * transaction ended) and close what writes. Called again when the master's client address is learnt.
         */
        void becamePassive(Optional<String> masterClientAddress, String reason);
    }

    private final ReplicatedStoreSettings settings;
    private final String clientAddress;
    private final OperationalLog operationalLog;
    private final RoleHandler handler;
    private final ScheduledExecutorService executor;
    private volatile Thread facadeThread;

    private volatile ReplicatedEnvironment environment;
    private volatile String nodeState = "OPENING";
    private volatile String masterName;
    private volatile String masterClientAddress;
    private volatile boolean designatedPrimary;
    private volatile String failure;
    private volatile boolean closing;
    /** Facade thread: changes with every environment and every state event, so that stale work is dropped. */
    private long generation;
    private boolean master;
    private boolean warnedDesignationIgnored;
    private boolean noQuorumLogged;

    ReplicatedEnvironmentFacade(ReplicatedStoreSettings settings, String clientAddress,
                                OperationalLog operationalLog, RoleHandler handler) {
        this.settings = settings;
        this.clientAddress = clientAddress;
        this.operationalLog = operationalLog;
        this.handler = handler;
        this.designatedPrimary = settings.designatedPrimary();
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "ha-" + settings.virtualHostName());
            thread.setDaemon(true);
            facadeThread = thread;
            return thread;
        });
        pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        pool.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        this.executor = pool;
    }

    /** Opens the environment on the facade thread; the role follows through the handler. */
    void start() {
        onFacadeThread(() -> open(1));
    }

    // ---- opening, restarting, closing ----

    private void open(int attempt) {
        if (closing) {
            return;
        }
        ReplicatedEnvironment env;
        Thread self = Thread.currentThread();
        String threadName = self.getName();
        try {
            Path path = settings.storePath();
            Files.createDirectories(path);
            if (Files.exists(path.resolve("je.properties"))) {
                LOG.warn("Node {}: ignoring {}: the store's JE parameters come only from <envConfig> and "
                        + "<repConfig> in {}", settings.nodeName(), path.resolve("je.properties"),
                        settings.sourceFile());
            }
            ReplicationConfig repConfig = settings.replicationConfig();
            repConfig.setDesignatedPrimary(designatedPrimary);
            env = new ReplicatedEnvironment(path.toFile(), repConfig, settings.environmentConfig());
        } catch (InsufficientLogException e) {
            self.setName(threadName);
            restoreFromNetwork(e, attempt);
            return;
        } catch (RollbackProhibitedException e) {
            self.setName(threadName);
            fail("node " + settings.nodeName() + " would have to roll back more acknowledged transactions than "
                    + "je.rep.txnRollbackLimit allows (it committed alone, e.g. as designated primary during a "
                    + "partition, what the group's master never received: a split brain); an operator must choose: "
                    + "to discard this node's diverged transactions stop the broker, run java -cp 'lib/*' "
                    + "com.sleepycat.je.util.DbTruncateLog -h " + settings.storePath() + " -f 0x"
                    + Long.toHexString(e.getTruncationFileNumber()) + " -o 0x"
                    + Long.toHexString(e.getTruncationFileOffset()) + " and start it again (or raise "
                    + "je.rep.txnRollbackLimit in <repConfig>); see docs/ha.md, split brain");
            return;
        } catch (EnvironmentLockedException e) {
            self.setName(threadName);
            fail("the store directory " + settings.storePath() + " is in use by another process or store: "
                    + ReplicationFailures.firstLine(e));
            return;
        } catch (IOException | RuntimeException e) {
            self.setName(threadName);
            String reason = openFailureReason(e);
            if (isConflictingDesignation(e)) {
                fail(reason);
                return;
            }
            if (attempt >= OPEN_ATTEMPTS) {
                fail("cannot open the replicated environment after " + attempt + " attempts: " + reason);
                return;
            }
            LOG.warn("Node {}: opening the replicated environment failed (attempt {} of {}), retrying: {}",
                    settings.nodeName(), attempt, OPEN_ATTEMPTS, reason);
            schedule(() -> open(attempt + 1), OPEN_RETRY_DELAY_MILLIS * attempt);
            return;
        }
        self.setName(threadName);
        logRollbackDuringOpen(env);
        generation++;
        environment = env;
        failure = null;
        if (clientAddress != null && !clientAddress.isBlank()) { // JE refuses an empty app state
            byte[] appState = clientAddress.getBytes(StandardCharsets.UTF_8);
            env.registerAppStateMonitor(() -> appState);
        }
        // JE calls the listener at once with the current state, then on every change, on its own threads.
        env.setStateChangeListener(event -> onFacadeThread(() -> stateChanged(env, event)));
    }

    private void restoreFromNetwork(InsufficientLogException e, int attempt) {
        List<String> providers = e.getLogProviders().stream().map(ReplicationNode::getName)
                .filter(name -> !name.equals(settings.nodeName())).sorted().toList();
        operationalLog.log(LogCode.HA_1006, settings.nodeName(), "started: this node lacks log that the group "
                + "no longer keeps (a new or long-absent node); copying log files from one of " + providers);
        NetworkRestore restore = new NetworkRestore();
        ScheduledExecutorService progress = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "ha-restore-progress-" + settings.virtualHostName());
            thread.setDaemon(true);
            return thread;
        });
        progress.scheduleWithFixedDelay(() -> {
            NetworkBackupStats stats = restore.getNetworkBackupStats();
            if (stats != null) {
                operationalLog.log(LogCode.HA_1006, settings.nodeName(), "in progress: " + stats.getFetchCount()
                        + " of " + stats.getBackupFileCount() + " files, " + stats.getTransferredBytes() + " of "
                        + stats.getExpectedBytes() + " bytes");
            }
        }, RESTORE_PROGRESS_MILLIS, RESTORE_PROGRESS_MILLIS, TimeUnit.MILLISECONDS);
        try {
            restore.execute(e, new NetworkRestoreConfig().setRetainLogFiles(false));
            NetworkBackupStats stats = restore.getNetworkBackupStats();
            operationalLog.log(LogCode.HA_1006, settings.nodeName(), "complete: copied "
                    + (stats == null ? "?" : stats.getFetchCount() + " files, " + stats.getTransferredBytes()
                    + " bytes") + " from " + restore.getLogProvider().getName() + "; opening the environment");
        } catch (RuntimeException restoreFailure) {
            operationalLog.log(LogCode.HA_1006, settings.nodeName(), "failed: "
                    + ReplicationFailures.firstLine(restoreFailure));
            if (attempt >= OPEN_ATTEMPTS) {
                fail("network restore failed " + attempt + " times: " + ReplicationFailures.firstLine(restoreFailure));
                return;
            }
            schedule(() -> open(attempt + 1), OPEN_RETRY_DELAY_MILLIS * attempt);
            return;
        } finally {
            progress.shutdownNow();
        }
        open(attempt + 1);
    }

    /**
     * Restarts the environment (JE requires it): the virtual host passivates first (all transactions end), then
     * the environment closes and opens again, with bounded retries.
     */
    private void restart(ReplicatedEnvironment env, String reason) {
        if (env != environment || closing) {
            return;
        }
        generation++;
        Throwable invalidating = invalidatingException(env);
        operationalLog.log(LogCode.HA_1003, settings.nodeName(), reason);
        if (invalidating instanceof RollbackException rollback) {
            operationalLog.log(LogCode.HA_1004, settings.nodeName(), "diverged transactions discarded: those "
                    + "this node committed from transaction " + rollback.getEarliestTransactionId() + " on never "
                    + "reached the new master (" + whatARollbackDiscards() + ")");
        }
        passivate(Optional.empty(), reason);
        closeEnvironment();
        nodeState = "RESTARTING";
        open(1);
    }

    /** Stops for good: no environment, passive, with {@code reason} in the status. */
    private void fail(String reason) {
        generation++;
        failure = reason;
        nodeState = "DETACHED";
        // One line for the operator; the store's status repeats it.
        LOG.error("Node {} of group {} stopped: {}", settings.nodeName(), settings.groupName(), reason);
        passivate(Optional.empty(), "store failed: " + reason);
        closeEnvironment();
    }

    private void closeEnvironment() {
        ReplicatedEnvironment env = environment;
        environment = null;
        masterName = null;
        if (env == null) {
            return;
        }
        try {
            env.close();
        } catch (RuntimeException e) {
            // An invalid environment reports why it is invalid again; it is closed in every other respect.
            LOG.info("Node {}: closing the replicated environment reported: {}", settings.nodeName(),
                    ReplicationFailures.firstLine(e));
        }
    }

    /** Closes the environment and stops the facade thread; waits unless called on that thread. Idempotent. */
    @Override
    public void close() {
        closing = true;
        Future<?> closed;
        try {
            closed = executor.submit(this::closeNow);
        } catch (RejectedExecutionException e) {
            return;
        }
        executor.shutdown();
        if (runsOn(Thread.currentThread())) {
            return;
        }
        awaitUninterruptibly(closed);
    }

    private void closeNow() {
        generation++;
        passivate(Optional.empty(), "closing");
        closeEnvironment();
        nodeState = "CLOSED";
    }

    // ---- state changes ----

    private void stateChanged(ReplicatedEnvironment env, StateChangeEvent event) {
        if (env != environment || closing) {
            return;
        }
        generation++;
        noQuorumLogged = false;
        ReplicatedEnvironment.State state = event.getState();
        String newMaster = state.isActive() ? event.getMasterNodeName() : null;
        if (!state.name().equals(nodeState) || !java.util.Objects.equals(newMaster, masterName)) {
            operationalLog.log(LogCode.HA_1001, settings.virtualHostName(), settings.nodeName(),
                    state.name() + (state.isReplica() ? " (master " + newMaster + ")" : ""));
        }
        nodeState = state.name();
        if (!java.util.Objects.equals(newMaster, masterName)) {
            masterClientAddress = null;
        }
        masterName = newMaster;
        switch (state) {
            case MASTER -> becomeMaster(env);
            case REPLICA -> {
                Optional<String> known = Optional.ofNullable(masterClientAddress);
                passivate(known, "replica of master " + newMaster);
                if (known.isEmpty()) {
                    lookUpMasterAddress(env, generation, newMaster, 1);
                }
            }
            case UNKNOWN -> passivate(Optional.empty(), "no master known to node " + settings.nodeName()
                    + ": the group has no quorum reachable from here (waiting for an election)");
            case DETACHED -> {
                Throwable invalidating = invalidatingException(env);
                String reason = "node " + settings.nodeName() + " left the group"
                        + (invalidating == null ? "" : ": " + ReplicationFailures.firstLine(invalidating));
                restart(env, reason);
            }
        }
    }

    private void passivate(Optional<String> address, String reason) {
        master = false;
        try {
            handler.becamePassive(address, reason);
        } catch (RuntimeException e) {
            LOG.error("Node {}: passivating failed", settings.nodeName(), e);
        }
    }

    private void becomeMaster(ReplicatedEnvironment env) {
        if (master) {
            return;
        }
        warnIfDesignationIgnored(env);
        try {
            handler.becameMaster(env);
            master = true;
        } catch (RuntimeException e) {
            Optional<ReplicationFailures.Verdict> verdict = ReplicationFailures.classify(e, settings.nodeName());
            if (verdict.isEmpty()) {
                fail("cannot open the store's databases as master: " + ReplicationFailures.firstLine(e));
                return;
            }
            switch (verdict.get().action()) {
                case QUORUM_LOST -> {
                    // e.g. a new master whose replicas (or arbiter) have not connected yet: log once, keep trying
                    if (!noQuorumLogged) {
                        noQuorumLogged = true;
                        operationalLog.log(LogCode.HA_1005, settings.nodeName(), "none yet: "
                                + ReplicationFailures.firstLine(verdict.get().error()) + "; retrying");
                    }
                    passivate(Optional.empty(), "no quorum yet");
                    long retryGeneration = generation;
                    schedule(() -> {
                        if (env == environment && retryGeneration == generation) {
                            becomeMaster(env);
                        }
                    }, OPEN_RETRY_DELAY_MILLIS);
                }
                case RESTART -> restart(env, ReplicationFailures.firstLine(e));
                case NONE -> passivate(Optional.empty(), ReplicationFailures.firstLine(e));
            }
        }
    }

    /** On the facade thread: ask the master, by its JE name, for its client address (its app state). */
    private void lookUpMasterAddress(ReplicatedEnvironment env, long lookupGeneration, String master, int attempt) {
        if (env != environment || lookupGeneration != generation || closing) {
            return;
        }
        try {
            ReplicationNode node = env.getGroup().getMember(master);
            if (node != null) {
                byte[] appState = new DbPing(node, settings.groupName(), LOOKUP_TIMEOUT_MILLIS).getNodeState()
                        .getAppState();
                if (appState != null && appState.length > 0) {
                    String address = new String(appState, StandardCharsets.UTF_8);
                    masterClientAddress = address;
                    passivate(Optional.of(address), "replica of master " + master + " (clients: " + address + ")");
                    return;
                }
            }
        } catch (Exception e) {
            LOG.debug("Node {}: asking master {} for its client address failed: {}", settings.nodeName(), master,
                    e.toString());
        }
        if (attempt < LOOKUP_ATTEMPTS) {
            long next = generation;
            schedule(() -> lookUpMasterAddress(env, next, master, attempt + 1), LOOKUP_RETRY_DELAY_MILLIS);
        } else {
            LOG.info("Node {}: master {} did not tell its client address; clients are refused without a redirect",
                    settings.nodeName(), master);
        }
    }

    // ---- events from the master session (committer and heartbeat threads) ----

    /** Runs {@code work} on the facade thread (the store's role changes that follow from its master session). */
    void execute(Runnable work) {
        onFacadeThread(work);
    }

    /** JE invalidated the environment (a {@code RestartRequiredException} or another environment failure). */
    void restartRequired(String reason) {
        ReplicatedEnvironment env = environment;
        onFacadeThread(() -> restart(env, reason));
    }

    // ---- mutable configuration and group administration ----

    /**
     * Sets the designated-primary flag at run time (two-node groups; spec 1.6.3): a replica whose master is gone
     * becomes master once designated; a master that is designated carries on alone. Logged with HA-1002.
     */
    CompletableFuture<Void> setDesignatedPrimary(boolean designated) {
        return call(() -> {
            designatedPrimary = designated;
            ReplicatedEnvironment env = environment;
            if (env != null && env.isValid()) {
                env.setRepMutableConfig(env.getRepMutableConfig().setDesignatedPrimary(designated));
                if (designated) {
                    warnedDesignationIgnored = false;
                    warnIfDesignationIgnored(env);
                }
            }
            operationalLog.log(LogCode.HA_1002, settings.nodeName(), designated
                    ? "true: in a two-node group this node may be master without the other node"
                    : "false: this node needs the other node of a two-node group to be master");
            return null;
        });
    }

    /** Sets {@code je.rep.node.priority} at run time (0: never master). */
    CompletableFuture<Void> setNodePriority(int priority) {
        if (priority < 0) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.INVALID_FIELD,
                    "a node priority is 0 (never master) or more: " + priority));
        }
        return call(() -> {
            ReplicatedEnvironment env = requireEnvironment();
            env.setRepMutableConfig(env.getRepMutableConfig().setNodePriority(priority));
            LOG.info("Node {}: election priority set to {}", settings.nodeName(), priority);
            return null;
        });
    }

    /** Removes a node (not alive, not the master) from the group's membership. */
    CompletableFuture<Void> removeNodeFromGroup(String nodeName) {
        return call(() -> {
            groupAdmin().removeMember(nodeName);
            LOG.info("Node {}: removed node {} from group {}", settings.nodeName(), nodeName, settings.groupName());
            return null;
        });
    }

    /** Changes the address of a node that is not running (spec 1.6.8). */
    CompletableFuture<Void> updateAddress(String nodeName, String host, int port) {
        return call(() -> {
            groupAdmin().updateAddress(nodeName, host, port);
            LOG.info("Node {}: node {} of group {} now at {}:{}", settings.nodeName(), nodeName,
                    settings.groupName(), host, port);
            return null;
        });
    }

    /** Moves the master role to {@code nodeName} once it has caught up; completes with the new master's name. */
    CompletableFuture<String> transferMaster(String nodeName, int timeoutSeconds) {
        return call(() -> groupAdmin().transferMaster(Set.of(nodeName), timeoutSeconds, TimeUnit.SECONDS, false));
    }

    private ReplicationGroupAdmin groupAdmin() {
        Set<InetSocketAddress> helpers = new HashSet<>();
        ReplicatedEnvironment env = environment;
        if (env != null && env.isValid()) {
            env.getGroup().getElectableNodes().forEach(node -> helpers.add(node.getSocketAddress()));
        }
        for (String helper : settings.helperHostPorts()) {
            int colon = helper.lastIndexOf(':');
            helpers.add(new InetSocketAddress(helper.substring(0, colon), Integer.parseInt(helper.substring(colon + 1))));
        }
        return new ReplicationGroupAdmin(settings.groupName(), helpers);
    }

    private ReplicatedEnvironment requireEnvironment() {
        ReplicatedEnvironment env = environment;
        if (env == null || !env.isValid()) {
            throw new BrokerException(ErrorKind.NOT_ACTIVE, "node " + settings.nodeName()
                    + " has no open replicated environment (" + nodeState + ")");
        }
        return env;
    }

    private void warnIfDesignationIgnored(ReplicatedEnvironment env) {
        if (!designatedPrimary || warnedDesignationIgnored) {
            return;
        }
        try {
            int electable = env.getGroup().getElectableNodes().size();
            if (electable > 2) {
                warnedDesignationIgnored = true;
                LOG.warn("Node {}: designatedPrimary is ignored: group {} has {} electable nodes and elects its master "
                        + "by majority (it only applies to two-node groups)", settings.nodeName(),
                        settings.groupName(), electable);
            }
        } catch (RuntimeException e) {
            // the group is unreadable while the environment changes; the next designation or mastership warns
        }
    }

    // ---- what management and status read (any thread) ----

    String nodeState() {
        return nodeState;
    }

    Optional<String> masterName() {
        return Optional.ofNullable(masterName);
    }

    Optional<String> masterClientAddress() {
        return Optional.ofNullable(masterClientAddress);
    }

    boolean isDesignatedPrimary() {
        ReplicatedEnvironment env = environment;
        try {
            if (env != null && env.isValid()) {
                return Boolean.parseBoolean(
                        env.getRepMutableConfig().getConfigParam(ReplicationMutableConfig.DESIGNATED_PRIMARY));
            }
        } catch (RuntimeException e) {
            // being replaced: fall back to the last value set
        }
        return designatedPrimary;
    }

    Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /** The group's members as this node knows them, sorted by name; empty while the environment is not open. */
    List<GroupMember> members() {
        ReplicatedEnvironment env = environment;
        if (env == null) {
            return List.of();
        }
        try {
            ReplicationGroup group = env.getGroup();
            String currentMaster = masterName;
            Set<String> connectedReplicas = "MASTER".equals(nodeState) ? replicaLags().keySet() : Set.of();
            List<GroupMember> result = new ArrayList<>();
            for (ReplicationNode node : group.getNodes()) {
                Optional<String> state;
                if (node.getName().equals(settings.nodeName())) {
                    state = Optional.of(nodeState);
                } else if (node.getName().equals(currentMaster)) {
                    state = Optional.of("MASTER");
                } else if (connectedReplicas.contains(node.getName())) {
                    state = Optional.of(node.getType() == NodeType.ARBITER ? "ARBITER" : "REPLICA");
                } else {
                    state = Optional.empty();
                }
                result.add(new GroupMember(node.getName(), node.getHostName() + ":" + node.getPort(),
                        node.getType().name(), state));
            }
            result.sort(Comparator.comparing(GroupMember::name));
            return List.copyOf(result);
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** On the master: each connected replica's lag; empty elsewhere. */
    SortedMap<String, ReplicaLag> replicaLags() {
        ReplicatedEnvironment env = environment;
        SortedMap<String, ReplicaLag> result = new TreeMap<>();
        if (env == null || !"MASTER".equals(nodeState)) {
            return result;
        }
        try {
            ReplicatedEnvironmentStats stats = env.getRepStats(new StatsConfig());
            if (stats == null) {
                return result;
            }
            Map<String, Long> vlsnLags = stats.getReplicaVLSNLagMap();
            Map<String, Long> delays = stats.getReplicaDelayMap();
            Set<String> names = new HashSet<>();
            if (vlsnLags != null) {
                names.addAll(vlsnLags.keySet());
            }
            if (delays != null) {
                names.addAll(delays.keySet());
            }
            for (String name : names) {
                result.put(name, new ReplicaLag(name,
                        vlsnLags == null ? -1 : vlsnLags.getOrDefault(name, -1L),
                        delays == null ? -1 : delays.getOrDefault(name, -1L)));
            }
        } catch (RuntimeException e) {
            result.clear();
        }
        return result;
    }

    /** True when {@code thread} is the facade thread. */
    boolean runsOn(Thread thread) {
        return thread == facadeThread;
    }

    /** For tests: the current JE environment, if open. */
    Optional<ReplicatedEnvironment> environment() {
        return Optional.ofNullable(environment);
    }

    // ---- plumbing ----

    private void onFacadeThread(Runnable work) {
        try {
            executor.execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    LOG.error("Node {}: unexpected failure on the facade thread", settings.nodeName(), e);
                }
            });
        } catch (RejectedExecutionException e) {
            // closed: nothing to do any more
        }
    }

    private void schedule(Runnable work, long delayMillis) {
        try {
            executor.schedule(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    LOG.error("Node {}: unexpected failure on the facade thread", settings.nodeName(), e);
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    private <T> CompletableFuture<T> call(Callable<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(work.call());
                } catch (BrokerException e) {
                    result.completeExceptionally(e);
                } catch (Exception e) {
                    result.completeExceptionally(new BrokerException(ErrorKind.ILLEGAL_STATE, "node "
                            + settings.nodeName() + ": " + ReplicationFailures.firstLine(e), e));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new BrokerException(ErrorKind.NOT_ACTIVE, "node " + settings.nodeName()
                    + " is closed"));
        }
        return result;
    }

    private static Throwable invalidatingException(ReplicatedEnvironment env) {
        try {
            EnvironmentImpl impl = DbInternal.getEnvironmentImpl(env);
            return impl == null ? null : impl.getInvalidatingException();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static boolean isConflictingDesignation(Throwable e) {
        return e instanceof EnvironmentFailureException
                && String.valueOf(e.getMessage()).contains("Conflicting Primary designations");
    }

    /**
     * JE handles a rollback needed while joining (a "hard recovery": this node had commits the master lacks) inside
     * the ReplicatedEnvironment constructor: it reopens and joins again, and only records it in the node's
     * statistics. Operators still need to hear about it, like a rollback at run time.
     */
    /** JE's own account ("must rollback N total commits ... transaction id=..."), on one line. */
    static String rollbackDetails(String info) {
        if (info == null || info.isBlank()) {
            return "JE gave no details";
        }
        String line = info.lines().filter(l -> l.contains("must rollback")).findFirst()
                .orElse(info.replaceAll("\\s+", " "));
        int start = line.indexOf("must rollback");
        String details = start >= 0 ? line.substring(start) : line;
        return details.length() > 400 ? details.substring(0, 400) + "..." : details;
    }

    /**
     * What the discarded transactions can have been, for the operator: with replica acknowledgements, only commits
     * no client was told succeeded, removals, or a split brain's; with replica ack NONE, accepted messages too.
     */
    private String whatARollbackDiscards() {
        if (settings.commitDurability().getReplicaAck() == Durability.ReplicaAckPolicy.NONE) {
            return "with replica ack NONE a publish is accepted before any replica has it, so these can include "
                    + "ACCEPTED MESSAGES, now lost, as well as consumers' removals (a possible redelivery): see "
                    + "docs/ha.md, durability";
        }
        return "commits whose clients were told in doubt, consumers' removals: a possible redelivery; accepted "
                + "messages only if this node ran alone as designated primary while another was designated too: "
                + "see docs/ha.md, split brain";
    }

    private void logRollbackDuringOpen(ReplicatedEnvironment env) {
        try {
            com.sleepycat.je.utilint.StatGroup nodeStats =
                    com.sleepycat.je.rep.RepInternal.getNonNullRepImpl(env).getNodeStats();
            if (nodeStats.getBoolean(com.sleepycat.je.rep.impl.RepImplStatDefinition.HARD_RECOVERY)) {
                String info = nodeStats.getString(com.sleepycat.je.rep.impl.RepImplStatDefinition.HARD_RECOVERY_INFO);
                operationalLog.log(LogCode.HA_1004, settings.nodeName(), "rolled back while rejoining the group: "
                        + "diverged transactions this node committed that the master never received were discarded ("
                        + rollbackDetails(info) + "; " + whatARollbackDiscards() + ")");
            }
        } catch (RuntimeException e) {
            LOG.debug("Node {}: could not read JE's hard-recovery statistics: {}", settings.nodeName(), e.toString());
        }
    }

    private String openFailureReason(Throwable e) {
        if (isConflictingDesignation(e)) {
            return "node " + settings.nodeName() + " and the current master are both designated primary; in a "
                    + "two-node group at most one node may have <designatedPrimary> true (the spec: both cannot be "
                    + "designated at the point of contact): set it false on this node or on the other one";
        }
        return ReplicationFailures.firstLine(e);
    }

    private static void awaitUninterruptibly(Future<?> future) {
        boolean interrupted = false;
        while (true) {
            try {
                future.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException e) {
                LOG.warn("Closing the replicated environment failed", e.getCause());
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
