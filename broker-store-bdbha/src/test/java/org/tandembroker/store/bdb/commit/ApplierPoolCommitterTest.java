package org.tandembroker.store.bdb.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/** The replicated store's committer: concurrent appliers, batches, completion order and flushes that overlap. */
class ApplierPoolCommitterTest extends CommitterFixture {

    /** An applier that commits one submission per transaction and knows no log positions. */
    private static BatchApplier<String> eachAlone(Consumer<String> applier) {
        return (batch, logged) -> {
            applier.accept(batch.get(0));
            return CoalescingCommitter.NO_POSITION;
        };
    }

    /** An applier that commits a batch and knows no log positions. */
    private static BatchApplier<String> unpositioned(Consumer<List<String>> applier) {
        return (batch, logged) -> {
            applier.accept(batch);
            return CoalescingCommitter.NO_POSITION;
        };
    }

    /** A log that only flushes (its end is unknown). */
    private static FlushableLog flushing(Runnable flush) {
        return FlushableLog.of(() -> CoalescingCommitter.NO_POSITION, flush);
    }

    @Test
    void applierPoolAppliesConcurrentlyAndSharesFlushes() {
        CountDownLatch fourApplying = new CountDownLatch(4);
        committer = CoalescingCommitter.applierPool("pool-test", 4, 1, eachAlone(work -> {
            apply(work);
            if (work.startsWith("c")) {
                fourApplying.countDown();
                awaitLatch(fourApplying); // only returns once four appliers run at the same time
            }
        }), flushing(this::blockingFirstFlush), CommitOutcomes.passThrough());
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
    void aCommitThatWaitsForAFlushCompletesOnTheFlusherAndOnesThatNeedNoFlushOnTheirApplier() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        committer = CoalescingCommitter.applierPool("pool-test", 2, 1, eachAlone(work -> // each waits until the
                awaitLatch(work.equals("n") ? releaseFirst : release)), // test has asked where it completes
                flushing(() -> { }), CommitOutcomes.passThrough());
        committer.start();

        CompletableFuture<String> notFlushedOn = committer.submit("n", false)
                .thenApply(v -> Thread.currentThread().getName());
        releaseFirst.countDown();
        // Done before the next is submitted: a flushed commit whose predecessor is still on its way completes
        // with that predecessor, on whichever thread completes the predecessor (submission order).
        assertThat(notFlushedOn).succeedsWithin(DEADLINE).asString().startsWith("pool-test-applier-");
        CompletableFuture<String> flushedOn = committer.submit("m", true)
                .thenApply(v -> Thread.currentThread().getName());
        CompletableFuture<String> removedOn = committer.submitUnordered("r")
                .thenApply(v -> Thread.currentThread().getName());
        release.countDown();

        assertThat(flushedOn).succeedsWithin(DEADLINE).isEqualTo("pool-test-flusher");
        assertThat(removedOn).succeedsWithin(DEADLINE).asString().startsWith("pool-test-applier-");
    }

    @Test
    void applierPoolCompletesInSubmissionOrderWhenALaterCommitIsAppliedFirst() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch laterApplied = new CountDownLatch(3);
        List<String> completionOrder = java.util.Collections.synchronizedList(new ArrayList<>());
        committer = CoalescingCommitter.applierPool("pool-test", 4, 1, eachAlone(work -> {
            if (work.equals("first")) {
                awaitLatch(releaseFirst); // e.g. waiting for a replica's acknowledgement
            } else if (work.startsWith("bad")) {
                laterApplied.countDown();
                throw new IllegalStateException("cannot apply " + work);
            } else {
                laterApplied.countDown();
            }
        }), flushing(flushCalls::incrementAndGet), wrapping());
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
        committer = CoalescingCommitter.applierPool("pool-test", 2, 1, eachAlone(work -> {
            applying.countDown();
            awaitLatch(release);
        }), flushing(() -> { }), CommitOutcomes.passThrough());
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
        committer = CoalescingCommitter.applierPool("batch-test", 1, 16, unpositioned(batch -> {
            if (batch.contains("first")) {
                firstApplying.countDown();
                awaitLatch(releaseFirst); // e.g. waiting for a replica's acknowledgement
            }
            transactions.add(List.copyOf(batch));
        }), flushing(flushCalls::incrementAndGet), CommitOutcomes.passThrough());
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
    void whileOneDataTransactionWaitsTheNextGathersAndASecondStartsAlongsideOnlyOnceAFullBatchWaits() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch firstApplying = new CountDownLatch(1);
        List<List<String>> transactions = java.util.Collections.synchronizedList(new ArrayList<>());
        committer = CoalescingCommitter.applierPool("admission-test", 4, 3, unpositioned(batch -> {
            if (batch.contains("first")) {
                firstApplying.countDown();
                awaitLatch(releaseFirst); // e.g. waiting for a replica's acknowledgement
            }
            transactions.add(List.copyOf(batch));
        }), flushing(() -> { }), CommitOutcomes.passThrough());
        committer.start();

