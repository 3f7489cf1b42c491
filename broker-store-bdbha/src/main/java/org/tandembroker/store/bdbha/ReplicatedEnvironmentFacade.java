package org.tandembroker.store.bdbha;

import com.sleepycat.je.DbInternal;
import com.sleepycat.je.Durability;
import com.sleepycat.je.EnvironmentFailureException;
import com.sleepycat.je.EnvironmentLockedException;
import com.sleepycat.je.dbi.EnvironmentImpl;
import com.sleepycat.je.rep.InsufficientLogException;
import com.sleepycat.je.rep.NetworkRestore;
import com.sleepycat.je.rep.NetworkRestoreConfig;
import com.sleepycat.je.rep.RepInternal;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import com.sleepycat.je.rep.ReplicationConfig;
import com.sleepycat.je.rep.ReplicationNetworkConfig;
import com.sleepycat.je.rep.ReplicationNode;
import com.sleepycat.je.rep.RollbackException;
import com.sleepycat.je.rep.RollbackProhibitedException;
import com.sleepycat.je.rep.impl.RepImplStatDefinition;
import com.sleepycat.je.rep.impl.networkRestore.NetworkBackupStats;
import com.sleepycat.je.rep.util.DbPing;
import com.sleepycat.je.utilint.StatGroup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import com.sleepycat.je.rep.util.ReplicationGroupAdmin;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.exec.OwningThread;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.store.bdb.logfile.PrefilledLogFiles;
import org.tandembroker.store.bdbha.channel.ChannelRefusals;

/**
 * Owns this node's JE {@link ReplicatedEnvironment}: opening it (with a network restore when JE asks for one),
 * closing it, and turning JE's state changes into {@link NodeRole}s for {@link NodeRoleMachine}, which decides
 * what they mean. The machine restarts the environment by closing and opening it.
 *
 * <p><b>Threads.</b> Opening and closing run on the machine's {@code ha-<vhost>} thread (asserted), which is why
 * the environment is created there: JE renames the thread that creates it (the name is restored afterwards).
 * {@link #environment()} is read on any thread and is empty while the environment is being replaced.
 */
final class ReplicatedEnvironmentFacade {
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
    /** The longest wait between opens while the store's disk is full. */
    static final long DISK_FULL_RETRY_MAX_MILLIS = 30_000;
    private static final int LOOKUP_TIMEOUT_MILLIS = 2000;
    private static final long RESTORE_PROGRESS_MILLIS = 10_000;

    private final ReplicatedStoreSettings settings;
    private final NodeAddresses published;
    private final OperationalLog operationalLog;
    private final OwningThread roleThread;
    private final ChannelRefusals refusals;
    /** The role thread while it is inside JE's constructor, or null; guarded by itself. */
    private final Thread[] opening = new Thread[1];
    private volatile ReplicatedEnvironment environment;
    /** Role thread only: whether an environment has opened in this process (its port was ours then). */
    private boolean openedBefore;
    /** Role thread only: when opens began failing for a full disk (System.nanoTime), 0 when they do not. */
    private long diskFullSince;
    /** Role thread only: opens refused for a full disk in a row (the back-off grows with them). */
    private int diskFullRetries;
    /** Role thread only: whether the store directory held log files before this process first opened it. */
    private Boolean storeExistedAtStart;
    /** While an environment is open (or opening): its directory registered for prefilled log files. */
    private PrefilledLogFiles.Registration prefilledLogFiles;

    ReplicatedEnvironmentFacade(ReplicatedStoreSettings settings, NodeAddresses published,
                                OperationalLog operationalLog, OwningThread roleThread) {
        this.settings = settings;
        this.published = published;
        this.operationalLog = operationalLog;
        this.roleThread = roleThread;
        this.refusals = ChannelRefusals.register(settings.nodeName(), (peer, reason) ->
                operationalLog.log(LogCode.HA_1008, settings.nodeName(), peer, reason));
    }

