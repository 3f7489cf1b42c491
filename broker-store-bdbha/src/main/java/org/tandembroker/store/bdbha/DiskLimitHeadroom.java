package org.tandembroker.store.bdbha;

import com.sleepycat.je.CheckpointConfig;
import com.sleepycat.je.DbInternal;
import com.sleepycat.je.EnvironmentMutableConfig;
import com.sleepycat.je.EnvironmentStats;
import com.sleepycat.je.StatsConfig;
import com.sleepycat.je.dbi.EnvironmentImpl;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;

/**
 * Gets a replica whose store is over its {@code maxDisk} back under it by itself, when its volume has room.
 *
 * <p>JE forbids every write while a store is over its limit, the cleaner's included: cleaning migrates live records,
 * which is a write. A replica in that state waits "for disk space to become available" and neither replays nor
 * cleans, so it never gets under the limit unless it holds reserved files to delete (reliability finding 7: a node
 * 9,541 bytes over its 160 MB limit after a disk-full fault waited for good with 116 MB free on its volume). Here the
 * limit is raised for that environment by a headroom ({@code MST-1013}, see {@link #decide}) that leaves the volume
 * {@code je.freeDisk} and a log file; the node then replays, the cleaner reclaims the obsolete part of the log, and
 * once the store is under its configured limit again with a log file to spare, the limit is restored
 * ({@code MST-1014}); JE then deletes the cleaned files it had reserved. While the headroom lasts this thread
 * cleans and checkpoints at every look: JE wakes its cleaner by bytes written, which a master refusing publishes
 * hardly writes, and only a checkpoint releases a cleaned file (JE checkpoints after 20 MB of writes).
 *
 * <p><b>A master</b> over its limit is stuck the same way, and worse: its consumers' removals are writes too, so
 * nothing it serves can ever free space (reliability finding 8: a master 547 KB over its 160 MB limit, 115 MB free
 * on its volume, refused every write for minutes and the group served nobody). It gets the same headroom, but only
 * removals may use it: while any headroom is granted, {@link #refusesNewData()} is true and the store refuses every
 * commit that adds data ("store disk full", as JE's own limit says), so consumers drain, the cleaner reclaims their
 * messages' log, and publishing resumes when the configured limit is back. A replica that becomes master keeps
 * its headroom on the same terms. A node still over its limit with the most headroom it is given (its live data
 * exceeds {@code maxDisk}), or whose volume is full, is reported once per episode as needing an operator
 * ({@code MST-1008}): free space or raise {@code maxDisk}.
 * Every environment opens with the configured limit, so a reopen ends any headroom.
 *
 * <p><b>Threads.</b> One thread, {@code ha-disk-<vhost>}, looks every {@value #CHECK_INTERVAL_MILLIS} ms and owns
 * every field but the environment supplier's.
 */
final class DiskLimitHeadroom {
    private static final Logger LOG = LoggerFactory.getLogger(DiskLimitHeadroom.class);

    static final long CHECK_INTERVAL_MILLIS = 5000;
    static final int HEADROOM_PERCENT = 5;
    static final int MOST_HEADROOM_PERCENT = 50;

    /** The store's configured limits. */
    record Limits(long maxDisk, long freeDisk, long logFileMax) {
        /** One step of headroom: this share of {@code maxDisk}, or three log files when that is more. */
        long step() {
            return Math.max(maxDisk / 100 * HEADROOM_PERCENT, 3 * logFileMax);
        }

        /** The most headroom ever given: half of {@code maxDisk}, or one step when that is more. */
        long most() {
            return Math.max(maxDisk / 100 * MOST_HEADROOM_PERCENT, step());
        }
    }

    /**
     * One look at the store: {@code master} whether it is the master; {@code writesProhibited} whether JE refuses
     * writes for a disk limit; {@code availableLogSize} JE's figure against the limit in force (negative: the bytes
     * over it); {@code volumeUsable} the bytes free on the volume for this process.
     */
    record Reading(boolean master, boolean writesProhibited, long availableLogSize, long volumeUsable) {
    }

    /** What to do about a reading. */
    sealed interface Step {
        /** Nothing. */
        record Keep() implements Step {
        }

        /** Raise the limit to {@code maxDisk}: {@code headroom} above the configured one in all. */
        record Grant(long maxDisk, long headroom) implements Step {
        }

        /** Put the configured limit back. */
        record Restore(long maxDisk) implements Step {
        }

        /** Over a limit that headroom cannot help with; an operator must act, for {@code reason}. */
        record NeedsOperator(String reason) implements Step {
        }
    }

    /**
     * The decision, from a reading and the headroom now granted on the environment read (0 when none). A node (a
     * replica or a master) that cannot write is given a step of headroom, or its overage and two log files when that is more, then more
     * steps while it still cannot write (its replay may fill a step before the cleaner has freed anything), up to
     * {@link Limits#most()} and never into the volume's last {@code je.freeDisk} and log file.
     */
    static Step decide(Reading reading, Limits limits, long granted) {
        if (!reading.writesProhibited()) {
            return granted > 0 && reading.availableLogSize() > granted + limits.logFileMax()
                    ? new Step.Restore(limits.maxDisk()) : new Step.Keep();
        }
        long room = reading.volumeUsable() - limits.freeDisk() - limits.logFileMax();
        if (room < limits.logFileMax()) {
            return new Step.NeedsOperator("its volume has " + reading.volumeUsable() + " bytes free, with "
                    + limits.freeDisk() + " to be kept free (je.freeDisk): free space on the volume");
        }
        long overage = Math.max(0, -reading.availableLogSize());
        long headroom = Math.min(granted + Math.max(limits.step(), overage + 2 * limits.logFileMax()),
                Math.min(limits.most(), granted + room));
        if (headroom <= granted) {
            return new Step.NeedsOperator("it is over its limit with " + granted + " bytes of headroom, the most "
                    + "it is given: its live data exceeds maxDisk: raise maxDisk or free space on the volume (the node "
                    + "rejoins by itself once it can write)");
        }
        return new Step.Grant(limits.maxDisk() + headroom, headroom);
    }

