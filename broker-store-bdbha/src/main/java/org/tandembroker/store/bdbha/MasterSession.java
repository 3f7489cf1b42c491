package org.tandembroker.store.bdbha;

import com.sleepycat.je.Durability;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.store.bdb.ChangeSet;
import org.tandembroker.store.bdb.StoreDatabases;
import org.tandembroker.store.bdb.StoreHealth;
import org.tandembroker.store.bdb.commit.CoalescingCommitter;
import org.tandembroker.store.bdb.commit.CommitOutcomes;
import org.tandembroker.store.bdb.commit.FlushableLog;
import org.tandembroker.store.bdb.commit.CommitterStats;

/**
 * Everything that writes while this node is master: the store's databases, the commit pipeline and the quorum
 * heartbeat. Made when JE says MASTER, closed before the node serves as anything else, so that no JE
 * {@code Database} handle or transaction outlives the role it was opened in.
 *
 * <p><b>Commits.</b> An applier thread commits the data change sets queued meanwhile as one JE transaction and waits
 * for its acknowledgements; the next data transaction starts when it returns, or alongside it once a full batch
 * ({@link #MAX_BATCH}) waits, so up to {@link #APPLIERS} wait for replicas at once only when the round trip is long (a
 * distant replica) or the load high; commits that fsync by themselves ({@link #syncsItself}) overlap whenever one
 * waits, as JE shares their fsyncs only between concurrent transactions. Removals, which wait for no acknowledgement,
 * are taken whenever an applier is free. With {@code coalescingSync} a transaction commits with the configured master
 * sync policy and the flusher makes every commit that arrived meanwhile durable with one {@code flushLog(true)},
 * started as soon as a commit record is in the log ({@link CommitLoggedHook}): a commit costs the longer of the fsync
 * and the acknowledgement, not their sum. Data commits complete in submission order ({@link CoalescingCommitter}); a
 * change set that only removes (a consumer's acknowledgements) commits with {@code NO_SYNC,NO_SYNC,NONE}, outside that
 * order.
 *
 * <p><b>Threads.</b> Made and closed on the {@code ha-<vhost>} thread. The databases are read by the store's
 * reader thread and the virtual host's recovery; the committer and heartbeat have their own threads.
 * {@link #close()} stops the committer (in-flight commits finish or fail), then the heartbeat, then closes the
 * databases; the store makes sure no read is in flight first. {@link #closeHandingOver}, for a master whose broker
 * stops, waits between the committer and the heartbeat until a majority has acknowledged everything committed.
 */