    /** The network configuration of every connection of this node (TLS or plain, refusals reported as HA-1008). */
    ReplicationNetworkConfig networkConfig() {
        return settings.networkConfig(refusals.token());
    }

    /**
     * Ends an open that cannot finish: a node joining for the first time waits in JE's constructor, retrying every
     * second, until it finds a master, however long that takes (a group that refuses its certificate or its
     * channel never answers). JE sleeps between attempts, so interrupting the thread makes the open fail and lets
     * the store close. Called by the closing thread; does nothing when no open is under way.
     */
    void abandonOpening() {
        synchronized (opening) {
            if (opening[0] != null) {
                LOG.info("Node {}: closing while still joining the group: abandoning the open", settings.nodeName());
                opening[0].interrupt();
            }
        }
    }

    /** Stops reporting channel refusals: the store is closed for good. */
    void release() {
        refusals.close();
    }

    /** Opens the environment; JE's state changes (at once, then on every change) go to {@code changes}. */
    NodeEnvironment.OpenOutcome open(int attempt, boolean designatedPrimary, NodeEnvironment.StateChanges changes) {
        assert roleThread.isCurrent() : roleThread.violation();
        releasePrefilledLogFiles();
        prefilledLogFiles = PrefilledLogFiles.register(settings.storePath(), settings.prefillLogFiles(),
                settings.environmentConfig());
        NodeEnvironment.OpenOutcome outcome = openEnvironment(attempt, designatedPrimary, changes);
        if (environment == null) {
            releasePrefilledLogFiles();
        }
        return outcome;
    }

    private void releasePrefilledLogFiles() {
        PrefilledLogFiles.Registration registration = prefilledLogFiles;
        prefilledLogFiles = null;
        if (registration != null) {
            registration.close();
        }
    }