    private final String nodeName;
    private final Path storePath;
    private final Limits limits;
    private final Supplier<Optional<ReplicatedEnvironment>> environment;
    private final OperationalLog operationalLog;
    private final ScheduledExecutorService executor;

    // Written by the ha-disk thread only; granted is also read by committing threads (refusesNewData).
    private ReplicatedEnvironment grantedOn;
    private volatile long granted;
    private boolean reportedNeedsOperator;

    DiskLimitHeadroom(String nodeName, String virtualHostName, Path storePath, Limits limits,
                      Supplier<Optional<ReplicatedEnvironment>> environment, OperationalLog operationalLog) {
        this.nodeName = nodeName;
        this.storePath = storePath;
        this.limits = limits;
        this.environment = environment;
        this.operationalLog = operationalLog;
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1,
                NamedThreadFactory.daemonThread("ha-disk-" + virtualHostName));
        pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.executor = pool;
    }

    /**
     * Whether commits that add data (publishes, declarations) must be refused: the store is over its configured
     * {@code maxDisk} and writes only within the headroom given to get it back under, which is for removals.
     */
    boolean refusesNewData() {
        return granted > 0;
    }

    /** The reason given to a refused commit. */
    String refusal() {
        return "store disk full: node " + nodeName + " is over its maxDisk of " + limits.maxDisk() + " bytes; "
                + "until the cleaner has brought it back under, only removals are written (consume to free space)";
    }

    void start() {
        executor.scheduleWithFixedDelay(this::check, CHECK_INTERVAL_MILLIS, CHECK_INTERVAL_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    void stop() {
        executor.shutdownNow();
    }

    private void check() {
        try {
            ReplicatedEnvironment env = environment.get().filter(ReplicatedEnvironment::isValid).orElse(null);
            if (env == null) {
                return;
            }
            if (env != grantedOn) {
                grantedOn = null;
                granted = 0;
            }
            if (granted > 0 && !writesProhibited(env)) {
                // JE wakes its cleaner by bytes written (a quarter of a log file), and a master that refuses
                // publishes may write little else but removals and its heartbeat: clean here. A cleaned file is
                // only released by the next checkpoint, and JE checkpoints by bytes written (20 MB) or after an
                // idle cleaner period that a node being written to may never have.
                env.cleanLog();
                env.checkpoint(new CheckpointConfig().setForce(true));
            }
            Reading reading = read(env);
            Step step = decide(reading, limits, granted);
            if (step instanceof Step.Grant grant) {
                granted = grant.headroom(); // refuses new data before JE lets anything write again
                grantedOn = env;
                setMaxDisk(env, grant.maxDisk());
                reportedNeedsOperator = false;
                operationalLog.log(LogCode.MST_1013, "node " + nodeName + " is over its maxDisk of "
                        + limits.maxDisk() + " bytes and cannot write, clean or "
                        + (reading.master() ? "remove consumed messages" : "replay") + "; its volume has room, so "
                        + "its limit is " + grant.maxDisk() + " bytes (" + grant.headroom() + " more) until the "
                        + "cleaner has brought it back under " + limits.maxDisk()
                        + (reading.master() ? ", and publishes are refused until then" : "")
                        + " (available log size " + reading.availableLogSize() + " bytes)");
            } else if (step instanceof Step.Restore restore) {
                setMaxDisk(env, restore.maxDisk());
                operationalLog.log(LogCode.MST_1014, "node " + nodeName + " is back under its maxDisk of "
                        + restore.maxDisk() + " bytes: the limit is restored"
                        + (reading.master() ? " and publishes are accepted again" : ""));
                grantedOn = null;
                granted = 0;
                reportedNeedsOperator = false;
            } else if (step instanceof Step.NeedsOperator needsOperator) {
                if (!reportedNeedsOperator) {
                    reportedNeedsOperator = true;
                    operationalLog.log(LogCode.MST_1008, "node " + nodeName + " cannot write to its store at "
                            + storePath + ": " + needsOperator.reason());
                }
            } else if (!reading.writesProhibited()) {
                reportedNeedsOperator = false;
            }
        } catch (RuntimeException e) {
            // The environment may close or be replaced under this thread; the next look starts afresh.
            LOG.debug("Node {}: checking the store's disk limit failed: {}", nodeName, e.toString());
        }
    }

    private Reading read(ReplicatedEnvironment env) {
        EnvironmentStats stats = env.getStats(new StatsConfig().setFast(true));
        return new Reading(env.getState().isMaster(), writesProhibited(env), stats.getAvailableLogSize(),
                volumeUsable());
    }

    private static boolean writesProhibited(ReplicatedEnvironment env) {
        EnvironmentImpl impl = DbInternal.getEnvironmentImpl(env);
        return impl != null && impl.getDiskLimitViolation() != null;
    }

    private long volumeUsable() {
        try {
            return Files.getFileStore(storePath).getUsableSpace();
        } catch (IOException e) {
            return 0;
        }
    }

    private static void setMaxDisk(ReplicatedEnvironment env, long maxDisk) {
        EnvironmentMutableConfig config = env.getMutableConfig();
        config.setMaxDisk(maxDisk);
        env.setMutableConfig(config);
    }
}