final class MasterSession implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MasterSession.class);

    /**
     * Transactions that may wait for replica acknowledgements at the same time. Each applier blocks in JE's commit
     * for a whole acknowledgement round trip; while it waits, the commits submitted meanwhile gather into the
     * next batch, which a second applier starts only once it is full. One transaction at a time, as large as the
     * round trip makes it, costs both nodes least per message (a JE transaction costs a commit record, a
     * replication message, a replay and an acknowledgement whatever its size); more appliers keep a long round
     * trip from capping the rate at {@link #MAX_BATCH} per round trip.
     */
    static final int APPLIERS = 4;

    /**
     * Most change sets (clients' commits) in one JE transaction. Each JE transaction costs a commit record, a
     * replication message, a replay on every replica and an acknowledgement round trip, whatever its size
     * (measured in docs/perf/log.md, "How a replicated commit works now").
     */
    static final int MAX_BATCH = 64;

    private static final Durability REMOVAL_DURABILITY = new Durability(Durability.SyncPolicy.NO_SYNC,
            Durability.SyncPolicy.NO_SYNC, Durability.ReplicaAckPolicy.NONE);

    /**
     * True when a data commit fsyncs by itself on the master or on a replica (coalescingSync false with SYNC):
     * JE shares such fsyncs only between transactions committing at the same time, so those overlap whenever a
     * commit waits (one at a time ran SYNC,SYNC,ALL at N=16 at 61 % of the rate, docs/perf/log.md).
     */
    static boolean syncsItself(Durability durability) {
        return durability.getLocalSync() == Durability.SyncPolicy.SYNC
                || durability.getReplicaSync() == Durability.SyncPolicy.SYNC;
    }

    private final ReplicatedStoreSettings settings;
    private final OperationalLog operationalLog;
    private final StoreDatabases databases;
    private final StoreHealth health;
    private final CoalescingCommitter<ChangeSet> committer;
    private final QuorumHeartbeat heartbeat;

    private MasterSession(ReplicatedStoreSettings settings, OperationalLog operationalLog, StoreDatabases databases,
                          StoreHealth health, CoalescingCommitter<ChangeSet> committer, QuorumHeartbeat heartbeat) {
        this.settings = settings;
        this.operationalLog = operationalLog;
        this.databases = databases;
        this.health = health;
        this.committer = committer;
        this.heartbeat = heartbeat;
    }

    /**
     * Opens the databases (creating them on a new group's first master) and starts committing and beating.
     * Throws JE's exception when the node cannot write after all (e.g. it lost the master role meanwhile).
     */
    static MasterSession open(ReplicatedEnvironment environment, ReplicatedStoreSettings settings, String storeName,
                              OperationalLog operationalLog, SessionReports events) {
        CommitLoggedHook.install();
        StoreDatabases databases = StoreDatabases.open(environment, Set.of(QuorumHeartbeat.DATABASE));
        QuorumHeartbeat heartbeat = null;
        try {
            ReplicaLagGate lagGate = new ReplicaLagGate();
            heartbeat = QuorumHeartbeat.start(environment, settings.nodeName(), settings.virtualHostName(), events,
                    lagGate);
            StoreHealth health = new StoreHealth(storeName, operationalLog, events::restartRequired);
            Outcomes outcomes = new Outcomes(settings.nodeName(), health, events);
            Durability dataDurability = settings.commitDurability();
            // Ordered submissions are data commits, unordered ones removals (see commit()): a batch is one or the
            // other, never both, so it takes the durability of its first change set. Removals wait for no
            // acknowledgement, but do not run far ahead of the replicas either (ReplicaLagGate).
            CoalescingCommitter<ChangeSet> committer = CoalescingCommitter.applierPool(
                    "ha-committer-" + settings.virtualHostName(), APPLIERS, MAX_BATCH,
                    syncsItself(dataDurability) ? 1 : MAX_BATCH,
                    (batch, logged) -> {
                        boolean removals = batch.get(0).removalOnly();
                        if (removals) {
                            lagGate.passRemoval();
                        }
                        return CommitLoggedHook.whileCommitting(logged, () -> databases.applyAt(batch,
                                removals ? REMOVAL_DURABILITY : dataDurability));
                    },
                    FlushableLog.of(databases::logEnd, databases::flushLog), outcomes);
            committer.start();
            return new MasterSession(settings, operationalLog, databases, health, committer, heartbeat);
        } catch (RuntimeException e) {
            if (heartbeat != null) {
                heartbeat.close();
            }
            try {
                databases.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    CompletableFuture<Void> commit(ChangeSet changes) {
        if (changes.removalOnly()) {
            return committer.submitUnordered(changes);
        }
        return committer.submit(changes, settings.coalescingSync());
    }

    StoreDatabases databases() {
        return databases;
    }

    boolean diskFull() {
        return health.diskFull();
    }

    CommitterStats committerStats() {
        return committer.stats();
    }

    boolean runsOn(Thread thread) {
        return committer.runsOn(thread) || heartbeat.runsOn(thread);
    }

    /** Closes the session of a node that is no longer master (or must restart): nothing more can replicate. */
    @Override
    public void close() {
        endCommits();
        heartbeat.close();
        databases.close();
    }

    /**
     * Closes the session of a node that is still master while its store closes (the broker stops): after the
     * last commit, waits until a majority has acknowledged everything this master logged (at most JE's
     * acknowledgement timeouts; {@link QuorumHeartbeat#handOver}), so that the node that serves next does not
     * deliver again the messages that consumers acknowledged in the last moments. {@code HA-1007} says whether
     * that was confirmed; it is not tried when the quorum is known lost.
     */
    void closeHandingOver(boolean quorumKnownLost) {
        endCommits();
        long start = System.nanoTime();
        Optional<String> notAcknowledged = heartbeat.handOver(quorumKnownLost);
        long millis = (System.nanoTime() - start) / 1_000_000;
        operationalLog.log(LogCode.HA_1007, settings.nodeName(), notAcknowledged
                .map(OperatorMessages::handOverNotConfirmed)
                .orElse(OperatorMessages.handOverConfirmed(millis)));
        heartbeat.close();
        databases.close();
    }

    private void endCommits() {
        committer.close();
        LOG.info("{}: master session ends: {}", settings.virtualHostName(), committer.stats().summary());
    }

    /** Replication's exceptions first, then the standalone store's handling (disk full and the rest). */
    private record Outcomes(String nodeName, StoreHealth health, SessionReports events)
            implements CommitOutcomes {

        @Override
        public void succeeded() {
            health.succeeded();
        }

        @Override
        public Throwable failed(Throwable cause) {
            Optional<ReplicationFailures.Verdict> verdict = ReplicationFailures.classify(cause, nodeName);
            if (verdict.isEmpty()) {
                return health.failed(cause);
            }
            BrokerException error = verdict.get().error();
            switch (verdict.get().action()) {
                // The heartbeat decides about quorum (one verdict, not one per failed commit).
                case QUORUM_LOST, NONE -> { }
                case RESTART -> events.restartRequired(error.getMessage());
            }
            return error;
        }
    }
}
