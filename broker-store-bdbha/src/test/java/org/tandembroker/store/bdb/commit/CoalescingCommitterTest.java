package org.tandembroker.store.bdb.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/** The committer's batching and life cycle, with fake seams instead of JE. */
class CoalescingCommitterTest {
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private final Set<String> applierThreads = ConcurrentHashMap.newKeySet();
    private final List<String> applied = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger flushCalls = new AtomicInteger();
    private final CountDownLatch firstFlushStarted = new CountDownLatch(1);
    private final CountDownLatch releaseFirstFlush = new CountDownLatch(1);
    private CoalescingCommitter<String> committer;

    @AfterEach
    void closeCommitter() {
        releaseFirstFlush.countDown();
        if (committer != null) {
            committer.close();
        }
    }

    private void apply(String work) {
        applierThreads.add(Thread.currentThread().getName());
        if (work.startsWith("bad")) {
            throw new IllegalStateException("cannot apply " + work);
        }
        applied.add(work);
    }

    /** The first flush blocks until released, so that later commits pile up behind it. */
    private void blockingFirstFlush() {
        if (flushCalls.incrementAndGet() == 1) {
            firstFlushStarted.countDown();
            awaitLatch(releaseFirstFlush);
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released in time");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static CoalescingCommitter.Outcomes wrapping() {
        return new CoalescingCommitter.Outcomes() {
            @Override
            public void succeeded() {
            }

            @Override
            public Throwable failed(Throwable cause) {
                return new BrokerException(ErrorKind.INTERNAL_ERROR, "translated: " + cause.getMessage(), cause);
            }
        };
    }

    private static ErrorKind failureKind(CompletableFuture<Void> future) {
        assertThat(future).failsWithin(DEADLINE);
        return BrokerException.from(future.handle((v, e) -> e).join()).kind();
    }

    @Test
    void commitsArrivingDuringAFlushShareTheNextFlush() throws Exception {
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, this::blockingFirstFlush,
                CoalescingCommitter.Outcomes.passThrough());
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
                CoalescingCommitter.Outcomes.passThrough());
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
                () -> { }, CoalescingCommitter.Outcomes.passThrough());
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
                new CoalescingCommitter.Outcomes() {
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
        }, () -> { }, CoalescingCommitter.Outcomes.passThrough());
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
                CoalescingCommitter.Outcomes.passThrough());
        committer.start();
        committer.close();
        committer.close();

        assertThat(failureKind(committer.submit("late", true))).isEqualTo(ErrorKind.NOT_ACTIVE);
        assertThat(applied).isEmpty();
    }

    @Test
    void closeFromACompletionCallbackDoesNotWaitForItself() {
        committer = CoalescingCommitter.singleThread("committer-test", this::apply, () -> { },
                CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> closedInCallback = committer.submit("m", true).thenRun(committer::close);

        assertThat(closedInCallback).succeedsWithin(DEADLINE);
        assertThat(failureKind(committer.submit("late", true))).isEqualTo(ErrorKind.NOT_ACTIVE);
    }

    @Test
    void applierPoolAppliesConcurrentlyAndSharesFlushes() {
        CountDownLatch fourApplying = new CountDownLatch(4);
        committer = CoalescingCommitter.applierPool("pool-test", 4, work -> {
            apply(work);
            if (work.startsWith("c")) {
                fourApplying.countDown();
                awaitLatch(fourApplying); // only returns once four appliers run at the same time
            }
        }, this::blockingFirstFlush, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> first = committer.submit("m0", true);
        awaitLatch(firstFlushStarted);
        List<CompletableFuture<Void>> concurrent = new ArrayList<>();
        for (int i = 1; i <= 8; i++) {
            concurrent.add(committer.submit("c" + i, true));
        }
        await().atMost(DEADLINE).until(() -> applied.size() == 9);
        releaseFirstFlush.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        concurrent.forEach(future -> assertThat(future).succeedsWithin(DEADLINE));
        assertThat(applierThreads).hasSize(4).allMatch(name -> name.startsWith("pool-test-applier-"));
        assertThat(committer.stats().flushes()).isEqualTo(2);
        assertThat(committer.stats().largestBatch()).isEqualTo(8);
    }

    @Test
    void applierPoolCompletesOrderedCommitsOnTheFlusherThreadAndUnorderedOnesOnTheirApplier() {
        CountDownLatch release = new CountDownLatch(1);
        committer = CoalescingCommitter.applierPool("pool-test", 2, work -> awaitLatch(release), () -> { },
                CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<String> flushedOn = committer.submit("m", true)
                .thenApply(v -> Thread.currentThread().getName());
        CompletableFuture<String> notFlushedOn = committer.submit("n", false)
                .thenApply(v -> Thread.currentThread().getName());
        CompletableFuture<String> removedOn = committer.submitUnordered("r")
                .thenApply(v -> Thread.currentThread().getName());
        release.countDown();

        assertThat(flushedOn).succeedsWithin(DEADLINE).isEqualTo("pool-test-flusher");
        assertThat(notFlushedOn).succeedsWithin(DEADLINE).isEqualTo("pool-test-flusher");
        assertThat(removedOn).succeedsWithin(DEADLINE).asString().startsWith("pool-test-applier-");
    }

    @Test
    void applierPoolCompletesInSubmissionOrderWhenALaterCommitIsAppliedFirst() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch laterApplied = new CountDownLatch(3);
        List<String> completionOrder = java.util.Collections.synchronizedList(new ArrayList<>());
        committer = CoalescingCommitter.applierPool("pool-test", 4, work -> {
            if (work.equals("first")) {
                awaitLatch(releaseFirst); // e.g. waiting for a replica's acknowledgement
            } else if (work.startsWith("bad")) {
                laterApplied.countDown();
                throw new IllegalStateException("cannot apply " + work);
            } else {
                laterApplied.countDown();
            }
        }, flushCalls::incrementAndGet, wrapping());
        committer.start();

        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (String work : List.of("first", "second", "bad-third", "fourth")) {
            CompletableFuture<Void> future = work.equals("fourth") ? committer.submit(work, false)
                    : committer.submit(work, true);
            futures.add(future.whenComplete((ok, failure) -> completionOrder.add(work)));
        }
        CompletableFuture<Void> removal = committer.submitUnordered("removal");
        awaitLatch(laterApplied);

        assertThat(removal).succeedsWithin(DEADLINE);
        await().atMost(DEADLINE).until(() -> flushCalls.get() >= 1);
        assertThat(futures).noneMatch(CompletableFuture::isDone);
        releaseFirst.countDown();

        await().atMost(DEADLINE).until(() -> futures.stream().allMatch(CompletableFuture::isDone));
        assertThat(completionOrder).containsExactly("first", "second", "bad-third", "fourth");
        assertThat(failureKind(futures.get(2))).isEqualTo(ErrorKind.INTERNAL_ERROR);
        assertThat(futures.get(3)).isCompleted().isNotCompletedExceptionally();
    }

    @Test
    void applierPoolCloseFailsQueuedCommits() {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch applying = new CountDownLatch(2);
        committer = CoalescingCommitter.applierPool("pool-test", 2, work -> {
            applying.countDown();
            awaitLatch(release);
        }, () -> { }, CoalescingCommitter.Outcomes.passThrough());
        committer.start();
        CompletableFuture<Void> a = committer.submit("a", true);
        CompletableFuture<Void> b = committer.submit("b", true);
        awaitLatch(applying);
        CompletableFuture<Void> queued = committer.submit("queued", true);

        Thread closer = new Thread(committer::close, "closer");
        closer.start();
        await().atMost(DEADLINE).until(() -> closer.getState() == Thread.State.WAITING);
        release.countDown();

        assertThat(a).succeedsWithin(DEADLINE);
        assertThat(b).succeedsWithin(DEADLINE);
        assertThat(failureKind(queued)).isEqualTo(ErrorKind.NOT_ACTIVE);
        await().atMost(DEADLINE).until(() -> !closer.isAlive());
    }
    @Test
    void batchingPoolCommitsWhatQueuedMeanwhileAsOneTransactionAndKeepsRemovalsApart() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch firstApplying = new CountDownLatch(1);
        List<List<String>> transactions = java.util.Collections.synchronizedList(new ArrayList<>());
        committer = CoalescingCommitter.applierPool("batch-test", 1, 16, batch -> {
            if (batch.contains("first")) {
                firstApplying.countDown();
                awaitLatch(releaseFirst); // e.g. waiting for a replica's acknowledgement
            }
            transactions.add(List.copyOf(batch));
        }, flushCalls::incrementAndGet, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> first = committer.submit("first", true);
        awaitLatch(firstApplying);
        List<CompletableFuture<Void>> queued = new ArrayList<>();
        for (String work : List.of("a", "b", "c")) {
            queued.add(committer.submit(work, true));
        }
        CompletableFuture<Void> removal1 = committer.submitUnordered("r1");
        CompletableFuture<Void> removal2 = committer.submitUnordered("r2");
        releaseFirst.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        queued.forEach(future -> assertThat(future).succeedsWithin(DEADLINE));
        assertThat(removal1).succeedsWithin(DEADLINE);
        assertThat(removal2).succeedsWithin(DEADLINE);
        assertThat(transactions).containsExactlyInAnyOrder(List.of("first"), List.of("a", "b", "c"),
                List.of("r1", "r2"));
        assertThat(committer.stats().transactions()).isEqualTo(3);
        assertThat(committer.stats().commits()).isEqualTo(6);
    }

    @Test
    void batchingPoolNeverPutsMoreThanMaxBatchSubmissionsInOneTransaction() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch firstApplying = new CountDownLatch(1);
        List<Integer> sizes = java.util.Collections.synchronizedList(new ArrayList<>());
        committer = CoalescingCommitter.applierPool("batch-test", 1, 3, batch -> {
            if (batch.contains("first")) {
                firstApplying.countDown();
                awaitLatch(releaseFirst);
            }
            sizes.add(batch.size());
        }, () -> { }, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        List<CompletableFuture<Void>> futures = new ArrayList<>();
        futures.add(committer.submit("first", true));
        awaitLatch(firstApplying);
        for (int i = 1; i <= 7; i++) {
            futures.add(committer.submit("m" + i, true));
        }
        releaseFirst.countDown();

        futures.forEach(future -> assertThat(future).succeedsWithin(DEADLINE));
        assertThat(sizes).containsExactly(1, 3, 3, 1);
    }

    @Test
    void aBatchThatFailsFailsEveryCommitInItAndTheNextBatchStillCommits() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch firstApplying = new CountDownLatch(1);
        committer = CoalescingCommitter.applierPool("batch-test", 1, 16, batch -> {
            if (batch.contains("first")) {
                firstApplying.countDown();
                awaitLatch(releaseFirst);
            }
            if (batch.stream().anyMatch(work -> work.startsWith("bad"))) {
                throw new IllegalStateException("disk full");
            }
        }, () -> { }, wrapping());
        committer.start();

        CompletableFuture<Void> first = committer.submit("first", true);
        awaitLatch(firstApplying);
        CompletableFuture<Void> before = committer.submit("innocent", true);
        CompletableFuture<Void> bad = committer.submit("bad", true);
        releaseFirst.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        assertThat(failureKind(before)).isEqualTo(ErrorKind.INTERNAL_ERROR);
        assertThat(failureKind(bad)).isEqualTo(ErrorKind.INTERNAL_ERROR);
        assertThat(committer.submit("later", true)).succeedsWithin(DEADLINE);
    }
    /**
     * A fake log: appliers move its end, flushes make everything up to the end seen at their start durable. The
     * first flush runs {@code firstFlush} (to hold it, or to fail it by throwing).
     */
    private final class FakeLog implements CoalescingCommitter.FlushableLog {
        private final java.util.concurrent.atomic.AtomicLong end = new java.util.concurrent.atomic.AtomicLong(-1);
        private final Runnable firstFlush;

        FakeLog() {
            this(() -> { });
        }

        FakeLog(Runnable firstFlush) {
            this.firstFlush = firstFlush;
        }

        long append() {
            return end.incrementAndGet();
        }

        @Override
        public long end() {
            return end.get();
        }

        @Override
        public void flush() {
            if (flushCalls.incrementAndGet() == 1) {
                firstFlush.run();
            }
        }
    }

    @Test
    void aFlushForAnotherCommitThatRanWhileAnApplierWaitedForAcknowledgementsMakesItsCommitDurable() {
        FakeLog log = new FakeLog();
        CountDownLatch slowLogged = new CountDownLatch(1);
        CountDownLatch acknowledged = new CountDownLatch(1);
        committer = CoalescingCommitter.positionedApplierPool("pos-test", 2, 1, (batch, logged) -> {
            long position = log.append(); // the commit record is in the log ...
            if (batch.contains("slow")) {
                slowLogged.countDown();
                awaitLatch(acknowledged); // ... and this applier waits for the replicas
            }
            return position;
        }, log, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> slow = committer.submit("slow", true);
        awaitLatch(slowLogged);
        CompletableFuture<Void> fast = committer.submit("fast", true); // logged after "slow", acknowledged at once
        await().atMost(DEADLINE).until(() -> flushCalls.get() == 1); // flushed for "fast", covering "slow" too
        assertThat(slow).isNotDone();
        assertThat(fast).isNotDone(); // completion keeps submission order
        acknowledged.countDown();

        assertThat(slow).succeedsWithin(DEADLINE);
        assertThat(fast).succeedsWithin(DEADLINE);
        assertThat(flushCalls.get()).isEqualTo(1);
        assertThat(committer.stats().earlyDurable()).isEqualTo(1);
        assertThat(committer.stats().largestBatch()).as("commits made durable by the one flush").isEqualTo(2);
    }

    @Test
    void withoutALoggedNoticeTheFlusherDoesNotFlushWhileAnApplierWaitsForAcknowledgements() {
        FakeLog log = new FakeLog();
        CountDownLatch logged = new CountDownLatch(1);
        CountDownLatch acknowledged = new CountDownLatch(1);
        committer = CoalescingCommitter.positionedApplierPool("pos-test", 1, 8, (batch, noticeNotGiven) -> {
            long position = log.append();
            logged.countDown();
            awaitLatch(acknowledged);
            return position;
        }, log, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> commit = committer.submit("m", true);
        awaitLatch(logged);
        assertThat(commit).isNotDone();
        assertThat(flushCalls.get()).isZero();
        acknowledged.countDown();

        assertThat(commit).succeedsWithin(DEADLINE);
        assertThat(flushCalls.get()).isEqualTo(1);
        assertThat(committer.stats().earlyDurable()).isZero();
    }

    @Test
    void aCommitWhoseRecordIsLoggedIsFlushedWhileItsApplierStillWaitsForAcknowledgements() {
        FakeLog log = new FakeLog();
        CountDownLatch acknowledged = new CountDownLatch(1);
        committer = CoalescingCommitter.positionedApplierPool("pos-test", 1, 8, (batch, logged) -> {
            long position = log.append();
            logged.accept(position); // the commit record is in the log; now the replicas are awaited
            awaitLatch(acknowledged);
            return position;
        }, log, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> commit = committer.submit("m", true);
        await().atMost(DEADLINE).until(() -> flushCalls.get() == 1); // the fsync runs during the wait ...
        assertThat(commit).as("not complete before its acknowledgements").isNotDone();
        acknowledged.countDown();

        assertThat(commit).succeedsWithin(DEADLINE); // ... and is not repeated after it
        assertThat(flushCalls.get()).isEqualTo(1);
        assertThat(committer.stats().earlyDurable()).isEqualTo(1);
        assertThat(committer.stats().largestBatch()).as("the flush that ran during the wait counts it").isEqualTo(1);
    }

    @Test
    void whenTheFlushStartedForALoggedCommitFailsTheCommitWaitsForAFlushThatSucceeds() {
        FakeLog firstFlushFails = new FakeLog(() -> {
            throw new IllegalStateException("disk hiccup");
        });
        CountDownLatch acknowledged = new CountDownLatch(1);
        committer = CoalescingCommitter.positionedApplierPool("pos-test", 1, 8, (batch, logged) -> {
            long position = firstFlushFails.append();
            logged.accept(position);
            awaitLatch(acknowledged);
            return position;
        }, firstFlushFails, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> commit = committer.submit("m", true);
        await().atMost(DEADLINE).until(() -> flushCalls.get() == 1);
        acknowledged.countDown();

        assertThat(commit).succeedsWithin(DEADLINE);
        assertThat(flushCalls.get()).isEqualTo(2);
        assertThat(committer.stats().earlyDurable()).isZero();
    }

    @Test
    void removalsNeverStartAFlush() {
        FakeLog log = new FakeLog();
        committer = CoalescingCommitter.positionedApplierPool("pos-test", 1, 8, (batch, logged) -> {
            long position = log.append();
            logged.accept(position);
            return position;
        }, log, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        assertThat(committer.submitUnordered("removal")).succeedsWithin(DEADLINE);
        assertThat(committer.submit("publish", true)).succeedsWithin(DEADLINE); // flushed, and after the removal

        assertThat(flushCalls.get()).as("one flush, for the publish").isEqualTo(1);
    }

    @Test
    void aCommitLoggedAfterTheLastFlushStartedWaitsForTheNextFlush() {
        CountDownLatch releaseFirstFlush = new CountDownLatch(1);
        CountDownLatch firstFlushRunning = new CountDownLatch(1);
        FakeLog log = new FakeLog(() -> {
            firstFlushRunning.countDown();
            awaitLatch(releaseFirstFlush);
        });
        committer = CoalescingCommitter.positionedApplierPool("pos-test", 2, 8, (batch, logged) -> log.append(),
                log, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> first = committer.submit("first", true);
        awaitLatch(firstFlushRunning);
        CompletableFuture<Void> second = committer.submit("second", true); // logged while the first flush runs
        await().atMost(DEADLINE).until(() -> log.end() == 1);
        releaseFirstFlush.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        assertThat(second).succeedsWithin(DEADLINE);
        assertThat(flushCalls.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void withoutPositionsEveryCommitWaitsForAFlushThatStartsAfterIt() {
        CountDownLatch acknowledged = new CountDownLatch(1);
        committer = CoalescingCommitter.positionedApplierPool("pos-test", 1, 8, (batch, logged) -> {
            awaitLatch(acknowledged);
            return CoalescingCommitter.NO_POSITION;
        }, new CoalescingCommitter.FlushableLog() {
            @Override
            public long end() {
                return CoalescingCommitter.NO_POSITION;
            }

            @Override
            public void flush() {
                flushCalls.incrementAndGet();
            }
        }, CoalescingCommitter.Outcomes.passThrough());
        committer.start();

        CompletableFuture<Void> commit = committer.submit("m", true);
        acknowledged.countDown();

        assertThat(commit).succeedsWithin(DEADLINE);
        assertThat(flushCalls.get()).isEqualTo(1);
        assertThat(committer.stats().earlyDurable()).isZero();
    }
}
