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
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.exec.Uninterruptibly;

/**
 * The master's proof of quorum: a tiny transaction committed every {@link #INTERVAL_MILLIS} with
 * {@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY} (whatever the store's durability: the question is "may this node still
 * act as master") into its own database. A master cut off from its replicas otherwise notices only at a client's
 * next commit, and JE keeps it MASTER until it hears of a newer one. A designated primary of a two-node group
 * passes alone: JE lowers its quorum to one.
 *
 * <p>Every beat's outcome is reported ({@link SessionReports}); {@link NodeRoleMachine} decides what it means. The
 * heartbeat keeps beating after a loss, so that the quorum's return is noticed, and stops when JE says the node is
 * no longer master or must restart.
 *
 * <p><b>Threads.</b> One thread, {@code ha-heartbeat-<vhost>}, commits; {@link #close()} closes the JE handle after
 * that thread ended, so that no transaction is open when the environment closes.
 */
final class QuorumHeartbeat implements AutoCloseable {
    static final String DATABASE = "tandem_ha_heartbeat";
    static final long INTERVAL_MILLIS = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(QuorumHeartbeat.class);
    private static final Durability MAJORITY = new Durability(Durability.SyncPolicy.NO_SYNC,
            Durability.SyncPolicy.NO_SYNC, Durability.ReplicaAckPolicy.SIMPLE_MAJORITY);
    private static final Durability OPENING = new Durability(Durability.SyncPolicy.NO_SYNC,
            Durability.SyncPolicy.NO_SYNC, Durability.ReplicaAckPolicy.NONE);
    private static final byte[] KEY = "heartbeat".getBytes(StandardCharsets.UTF_8);

    private final ReplicatedEnvironment environment;
    private final String nodeName;
    private final SessionReports reports;
    private final ReplicaLagGate lagGate;
    private final Database database;
    private final ScheduledExecutorService thread;
    private volatile boolean stopped;
    private volatile Thread beatingThread;
    /** Heartbeat thread. */
    private boolean diskFullLogged;

    private QuorumHeartbeat(ReplicatedEnvironment environment, String nodeName, String virtualHostName,
                            SessionReports reports, ReplicaLagGate lagGate, Database database) {
        this.environment = environment;
        this.nodeName = nodeName;
        this.reports = reports;
        this.lagGate = lagGate;
        this.database = database;
        this.thread = Executors.newSingleThreadScheduledExecutor(
                NamedThreadFactory.daemonThread("ha-heartbeat-" + virtualHostName, t -> beatingThread = t));
    }

    /**
     * Opens (creating) the heartbeat database on the master and starts beating. Each beat's wait for its
     * acknowledgements is reported to {@code lagGate}.
     */
    static QuorumHeartbeat start(ReplicatedEnvironment environment, String nodeName, String virtualHostName,
                                 SessionReports reports, ReplicaLagGate lagGate) {
        // Opened without waiting for replicas (as the store's databases are): the first beat is what waits.
        Transaction opening = environment.beginTransaction(null, new TransactionConfig().setDurability(OPENING));
        Database database;
        try {
            database = environment.openDatabase(opening, DATABASE,
                    new DatabaseConfig().setTransactional(true).setAllowCreate(true));
            opening.commit();
            opening = null;
        } finally {
            if (opening != null) {
                abortQuietly(opening);
            }
        }
        QuorumHeartbeat heartbeat = new QuorumHeartbeat(environment, nodeName, virtualHostName, reports, lagGate,
                database);
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
            reports.quorumConfirmed();
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
                case QUORUM_LOST -> reports.quorumLost(ReplicationFailures.firstLine(verdict.get().error()));
                case RESTART -> {
                    stopped = true;
                    reports.restartRequired(ReplicationFailures.firstLine(e));
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
            lagGate.awaitingAcknowledgements();
            try {
                txn.commit();
                txn = null;
            } finally {
                lagGate.acknowledgementsEnded();
            }
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
     * after a beat in progress, and waits at most JE's acknowledgement timeouts. Not tried when the quorum is known
     * lost or the node is no longer master.
     *
     * @return why a majority did not acknowledge it, or empty when it did
     */
    Optional<String> handOver(boolean quorumKnownLost) {
        Future<Optional<String>> lastBeat;
        try {
            lastBeat = thread.submit(() -> lastBeat(quorumKnownLost));
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

    private Optional<String> lastBeat(boolean quorumKnownLost) {
        if (stopped) {
            return Optional.of("this node is no longer a master that may write");
        }
        if (quorumKnownLost) {
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
        Uninterruptibly.awaitTermination(thread);
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
