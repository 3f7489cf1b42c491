package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.tandembroker.store.bdbha.HaGroup.COMMIT_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.options;

import com.sleepycat.je.Durability;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdb.ChangeSet;
import org.tandembroker.store.bdb.StoreDatabases;
import org.tandembroker.store.bdb.commit.CoalescingCommitter;
import org.tandembroker.store.bdb.commit.CommitterStats;
import org.tandembroker.store.bdbha.HaGroup.Commit;
import org.tandembroker.store.bdbha.HaGroup.Node;

/** How commits of the master wait (or do not wait) for fsyncs and replica acknowledgements. */
class ReplicatedCommitTest {
    @TempDir
    Path work;
    private HaGroup group;

    @BeforeEach
    void group() {
        group = new HaGroup(work, "commits");
    }

    @AfterEach
    void close() {
        group.close();
    }

    @Test
    void concurrentCommitsShareFsyncsAndEachCompletesInOrderOnlyOnceItsReplicaHasIt() {
        Node master = group.start("master").awaitActive();
        Node replica = group.start("replica").awaitRedirectTo(master);
        master.publishAll("warm-up", 1);
        ReplicatedEnvironment replicaEnvironment = replica.store.environment().orElseThrow();
        StoreDatabases onReplica = StoreDatabases.open(replicaEnvironment, Set.of(QuorumHeartbeat.DATABASE));
        try {
            int count = 300;
            Map<Long, Boolean> onReplicaWhenCompleted = new ConcurrentHashMap<>();
            AtomicReferenceArray<CompletableFuture<Void>> futures = new AtomicReferenceArray<>(count);
            Set<Integer> completedBeforeAnEarlierOne = ConcurrentHashMap.newKeySet();
            List<Commit> commits = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Commit commit = master.publish("c" + i);
                futures.set(i, commit.future());
                int index = i;
                commit.future().thenRun(() -> {
                    // At the moment the future completes (on the flusher thread), or at once if it already had.
                    onReplicaWhenCompleted.put(commit.id(), onReplica.readContent(commit.id()).isPresent());
                    for (int earlier = 0; earlier < index; earlier++) {
                        if (!futures.get(earlier).isDone()) {
                            completedBeforeAnEarlierOne.add(index);
                        }
                    }
                });
                commits.add(commit);
            }

            commits.forEach(commit -> assertThat(commit.future()).succeedsWithin(COMMIT_DEADLINE));
            assertThat(onReplicaWhenCompleted).hasSize(count).doesNotContainValue(false);
            assertThat(completedBeforeAnEarlierOne).isEmpty();
            CommitterStats stats = master.store.committerStats().orElseThrow();
            assertThat(stats.flushedCommits()).isEqualTo(301);
            assertThat(stats.flushes()).isLessThan(stats.flushedCommits());
        } finally {
            onReplica.close();
        }
    }

    @Test
    void aMasterCommitReportsItsCommitRecordOnItsOwnThreadWhileCommittingOnlyWhenWatchedAndNeverFailsForIt() {
        Node master = group.start("master").awaitActive(); // the master session installed the hook
        group.start("replica").awaitRedirectTo(master);
        StoreDatabases databases = StoreDatabases.open(master.store.environment().orElseThrow(),
                Set.of(QuorumHeartbeat.DATABASE));
        try {
            List<Long> reported = new ArrayList<>();
            List<Thread> reportedOn = new ArrayList<>();
            Durability acknowledged = new Durability(Durability.SyncPolicy.NO_SYNC, Durability.SyncPolicy.NO_SYNC,
                    Durability.ReplicaAckPolicy.SIMPLE_MAJORITY);

            long watched = CommitLoggedHook.whileCommitting(position -> {
                reported.add(position);
                reportedOn.add(Thread.currentThread());
            }, () -> databases.applyAt(List.of(new ChangeSet(List.of(new ChangeSet.Enqueue(HaGroup.QUEUE, 1_000_001)))),
                    acknowledged));
            long unwatched = databases.applyAt(
                    List.of(new ChangeSet(List.of(new ChangeSet.Enqueue(HaGroup.QUEUE, 1_000_002)))), acknowledged);

            assertThat(watched).isNotEqualTo(CoalescingCommitter.NO_POSITION);
            assertThat(reported).containsExactly(watched);
            assertThat(reportedOn).containsExactly(Thread.currentThread());
            assertThat(unwatched).isGreaterThan(watched);

            long despiteAFailingListener = CommitLoggedHook.whileCommitting(position -> {
                throw new IllegalStateException("listener broken");
            }, () -> databases.applyAt(List.of(new ChangeSet(List.of(new ChangeSet.Enqueue(HaGroup.QUEUE, 1_000_003)))),
                    acknowledged));
            assertThat(despiteAFailingListener).as("the commit goes on").isGreaterThan(unwatched);
        } finally {
            databases.close();
        }
    }

    @Test
    void removalsCommitWithoutWaitingForReplicasWhileDataCommitsWaitForOne() {
        Node master = group.start("master", options()
                .rep("je.rep.insufficientReplicasTimeout", "60 s")
                .rep("je.rep.replicaAckTimeout", "60 s")).awaitActive();
        Node replica = group.start("replica").awaitRedirectTo(master);
        List<Commit> stored = master.publishAll("m", 3);

        replica.close();
        CompletableFuture<Void> data = master.publish("needs a replica").future();
        CompletableFuture<Void> removal = master.acknowledge(stored.get(0).id());

        assertThat(removal).succeedsWithin(COMMIT_DEADLINE);
        assertThat(data).isNotDone(); // it waits up to a minute for a replica
        assertThat(master.store.loadContent(stored.get(0).id())).failsWithin(COMMIT_DEADLINE);
        assertThat(master.content(stored.get(1).id())).isEqualTo("m1");

        group.start("replica");
        assertThat(data).succeedsWithin(HaGroup.ROLE_DEADLINE);
        assertThat(master.listener.isActive()).isTrue();
    }

    @Test
    void withoutCoalescingSyncEachCommitCarriesTheWholeTripletAndNeedsNoFlush() {
        Node alone = group.start("alone", options().element("coalescingSync", "false")
                .element("durability", "SYNC,NO_SYNC,SIMPLE_MAJORITY")).awaitActive();

        alone.publishAll("m", 10);

        CommitterStats stats = alone.store.committerStats().orElseThrow();
        assertThat(stats.commits()).isEqualTo(10);
        assertThat(stats.flushes()).isZero();
        assertThat(alone.store.durability()).isEqualTo("SYNC,NO_SYNC,SIMPLE_MAJORITY");
        assertThat(alone.store.coalescingSync()).isFalse();
    }
}