        List<CompletableFuture<Void>> futures = new ArrayList<>();
        futures.add(committer.submit("first", true));
        awaitLatch(firstApplying);
        for (String work : List.of("a", "b", "c")) { // three appliers are idle; the third submission fills a batch
            futures.add(committer.submit(work, true));
        }
        await().atMost(DEADLINE).until(() -> transactions.contains(List.of("a", "b", "c")));
        futures.add(committer.submit("d", true)); // two waiting: no full batch, "first" still committing
        futures.add(committer.submit("e", true));
        assertThat(committer.submitUnordered("removal")).as("removals wait for no data commit")
                .succeedsWithin(DEADLINE);
        releaseFirst.countDown();

        futures.forEach(future -> assertThat(future).succeedsWithin(DEADLINE));
        assertThat(transactions).containsExactly(List.of("a", "b", "c"), List.of("removal"), List.of("first"),
                List.of("d", "e"));
        assertThat(committer.stats().transactions()).isEqualTo(4);
    }

    @Test
    void commitsThatSyncByThemselvesOverlapWheneverOneWaits() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch firstApplying = new CountDownLatch(1);
        List<List<String>> transactions = java.util.Collections.synchronizedList(new ArrayList<>());
        committer = CoalescingCommitter.applierPool("overlap-test", 4, 64, 1, unpositioned(batch -> {
            if (batch.contains("first")) {
                firstApplying.countDown();
                awaitLatch(releaseFirst); // e.g. its fsync and the replica's
            }
            transactions.add(List.copyOf(batch));
        }), flushing(() -> { }), CommitOutcomes.passThrough());
        committer.start();

        CompletableFuture<Void> first = committer.submit("first", false);
        awaitLatch(firstApplying);
        CompletableFuture<Void> second = committer.submit("second", false);
        await().atMost(DEADLINE).until(() -> transactions.contains(List.of("second"))); // alongside the first
        assertThat(second).as("completes in submission order").isNotDone();
        releaseFirst.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        assertThat(second).succeedsWithin(DEADLINE);
        assertThat(transactions).containsExactly(List.of("second"), List.of("first"));
    }

    @Test
    void batchingPoolNeverPutsMoreThanMaxBatchSubmissionsInOneTransaction() {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch firstApplying = new CountDownLatch(1);
        List<Integer> sizes = java.util.Collections.synchronizedList(new ArrayList<>());
        committer = CoalescingCommitter.applierPool("batch-test", 1, 3, unpositioned(batch -> {
            if (batch.contains("first")) {
                firstApplying.countDown();
                awaitLatch(releaseFirst);
            }
            sizes.add(batch.size());
        }), flushing(() -> { }), CommitOutcomes.passThrough());
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
        committer = CoalescingCommitter.applierPool("batch-test", 1, 16, unpositioned(batch -> {
            if (batch.contains("first")) {
                firstApplying.countDown();
                awaitLatch(releaseFirst);
            }
            if (batch.stream().anyMatch(work -> work.startsWith("bad"))) {
                throw new IllegalStateException("disk full");
            }
        }), flushing(() -> { }), wrapping());
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
    private class FakeLog implements FlushableLog {
        private final AtomicLong end = new AtomicLong(-1);
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
        committer = CoalescingCommitter.applierPool("pos-test", 2, 1, (batch, logged) -> {
            long position = log.append(); // the commit record is in the log ...
            if (batch.contains("slow")) {
                slowLogged.countDown();
                awaitLatch(acknowledged); // ... and this applier waits for the replicas
            }
            return position;
        }, log, CommitOutcomes.passThrough());
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
        committer = CoalescingCommitter.applierPool("pos-test", 1, 8, (batch, noticeNotGiven) -> {
            long position = log.append();
            logged.countDown();
            awaitLatch(acknowledged);
            return position;
        }, log, CommitOutcomes.passThrough());
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
        committer = CoalescingCommitter.applierPool("pos-test", 1, 8, (batch, logged) -> {
            long position = log.append();
            logged.accept(position); // the commit record is in the log; now the replicas are awaited
            awaitLatch(acknowledged);
            return position;
        }, log, CommitOutcomes.passThrough());
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
    void aCommitThatAnEarlyFlushCoveredCompletesOnItsApplierWithoutWaitingForTheFlusher() {
        FakeLog log = new FakeLog();
        CountDownLatch acknowledged = new CountDownLatch(1);
        committer = CoalescingCommitter.applierPool("pos-test", 1, 8, (batch, logged) -> {
            long position = log.append();
            logged.accept(position);
            awaitLatch(acknowledged);
            return position;
        }, log, CommitOutcomes.passThrough());
        committer.start();

        CompletableFuture<String> completedOn = committer.submit("m", true)
                .thenApply(v -> Thread.currentThread().getName());
        await().atMost(DEADLINE).until(() -> flushCalls.get() == 1); // durable during the wait
        acknowledged.countDown();

        assertThat(completedOn).succeedsWithin(DEADLINE).isEqualTo("pos-test-applier-1");
        assertThat(committer.stats().earlyDurable()).isEqualTo(1);
        assertThat(committer.stats().commits()).isEqualTo(1);
    }

    @Test
    void anEarlyFlushStartsNoSoonerThanTwiceThePreviousFlushsDurationAfterItStarted() {
        long firstFlushMillis = 300;
        List<Long> flushStarts = new java.util.concurrent.CopyOnWriteArrayList<>();
        FakeLog log = new FakeLog(() -> sleep(firstFlushMillis)) {
            @Override
            public void flush() {
                flushStarts.add(System.nanoTime());
                super.flush();
            }
        };
        CountDownLatch acknowledged = new CountDownLatch(1);
        committer = CoalescingCommitter.applierPool("pos-test", 2, 1, (batch, logged) -> {
            long position = log.append();
            logged.accept(position); // both commits are logged, then wait for the replicas
            awaitLatch(acknowledged);
            return position;
        }, log, CommitOutcomes.passThrough());
        committer.start();

        CompletableFuture<Void> first = committer.submit("first", true);
        await().atMost(DEADLINE).until(() -> flushStarts.size() == 1);
        CompletableFuture<Void> second = committer.submit("second", true); // logged during or after the first flush
        await().atMost(DEADLINE).until(() -> flushStarts.size() == 2); // its early flush, paced
        acknowledged.countDown();

        assertThat(first).succeedsWithin(DEADLINE);
        assertThat(second).succeedsWithin(DEADLINE);
        assertThat(flushStarts.get(1) - flushStarts.get(0)).as("nanoseconds between the two flushes' starts")
                .isGreaterThanOrEqualTo(2 * firstFlushMillis * 1_000_000);
        assertThat(flushCalls.get()).as("both commits were durable before their acknowledgements").isEqualTo(2);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void whenTheFlushStartedForALoggedCommitFailsTheCommitWaitsForAFlushThatSucceeds() {
        FakeLog firstFlushFails = new FakeLog(() -> {
            throw new IllegalStateException("disk hiccup");
        });
        CountDownLatch acknowledged = new CountDownLatch(1);
        committer = CoalescingCommitter.applierPool("pos-test", 1, 8, (batch, logged) -> {
            long position = firstFlushFails.append();
            logged.accept(position);
            awaitLatch(acknowledged);
            return position;
        }, firstFlushFails, CommitOutcomes.passThrough());
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
        committer = CoalescingCommitter.applierPool("pos-test", 1, 8, (batch, logged) -> {
            long position = log.append();
            logged.accept(position);
            return position;
        }, log, CommitOutcomes.passThrough());
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
        committer = CoalescingCommitter.applierPool("pos-test", 2, 8, (batch, logged) -> log.append(),
                log, CommitOutcomes.passThrough());
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
        committer = CoalescingCommitter.applierPool("pos-test", 1, 8, (batch, logged) -> {
            awaitLatch(acknowledged);
            return CoalescingCommitter.NO_POSITION;
        }, new FlushableLog() {
            @Override
            public long end() {
                return CoalescingCommitter.NO_POSITION;
            }

            @Override
            public void flush() {
                flushCalls.incrementAndGet();
            }
        }, CommitOutcomes.passThrough());
        committer.start();

        CompletableFuture<Void> commit = committer.submit("m", true);
        acknowledged.countDown();

        assertThat(commit).succeedsWithin(DEADLINE);
        assertThat(flushCalls.get()).isEqualTo(1);
        assertThat(committer.stats().earlyDurable()).isZero();
    }
}
