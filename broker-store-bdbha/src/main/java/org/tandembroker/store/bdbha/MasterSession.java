package org.tandembroker.store.bdbha;

import com.sleepycat.je.Durability;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.store.bdb.ChangeSet;
import org.tandembroker.store.bdb.StoreDatabases;
import org.tandembroker.store.bdb.StoreHealth;
import org.tandembroker.store.bdb.commit.CoalescingCommitter;
import org.tandembroker.store.bdb.commit.CommitterStats;

/**
 * Everything that writes while this node is master: the store's databases, the commit pipeline and the quorum
 * heartbeat. Made when JE says MASTER, closed before the node serves as anything else, so that no JE
 * {@code Database} handle or transaction outlives the role it was opened in.
 *
 * <p><b>Commits.</b> A {@link CoalescingCommitter#applierPool} of {@link #APPLIERS} threads: each applier commits
 * one JE transaction and, when the durability asks for acknowledgements, blocks until they arrive, so several
 * commits wait for replicas at once. With {@code coalescingSync} the transaction commits with the configured
 * master sync policy (NO_SYNC or WRITE_NO_SYNC) and the replica policies, and the one flusher thread then makes
 * every commit that arrived meanwhile durable with one {@code flushLog(true)} before completing their futures;
 * without it each commit carries the full triplet and completes alone. Futures of data commits complete in
 * submission order (see {@link CoalescingCommitter}). A change set that only removes (a consumer's
 * acknowledgements) commits with {@code NO_SYNC,NO_SYNC,NONE}, outside that order, and waits neither for an
 * fsync nor for replicas.
 *
 * <p><b>Threads.</b> Made and closed on the facade thread. The databases are read by the store's reader thread
 * and the virtual host's recovery; the committer and heartbeat have their own threads. {@link #close()} stops the
 * committer (in-flight commits finish or fail), then the heartbeat, then closes the databases; the store makes
 * sure no read is in flight first.
 */
final class MasterSession implements AutoCloseable {
    /**
     * Commits that may wait for replica acknowledgements at the same time. Each applier blocks in JE's commit for
     * a whole acknowledgement round trip, so throughput is capped near APPLIERS / ack latency: with 8, about
     * 600 commits/s at 13 ms (docs/performance.md, replicated store). Threads here only wait.
     */
    static final int APPLIERS = 64;

    private static final Durability REMOVAL_DURABILITY = new Durability(Durability.SyncPolicy.NO_SYNC,
            Durability.SyncPolicy.NO_SYNC, Durability.ReplicaAckPolicy.NONE);

    /** What the session reports to the node, on committer or heartbeat threads. */
    interface NodeEvents extends QuorumHeartbeat.Verdicts {
    }

    private final ReplicatedStoreSettings settings;
    private final StoreDatabases databases;
    private final StoreHealth health;
    private final CoalescingCommitter<ChangeSet> committer;
    private final QuorumHeartbeat heartbeat;

    private MasterSession(ReplicatedStoreSettings settings, StoreDatabases databases, StoreHealth health,
                          CoalescingCommitter<ChangeSet> committer, QuorumHeartbeat heartbeat) {
        this.settings = settings;
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
                              OperationalLog operationalLog, NodeEvents events) {
        StoreDatabases databases = StoreDatabases.open(environment, Set.of(QuorumHeartbeat.DATABASE));
        QuorumHeartbeat heartbeat = null;
        try {
            heartbeat = QuorumHeartbeat.start(environment, settings.nodeName(), settings.virtualHostName(), events);
            StoreHealth health = new StoreHealth(storeName, operationalLog, events::restartRequired);
            Outcomes outcomes = new Outcomes(settings.nodeName(), health, events);
            Durability dataDurability = settings.commitDurability();
            CoalescingCommitter<ChangeSet> committer = CoalescingCommitter.applierPool(
                    "ha-committer-" + settings.virtualHostName(), APPLIERS,
                    changes -> databases.apply(changes, changes.removalOnly() ? REMOVAL_DURABILITY : dataDurability),
                    databases::flushLog, outcomes);
            committer.start();
            return new MasterSession(settings, databases, health, committer, heartbeat);
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

    @Override
    public void close() {
        committer.close();
        heartbeat.close();
        databases.close();
    }

    /** Replication's exceptions first, then the standalone store's handling (disk full and the rest). */
    private record Outcomes(String nodeName, StoreHealth health, NodeEvents events)
            implements CoalescingCommitter.Outcomes {

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
