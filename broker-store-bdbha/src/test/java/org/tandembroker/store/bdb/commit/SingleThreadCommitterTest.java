package org.tandembroker.store.bdb.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/** The standalone store's committer: batching and life cycle. */
class SingleThreadCommitterTest extends CommitterFixture {

    @Test
    void commitsArrivingDuringAFlushShareTheNextFlush() throws Exception {
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, this::blockingFirstFlush,
                CommitOutcomes.passThrough());
        committer.start();

        CompletableFuture<Void> first = committer.submit("m0", true);
        awaitLatch(firstFlushStarted);
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            waiting.add(committer.submit("m" + i, true));
        }
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        releaseFirstFlush.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        waiting.forEach(future -> assertThat(future).succeedsWithin(DEADLINE));
        CommitterStats stats = committer.stats();
        assertThat(stats.flushes()).isEqualTo(2);
        assertThat(stats.commits()).isEqualTo(11);
        assertThat(stats.largestBatch()).isEqualTo(10);
        assertThat(stats.averageBatchSize()).isEqualTo(5.5);
        assertThat(applied).containsExactly("m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "m10");
    }

    @Test
    void commitsThatNeedNoFlushCompleteWithoutOne() {
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, flushCalls::incrementAndGet,
                CommitOutcomes.passThrough());
        committer.start();

        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            futures.add(committer.submit("removal" + i, false));
        }

        futures.forEach(future -> assertThat(future).succeedsWithin(DEADLINE));
        assertThat(flushCalls).hasValue(0);
        assertThat(committer.stats().commits()).isEqualTo(5);
        assertThat(committer.stats().flushes()).isZero();
    }

    @Test
    void futuresCompleteOnTheCommitterThreadNeverTheCallers() {
        CountDownLatch release = new CountDownLatch(1);
        committer = CoalescingCommitter.singleThread("committer-test", work -> awaitLatch(release),
                () -> { }, CommitOutcomes.passThrough());
        committer.start();

        CompletableFuture<String> completedOn = committer.submit("m", true)
                .thenApply(v -> Thread.currentThread().getName());
        release.countDown();

        assertThat(completedOn).succeedsWithin(DEADLINE).isEqualTo("committer-test");
    }

    @Test
    void aFailedApplyFailsOnlyItsOwnCommitWithTheTranslatedError() {
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, flushCalls::incrementAndGet,
                wrapping());
        committer.start();

        CompletableFuture<Void> good1 = committer.submit("good1", true);
        CompletableFuture<Void> bad = committer.submit("bad", true);
        CompletableFuture<Void> good2 = committer.submit("good2", true);

        assertThat(good1).succeedsWithin(DEADLINE);
        assertThat(good2).succeedsWithin(DEADLINE);
        assertThat(failureKind(bad)).isEqualTo(ErrorKind.INTERNAL_ERROR);
        assertThat(bad.handle((v, e) -> BrokerException.from(e).getMessage()).join())
                .isEqualTo("translated: cannot apply bad");
        assertThat(committer.stats().failures()).isEqualTo(1);
        assertThat(committer.stats().commits()).isEqualTo(2);
    }

    @Test
    void aFailedFlushFailsEveryCommitOfItsBatch() throws Exception {
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, () -> {
            blockingFirstFlush();
            if (flushCalls.get() == 2) {
                throw new IllegalStateException("fsync failed");
            }
        }, wrapping());
        committer.start();

        CompletableFuture<Void> first = committer.submit("m0", true);
        awaitLatch(firstFlushStarted);
        CompletableFuture<Void> second = committer.submit("m1", true);
        CompletableFuture<Void> third = committer.submit("m2", true);
        releaseFirstFlush.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        assertThat(failureKind(second)).isEqualTo(ErrorKind.INTERNAL_ERROR);
        assertThat(failureKind(third)).isEqualTo(ErrorKind.INTERNAL_ERROR);
        assertThat(committer.submit("m3", true)).succeedsWithin(DEADLINE);
        assertThat(committer.stats().failures()).isEqualTo(2);
    }

    @Test
    void outcomesHearOfEverySuccessAndFailure() {
        List<String> heard = java.util.Collections.synchronizedList(new ArrayList<>());
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, () -> { },
                new CommitOutcomes() {
                    @Override
                    public void succeeded() {
                        heard.add("ok");
                    }

                    @Override
                    public Throwable failed(Throwable cause) {
                        heard.add("failed");
                        return cause;
                    }
                });
        committer.start();

        assertThat(committer.submit("bad", true)).failsWithin(DEADLINE);
        assertThat(committer.submit("good", true)).succeedsWithin(DEADLINE);

        assertThat(heard).containsExactly("failed", "ok");
    }

    @Test
    void closeFailsQueuedCommitsWithNotActiveAndCompletesTheOneBeingApplied() {
        CountDownLatch applying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        committer = CoalescingCommitter.singleThread("committer-test", work -> {
            if (work.equals("first")) {
                applying.countDown();
                awaitLatch(release);
            }
        }, () -> { }, CommitOutcomes.passThrough());
        committer.start();
        CompletableFuture<Void> first = committer.submit("first", true);
        awaitLatch(applying);
        List<CompletableFuture<Void>> queued = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            queued.add(committer.submit("queued" + i, true));
        }

        Thread closer = new Thread(committer::close, "closer");
        closer.start();
        await().atMost(DEADLINE).until(() -> closer.getState() == Thread.State.WAITING);
        release.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        queued.forEach(future -> assertThat(failureKind(future)).isEqualTo(ErrorKind.NOT_ACTIVE));
        await().atMost(DEADLINE).until(() -> !closer.isAlive());
    }

    @Test
    void submitAfterCloseFailsWithNotActiveAndCloseIsIdempotent() {
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, () -> { },
                CommitOutcomes.passThrough());
        committer.start();
        committer.close();
        committer.close();

        assertThat(failureKind(committer.submit("late", true))).isEqualTo(ErrorKind.NOT_ACTIVE);
        assertThat(applied).isEmpty();
    }

    @Test
    void closeFromACompletionCallbackDoesNotWaitForItself() {
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, () -> { },
                CommitOutcomes.passThrough());
        committer.start();

        CompletableFuture<Void> closedInCallback = committer.submit("m", true).thenRun(committer::close);

        assertThat(closedInCallback).succeedsWithin(DEADLINE);
        assertThat(failureKind(committer.submit("late", true))).isEqualTo(ErrorKind.NOT_ACTIVE);
    }
}