    private NodeEnvironment.OpenOutcome openEnvironment(int attempt, boolean designatedPrimary,
                                                        NodeEnvironment.StateChanges changes) {
        ReplicatedEnvironment env;
        Thread self = Thread.currentThread();
        String threadName = self.getName();
        try {
            Path path = settings.storePath();
            Files.createDirectories(path);
            if (storeExistedAtStart == null) {
                try (var files = Files.list(path)) {
                    storeExistedAtStart = files.anyMatch(file -> file.getFileName().toString().endsWith(".jdb"));
                }
            }
            if (Files.exists(path.resolve("je.properties"))) {
                LOG.warn("Node {}: ignoring {}: the store's JE parameters come only from <envConfig> and "
                        + "<repConfig> in {}", settings.nodeName(), path.resolve("je.properties"),
                        settings.sourceFile());
            }
            if (!openedBefore) {
                LOG.info("Node {}: replication channel {}", settings.nodeName(), settings.replicationTls()
                        .map(tls -> "TLS (" + String.join(",", tls.protocols()) + "; key store " + tls.keyStore()
                                + ", allowed nodes '" + tls.allowedNodes() + "')").orElse("plain TCP"));
                Optional<String> clash = replicationPortClash();
                if (clash.isPresent()) {
                    return new NodeEnvironment.OpenOutcome.Failed(clash.get());
                }
            }
            ReplicationConfig repConfig = settings.replicationConfig(refusals.token());
            repConfig.setDesignatedPrimary(designatedPrimary);
            synchronized (opening) {
                opening[0] = self;
            }
            try {
                env = new ReplicatedEnvironment(path.toFile(), repConfig,
                        prefilledLogFiles.adjusted(settings.environmentConfig()));
            } finally {
                synchronized (opening) {
                    opening[0] = null;
                    Thread.interrupted(); // an abandonOpening() that came too late must not hit the next JE call
                }
            }
        } catch (InsufficientLogException e) {
            self.setName(threadName);
            return restoreFromNetwork(e, attempt, designatedPrimary, changes);
        } catch (RollbackProhibitedException e) {
            self.setName(threadName);
            return new NodeEnvironment.OpenOutcome.Failed(OperatorMessages.rollbackProhibited(settings.nodeName(),
                    settings.storePath(), e.getTruncationFileNumber(), e.getTruncationFileOffset()));
        } catch (EnvironmentLockedException e) {
            self.setName(threadName);
            return new NodeEnvironment.OpenOutcome.Failed(OperatorMessages.storeInUse(settings.storePath(),
                    ReplicationFailures.firstLine(e)));
        } catch (IOException | RuntimeException e) {
            self.setName(threadName);
            if (isConflictingDesignation(e)) {
                Matcher feeder = CONFLICTING_FEEDER.matcher(String.valueOf(e.getMessage()));
                return new NodeEnvironment.OpenOutcome.MasterAlsoDesignated(
                        feeder.find() ? Optional.of(feeder.group(1)) : Optional.empty(),
                        Boolean.TRUE.equals(storeExistedAtStart) || openedBefore);
            }
            String reason = ReplicationFailures.firstLine(e);
            if (ReplicationFailures.isDiskFull(e)) {
                return retryUntilSpaceReturns(reason);
            }
            if (attempt >= OPEN_ATTEMPTS) {
                return new NodeEnvironment.OpenOutcome.Failed("cannot open the replicated environment after "
                        + attempt + " attempts: " + reason);
            }
            LOG.warn("Node {}: opening the replicated environment failed (attempt {} of {}), retrying: {}",
                    settings.nodeName(), attempt, OPEN_ATTEMPTS, reason);
            return new NodeEnvironment.OpenOutcome.Retry(OPEN_RETRY_DELAY_MILLIS * attempt);
        }
        self.setName(threadName);
        if (diskFullSince != 0) {
            operationalLog.log(LogCode.MST_1009, "node " + settings.nodeName() + " reopened its replicated "
                    + "environment after the disk filled (" + Duration.ofNanos(System.nanoTime() - diskFullSince)
                    .toSeconds() + " s)");
            diskFullSince = 0;
        }
        diskFullRetries = 0;
        logRollbackDuringOpen(env);
        PromptReplayExit.install(env, settings.nodeName());
        environment = env;
        openedBefore = true;
        published.encode().ifPresent(appState -> env.registerAppStateMonitor(() -> appState));
        // JE calls the listener at once with the current state, then on every change, on its own threads.
        PrefilledLogFiles.Registration logFiles = prefilledLogFiles;
        logFiles.opened(env);
        boolean replicasFsync = settings.commitDurability().getReplicaSync() == Durability.SyncPolicy.SYNC;
        env.setStateChangeListener(event -> {
            ReplicatedEnvironment.State state = event.getState();
            logFiles.fsyncsCommits(state.isMaster() || replicasFsync);
            changes.stateChanged(NodeRole.of(state),
                    state.isActive() ? Optional.of(event.getMasterNodeName()) : Optional.empty());
        });
        return new NodeEnvironment.OpenOutcome.Opened();
    }

    /**
     * The store's disk is full: unlike other failures this one does not count against {@link #OPEN_ATTEMPTS} (the
     * node would stay down after the operator frees space); the open is tried again with a back-off of up to
     * {@link #DISK_FULL_RETRY_MAX_MILLIS} for as long as it takes. Logged once per outage (MST-1008), and MST-1009
     * when the environment opens again.
     */
    private NodeEnvironment.OpenOutcome retryUntilSpaceReturns(String reason) {
        diskFullRetries++;
        long delay = Math.min(DISK_FULL_RETRY_MAX_MILLIS, OPEN_RETRY_DELAY_MILLIS * diskFullRetries);
        if (diskFullSince == 0) {
            diskFullSince = System.nanoTime();
            operationalLog.log(LogCode.MST_1008, "node " + settings.nodeName() + " cannot open its replicated "
                    + "environment: the disk of " + settings.storePath() + " is full (" + reason + "); free space"
                    + " there: the node tries again every " + DISK_FULL_RETRY_MAX_MILLIS / 1000 + " s at most and "
                    + "rejoins the group by itself");
        } else {
            LOG.warn("Node {}: the store's disk is still full (retry {}), trying again in {} ms: {}",
                    settings.nodeName(), diskFullRetries, delay, reason);
        }
        return new NodeEnvironment.OpenOutcome.WaitForSpace(delay);
    }

