package org.tandembroker.store.bdbha;

import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.DiskLimitException;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Transaction;
import com.sleepycat.je.TransactionConfig;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's proof of quorum: a tiny transaction committed every {@link #INTERVAL_MILLIS} with
 * {@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY} into its own database. A master that is cut off from its replicas
 * otherwise only notices at a client's next commit, and JE itself keeps it MASTER (JE demotes a master only when
 * it hears of a newer one); with the heartbeat it notices within one interval plus
 * {@code je.rep.replicaAckTimeout} (or {@code je.rep.insufficientReplicasTimeout} once JE has dropped the
 * replicas' connections), even when idle. A designated primary of a two-node group passes alone: JE lowers its
 * quorum to one. The first acknowledged beat of a new master is also its proof that it may serve at all.
 *
 * <p>The acknowledgement policy is always SIMPLE_MAJORITY, whatever the store's durability, because the question
 * is "may this node still act as master", not "how durable is a message".
 *
 * <p>Verdicts are reported on changes only: {@code quorumGained} on the first acknowledged beat and on the first
 * one after a loss, {@code quorumLost} on the first failed beat after a success (or before any). It keeps beating
 * after a loss, so that it notices the quorum's return; it stops when JE says the node is no longer master or
 * must restart.
 *
 * <p><b>Threads.</b> One thread {@code ha-heartbeat-<vhost>} commits and owns the verdict state; the JE handle is
 * closed by {@link #close()} after that thread ended (so that no transaction is open when the environment
 * closes).
 */
final class QuorumHeartbeat implements AutoCloseable {
    static final String DATABASE = "tandem_ha_heartbeat";
    static final long INTERVAL_MILLIS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(QuorumHeartbeat.class);
    private static final Durability MAJORITY = new Durability(Durability.SyncPolicy.NO_SYNC,
            Durability.SyncPolicy.NO_SYNC, Durability.ReplicaAckPolicy.SIMPLE_MAJORITY);
    private static final byte[] KEY = "heartbeat".getBytes(StandardCharsets.UTF_8);

    /** Told of changes, on the heartbeat thread. */
    interface Verdicts {
        /** A majority acknowledged a beat, for the first time or for the first time since a loss. */
        void quorumGained();

        /** A beat found too few replicas, for the first time since a success (or since the start). */
        void quorumLost(String reason);

        /** JE invalidated the environment: it must be reopened. The heartbeat stops. */
        void restartRequired(String reason);
    }

    private final ReplicatedEnvironment environment;
    private final String nodeName;
    private final Verdicts verdicts;
    private final Database database;
    private final ScheduledExecutorService thread;
    private volatile boolean stopped;
    private volatile Thread beatingThread;
    private boolean diskFullLogged;
    /** Heartbeat thread: the last verdict reported, null before the first. */
    private Boolean quorum;

    private QuorumHeartbeat(ReplicatedEnvironment environment, String nodeName, String virtualHostName,
                            Verdicts verdicts, Database database) {
        this.environment = environment;
        this.nodeName = nodeName;
        this.verdicts = verdicts;
        this.database = database;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, "ha-heartbeat-" + virtualHostName);
            t.setDaemon(true);
            beatingThread = t;
            return t;
        });
    }

    /** Opens (creating) the heartbeat database on the master and starts beating. */
    static QuorumHeartbeat start(ReplicatedEnvironment environment, String nodeName, String virtualHostName,
                                 Verdicts verdicts) {
        Database database = environment.openDatabase(null, DATABASE,
                new DatabaseConfig().setTransactional(true).setAllowCreate(true));
        QuorumHeartbeat heartbeat = new QuorumHeartbeat(environment, nodeName, virtualHostName, verdicts, database);
        heartbeat.thread.scheduleWithFixedDelay(heartbeat::beat, 0, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
        return heartbeat;
    }

    private void beat() {
        if (stopped) {
            return;
        }
        try {
            commitBeat();
            diskFullLogged = false;
            if (!Boolean.TRUE.equals(quorum)) {
                quorum = true;
                verdicts.quorumGained();
            }
        } catch (DiskLimitException e) {
            // Not a quorum matter: client commits report the full disk; keep asking.
            if (!diskFullLogged) {
                LOG.warn("Node {}: quorum heartbeat cannot write, the disk is full: {}", nodeName,
                        ReplicationFailures.firstLine(e));
                diskFullLogged = true;
            }
        } catch (RuntimeException e) {
            Optional<ReplicationFailures.Verdict> verdict = ReplicationFailures.classify(e, nodeName);
            ReplicationFailures.Action action = verdict.map(ReplicationFailures.Verdict::action)
                    .orElse(ReplicationFailures.Action.NONE);
            switch (action) {
                case QUORUM_LOST -> {
                    if (!Boolean.FALSE.equals(quorum)) {
                        quorum = false;
                        verdicts.quorumLost(ReplicationFailures.firstLine(verdict.get().error()));
                    }
                }
                case RESTART -> {
                    stopped = true;
                    verdicts.restartRequired(ReplicationFailures.firstLine(e));
                }
                case NONE -> {
                    if (verdict.isPresent()) {
                        stopped = true; // no longer master: the state event ends this session
                    } else {
                        LOG.warn("Node {}: quorum heartbeat failed: {}", nodeName, e.toString());
                    }
                }
            }
        }
    }

    /** One majority-acknowledged transaction; throws JE's exception when it is not acknowledged. */
    private void commitBeat() {
        Transaction txn = environment.beginTransaction(null, new TransactionConfig().setDurability(MAJORITY));
        try {
            database.put(txn, new DatabaseEntry(KEY),
                    new DatabaseEntry(ByteBuffer.allocate(Long.BYTES).putLong(System.currentTimeMillis()).array()));
            txn.commit();
            txn = null;
        } finally {
            if (txn != null) {
                abortQuietly(txn);
            }
        }
    }

    /**
     * The last beat of a master that stops while it is still master, made after its last commit: once a majority
     * has acknowledged it, that majority holds everything this master logged before it, including the consumers'
     * removals, which commit without waiting for acknowledgements, because the replication stream is ordered. A
     * replica that becomes master next then does not deliver those messages again. Runs on the heartbeat thread,
     * after a beat in progress, and waits at most JE's acknowledgement timeouts. Not tried when the last beat had
     * found the quorum lost or the node is no longer master.
     *
     * @return why a majority did not acknowledge it, or empty when it did
     */
    Optional<String> handOver() {
        Future<Optional<String>> lastBeat;
        try {
            lastBeat = thread.submit(this::lastBeat);
        } catch (RejectedExecutionException e) {
            return Optional.of("the quorum heartbeat had stopped");
        }
        try {
            return lastBeat.get();
        } catch (ExecutionException e) {
            return Optional.of(e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while waiting for the acknowledgement");
        }
    }

    private Optional<String> lastBeat() {
        if (stopped) {
            return Optional.of("this node is no longer a master that may write");
        }
        if (Boolean.FALSE.equals(quorum)) {
            return Optional.of("this master had lost its quorum");
        }
        try {
            commitBeat();
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of(ReplicationFailures.firstLine(e));
        }
    }

    boolean runsOn(Thread thread) {
        return thread == beatingThread;
    }

    /** Stops beating, waits for a beat in progress (at most a commit's acknowledgement timeout), closes. */
    @Override
    public void close() {
        stopped = true;
        thread.shutdown();
        if (runsOn(Thread.currentThread())) {
            return; // the beat in progress is this one; the thread ends after it
        }
        boolean interrupted = false;
        while (true) {
            try {
                if (thread.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            database.close();
        } catch (RuntimeException e) {
            LOG.debug("Node {}: closing the heartbeat database: {}", nodeName, e.toString());
        }
    }

    private static void abortQuietly(Transaction txn) {
        try {
            txn.abort();
        } catch (RuntimeException e) {
            // The commit's failure is what matters.
        }
    }
}