    private NodeEnvironment.OpenOutcome restoreFromNetwork(InsufficientLogException e, int attempt,
                                                           boolean designatedPrimary,
                                                           NodeEnvironment.StateChanges changes) {
        List<String> providers = e.getLogProviders().stream().map(ReplicationNode::getName)
                .filter(name -> !name.equals(settings.nodeName())).sorted().toList();
        operationalLog.log(LogCode.HA_1006, settings.nodeName(), OperatorMessages.restoreStarted(providers));
        NetworkRestore restore = new NetworkRestore();
        ScheduledExecutorService progress = new ScheduledThreadPoolExecutor(1,
                NamedThreadFactory.daemonThread("ha-restore-progress-" + settings.virtualHostName()));
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
            if (ReplicationFailures.isDiskFull(restoreFailure)) {
                return retryUntilSpaceReturns(ReplicationFailures.firstLine(restoreFailure));
            }
            if (attempt >= OPEN_ATTEMPTS) {
                return new NodeEnvironment.OpenOutcome.Failed("network restore failed " + attempt + " times: "
                        + ReplicationFailures.firstLine(restoreFailure));
            }
            return new NodeEnvironment.OpenOutcome.Retry(OPEN_RETRY_DELAY_MILLIS * attempt);
        } finally {
            progress.shutdownNow();
        }
        return open(attempt + 1, designatedPrimary, changes);
    }

    /**
     * Before the first open: whether this node's {@code nodeHostPort} can be bound here. JE would retry a port it
     * cannot bind for half a minute and report an unexpected fatal error without naming it; when the port belongs
     * to another member of the group (a copied virtual host file whose nodeHostPort was not changed), the group's
     * helpers say which.
     */
    private Optional<String> replicationPortClash() {
        String hostPort = settings.nodeHostPort();
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon);
        int port = Integer.parseInt(hostPort.substring(colon + 1).trim());
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(host, port));
            return Optional.empty();
        } catch (IOException e) {
            String where = "<nodeHostPort> " + hostPort + " of node " + settings.nodeName() + " in "
                    + settings.sourceFile();
            Optional<String> owner = memberAt(host, port).filter(member -> !member.equals(settings.nodeName()));
            if (owner.isPresent()) {
                return Optional.of(where + " belongs to member " + owner.get() + " of group " + settings.groupName()
                        + ": give node " + settings.nodeName() + " an address of its own");
            }
            return Optional.of(where + " cannot be bound: " + e.getMessage() + " (another process uses port "
                    + port + ", or " + host + " is not an address of this machine)");
        }
    }

    /** The member of the group whose replication address is {@code host:port}, as the helpers know the group. */
    private Optional<String> memberAt(String host, int port) {
        Set<InetSocketAddress> helpers = new HashSet<>();
        for (String helper : settings.helperHostPorts()) {
            int colon = helper.lastIndexOf(':');
            helpers.add(new InetSocketAddress(helper.substring(0, colon),
                    Integer.parseInt(helper.substring(colon + 1))));
        }
        try {
            InetSocketAddress wanted = new InetSocketAddress(host, port);
            for (ReplicationNode node : new ReplicationGroupAdmin(settings.groupName(), helpers, networkConfig())
                    .getGroup().getNodes()) {
                InetSocketAddress address = node.getSocketAddress();
                if (address.getPort() == port && (node.getHostName().equalsIgnoreCase(host)
                        || address.equals(wanted))) {
                    return Optional.of(node.getName());
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("Node {}: could not ask the group who uses {}:{}: {}", settings.nodeName(), host, port,
                    e.toString());
        }
        return Optional.empty();
    }

    /** Why JE invalidated the open environment, if it did (a rollback says from which transaction). */
    Optional<NodeEnvironment.Invalidation> invalidation() {
        ReplicatedEnvironment env = environment;
        if (env == null) {
            return Optional.empty();
        }
        Throwable invalidating;
        try {
            EnvironmentImpl impl = DbInternal.getEnvironmentImpl(env);
            invalidating = impl == null ? null : impl.getInvalidatingException();
        } catch (RuntimeException e) {
            invalidating = null;
        }
        if (invalidating == null) {
            return Optional.empty();
        }
        return Optional.of(new NodeEnvironment.Invalidation(ReplicationFailures.firstLine(invalidating),
                invalidating instanceof RollbackException rollback
                        ? OptionalLong.of(rollback.getEarliestTransactionId()) : OptionalLong.empty()));
    }

    /** Closes the environment, if one is open. */
    void close() {
        assert roleThread.isCurrent() : roleThread.violation();
        ReplicatedEnvironment env = environment;
        environment = null;
        if (env == null) {
            return;
        }
        try {
            env.close();
        } catch (RuntimeException e) {
            // An invalid environment reports why it is invalid again; it is closed in every other respect.
            LOG.info("Node {}: closing the replicated environment reported: {}", settings.nodeName(),
                    ReplicationFailures.firstLine(e));
        } finally {
            releasePrefilledLogFiles();
        }
    }

    /** Asks the master, by its JE name, for its client address (its app state); empty when it did not answer. */
    Optional<String> clientAddressOf(String master) {
        ReplicatedEnvironment env = environment;
        if (env == null) {
            return Optional.empty();
        }
        try {
            ReplicationNode node = env.getGroup().getMember(master);
            if (node != null) {
                byte[] appState = new DbPing(node, settings.groupName(), LOOKUP_TIMEOUT_MILLIS, networkConfig())
                        .getNodeState()
                        .getAppState();
                return NodeAddresses.decode(appState).clientAddress();
            }
        } catch (Exception e) {
            LOG.debug("Node {}: asking master {} for its client address failed: {}", settings.nodeName(), master,
                    e.toString());
        }
        return Optional.empty();
    }

    /** The current JE environment, if open; it may be replaced or closed at any time. */
    Optional<ReplicatedEnvironment> environment() {
        return Optional.ofNullable(environment);
    }

    /** JE's text names the master (the feeder) whose designation conflicts with this node's. */
    private static final Pattern CONFLICTING_FEEDER = Pattern.compile("Feeder node: (\\S+)");

    private static boolean isConflictingDesignation(Throwable e) {
        return e instanceof EnvironmentFailureException
                && String.valueOf(e.getMessage()).contains("Conflicting Primary designations");
    }

    /**
     * JE handles a rollback needed while joining (a "hard recovery": this node had commits the master lacks) inside
     * the ReplicatedEnvironment constructor and only records it in the node's statistics; operators still need to
     * hear about it, like a rollback at run time.
     */
    private void logRollbackDuringOpen(ReplicatedEnvironment env) {
        try {
            StatGroup nodeStats = RepInternal.getNonNullRepImpl(env).getNodeStats();
            if (nodeStats.getBoolean(RepImplStatDefinition.HARD_RECOVERY)) {
                String info = nodeStats.getString(RepImplStatDefinition.HARD_RECOVERY_INFO);
                operationalLog.log(LogCode.HA_1004, settings.nodeName(), OperatorMessages.rolledBackWhileRejoining(
                        info, replicaAckNone(settings)));
            }
        } catch (RuntimeException e) {
            LOG.debug("Node {}: could not read JE's hard-recovery statistics: {}", settings.nodeName(), e.toString());
        }
    }

    /** With replica ack NONE a rollback can discard accepted messages (see {@link OperatorMessages}). */
    static boolean replicaAckNone(ReplicatedStoreSettings settings) {
        return settings.commitDurability().getReplicaAck() == com.sleepycat.je.Durability.ReplicaAckPolicy.NONE;
    }
}
