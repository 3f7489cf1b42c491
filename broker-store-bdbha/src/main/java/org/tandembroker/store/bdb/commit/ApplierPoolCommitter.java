package org.tandembroker.store.bdb.commit;

import static org.tandembroker.store.bdb.commit.CoalescingCommitter.NO_POSITION;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.exec.OwningThread;
import org.tandembroker.core.exec.Uninterruptibly;
import org.tandembroker.store.bdb.commit.SubmissionQueue.Submission;

/**
 * The replicated store's committer: appliers commit batches (each may block for a whole acknowledgement round trip),
 * ordered ones one batch at a time unless a full batch waits ({@link SubmissionQueue}'s admission), and one flusher
 * makes them durable. Ordered futures complete in submission order ({@link ReorderBuffer}). A flush starts as soon
 * as an applier reports its commit record logged (paced under load, see {@link #runFlusher}), so the fsync overlaps the
 * acknowledgement wait; a commit that such a flush already covered needs no flush of its own, and its applier
 * completes it without waking the flusher.
 *
 * <p><b>Threads.</b> {@code <threadName>-applier-<n>} take submissions and commit them; unordered futures complete
 * on their applier, and so do ordered ones that need no flush (already covered, not requiring one, or failed). The
 * others go to {@code <threadName>-flusher}, which owns flushing and publishes the durable position. Whichever thread
 * completes ordered futures does so holding {@code completing}, which guards the reorder buffer. Other threads only
 * submit, read {@link #stats()} and {@link #close()}.
 */
final class ApplierPoolCommitter<T> implements CoalescingCommitter<T> {
    /** Commits that need no flush of the committer's (removals, commits that sync by themselves). */
    private static final LongConsumer NOT_WATCHED = position -> { };

    /**
     * An applied (or failed) ordered submission on its way to the flusher; {@code failure} null on success;
     * {@code position} where its commit record is in the log, or {@link #NO_POSITION}. With no submission, a
     * notice that a commit record reached the log at {@code position} while its commit still waits.
     */
    private record Outcome<T>(Submission<T> submission, Throwable failure, long position) {
        static <T> Outcome<T> logged(long position) {
            return new Outcome<>(null, null, position);
        }

        /** A notice has a position; the end marker, the other outcome without a submission, has none. */
        boolean isLoggedNotice() {
            return submission == null && position != NO_POSITION;
        }

        boolean awaitsFlush() {
            return failure == null && submission.flushRequired();
        }
    }

    private final String threadName;
    private final int appliers;
    /** The most submissions an applier commits in one transaction (1: one transaction each). */
    private final int maxBatch;
    private final BatchApplier<T> applier;
    private final FlushableLog log;
    private final CommitOutcomes outcomes;
    private final CommitCounters counters = new CommitCounters();
    private final SubmissionQueue<T> submitted;
    /** Ordered submissions applied or failed, waiting for the flusher. */
    private final BlockingQueue<Outcome<T>> applied = new LinkedBlockingQueue<>();
    private final Outcome<T> endOfOutcomes = new Outcome<>(null, null, NO_POSITION);
    private final OwningThread flusher;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger liveAppliers = new AtomicInteger();
    private volatile List<Thread> threads = List.of();

    /** Held while ordered outcomes are handed to the reorder buffer and released from it, on any committer thread. */
    private final ReentrantLock completing = new ReentrantLock();
    private final ReorderBuffer<Outcome<T>> completionOrder = new ReorderBuffer<>();
    private final RecentFlushes recentFlushes = new RecentFlushes();
    /** The log position covered by the last successful flush; written by the flusher only. */
    private volatile long durable = NO_POSITION;

    // Flusher thread only.
    /** The highest position of a logged notice so far. */
    private long highestLogged = NO_POSITION;
    /** When the last flush started and how long it took (System.nanoTime). */
    private long lastFlushStart = System.nanoTime();
    private long lastFlushNanos;

    ApplierPoolCommitter(String threadName, int appliers, int maxBatch, int overlapAt, BatchApplier<T> applier,
                         FlushableLog log, CommitOutcomes outcomes) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.appliers = appliers;
        this.maxBatch = maxBatch;
        this.applier = Objects.requireNonNull(applier, "applier");
        this.log = Objects.requireNonNull(log, "log");
        this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
        this.submitted = new SubmissionQueue<>(threadName, counters, maxBatch, overlapAt);
        this.flusher = new OwningThread(threadName + "-flusher");
    }

    @Override
    public void start() {
        if (closed.get() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException(threadName + " already started or closed");
        }
        liveAppliers.set(appliers);
        Thread flusherThread = NamedThreadFactory.daemonThread(threadName + "-flusher", flusher::adopt)
                .newThread(this::runFlusher);
        flusherThread.start();
        NamedThreadFactory applierThreads = new NamedThreadFactory(threadName + "-applier", true);
        List<Thread> created = new ArrayList<>();
        for (int i = 1; i <= appliers; i++) {
            created.add(applierThreads.newThread(this::runApplier));
        }
        List<Thread> all = new ArrayList<>(created);
        all.add(flusherThread);
        threads = List.copyOf(all);
        created.forEach(Thread::start);
    }

    @Override
    public CompletableFuture<Void> submit(T work, boolean flushRequired) {
        return submitted.add(work, flushRequired, completionOrder.nextSequence());
    }

    @Override
    public CompletableFuture<Void> submitUnordered(T work) {
        return submitted.add(work, false, Submission.UNORDERED);
    }

    @Override
    public boolean runsOn(Thread thread) {
        return threads.contains(thread);
    }

    @Override
    public CommitterStats stats() {
        return counters.stats(submitted.size());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        submitted.close();
        if (runsOn(Thread.currentThread())) {
            return;
        }
        if (started.get()) {
            threads.forEach(Uninterruptibly::join); // the appliers, then the flusher
        }
        submitted.failRemaining();
        List<Outcome<T>> unfinished = new ArrayList<>();
        applied.drainTo(unfinished);
        unfinished.stream().filter(outcome -> outcome != endOfOutcomes && !outcome.isLoggedNotice())
                .forEach(outcome -> submitted.failClosed(outcome.submission().future()));
    }

    private void runApplier() {
        List<Submission<T>> taken = new ArrayList<>();
        List<Submission<T>> ordered = new ArrayList<>();
        List<Submission<T>> unordered = new ArrayList<>();
        List<Outcome<T>> coveredEarly = new ArrayList<>();
        List<Outcome<T>> needingNoFlush = new ArrayList<>();
        boolean stop = false;
        while (!stop) {
            submitted.takeBatch(taken);
            try {
                for (Submission<T> submission : taken) {
                    if (submitted.isEnd(submission)) {
                        stop = true;
                    } else {
                        (submission.ordered() ? ordered : unordered).add(submission);
                    }
                }
                taken.clear();
                applyUnordered(unordered);
                applyOrdered(ordered, coveredEarly, needingNoFlush);
            } finally {
                submitted.batchDone(!ordered.isEmpty()); // the next data batch may start
            }
            finish(coveredEarly, needingNoFlush);
            unordered.clear();
            ordered.clear();
            coveredEarly.clear();
            needingNoFlush.clear();
        }
        if (liveAppliers.decrementAndGet() == 0) {
            submitted.failRemaining();
            applied.add(endOfOutcomes); // the flusher stops once every applier has handed over its work
        }
    }

    /** On an applier: commits unordered submissions as one transaction and completes them here. */
    private void applyUnordered(List<Submission<T>> batch) {
        if (batch.isEmpty()) {
            return;
        }
        if (submitted.closing()) {
            batch.forEach(submission -> submitted.failClosed(submission.future()));
            return;
        }
        try {
            timedApply(works(batch), NOT_WATCHED);
        } catch (Throwable e) {
            Throwable failure = outcomes.failed(e);
            counters.failed(batch.size());
            batch.forEach(submission -> submission.future().completeExceptionally(failure));
            return;
        }
        counters.transactionCommitted();
        outcomes.succeeded();
        counters.committed(batch.size());
        batch.forEach(submission -> submission.future().complete(null));
    }

    /**
     * On an applier: commits ordered submissions as one transaction. Outcomes that a flush already covered go to
     * {@code coveredEarly}, those that need no flush (not requiring one, or failed) to {@code needingNoFlush}, for
     * this applier to complete; the flusher gets the rest.
     */
    private void applyOrdered(List<Submission<T>> batch, List<Outcome<T>> coveredEarly,
                              List<Outcome<T>> needingNoFlush) {
        if (batch.isEmpty()) {
            return;
        }
        if (submitted.closing()) {
            batch.forEach(submission -> submitted.failClosed(submission.future()));
            return;
        }
        Throwable failure = null;
        long position = NO_POSITION;
        try {
            // Only a commit that will wait for a flush wants one started early (not one that syncs by itself).
            boolean flushAhead = batch.stream().anyMatch(Submission::flushRequired);
            position = timedApply(works(batch), flushAhead ? this::commitLogged : NOT_WATCHED);
            counters.transactionCommitted();
        } catch (Throwable e) {
            failure = outcomes.failed(e);
        }
        for (Submission<T> submission : batch) {
            sort(new Outcome<>(submission, failure, position), coveredEarly, needingNoFlush, applied);
        }
    }

    /**
     * On any committer thread: where a final ordered outcome goes: to {@code needingNoFlush} when it needs no flush
     * (not requiring one, or failed), to {@code coveredEarly} when a finished flush already covered its commit
     * record, otherwise to {@code awaitingFlush}.
     */
    private void sort(Outcome<T> outcome, List<Outcome<T>> coveredEarly, List<Outcome<T>> needingNoFlush,
                      Collection<Outcome<T>> awaitingFlush) {
        if (!outcome.awaitsFlush()) {
            needingNoFlush.add(outcome);
        } else if (coveredAlready(outcome)) {
            coveredEarly.add(outcome);
        } else {
            awaitingFlush.add(outcome);
        }
    }

    /** An applier's notice that an ordered commit's record is in the log (see {@link BatchApplier}). */
    private void commitLogged(long position) {
        if (position != NO_POSITION) {
            applied.add(Outcome.logged(position));
        }
    }

    private long timedApply(List<T> works, LongConsumer logged) {
        long start = System.nanoTime();
        try {
            return applier.apply(works, logged);
        } finally {
            counters.applyTook(System.nanoTime() - start);
        }
    }

    private static <T> List<T> works(List<Submission<T>> batch) {
        List<T> works = new ArrayList<>(batch.size());
        for (Submission<T> submission : batch) {
            works.add(submission.work());
        }
        return works;
    }

    /**
     * Makes applied commits durable and completes their futures in submission order.
     *
     * <p>A commit whose record is at or below {@code durable} is durable already (a flush ran while its applier
     * still waited for replica acknowledgements) and needs no flush of its own: its applier completes it, and the
     * flusher sees it only when a flush ended after the applier looked. The others (their acknowledgements
     * arrived) wait for the next flush, which starts at once. A logged notice above {@code durable} starts an
     * <em>early</em> flush, so that the fsync overlaps the acknowledgement round trip; notices that arrive during a
     * flush are served by one flush after it.
     *
     * <p>An early flush is paced: it starts no sooner after the previous flush started than twice that flush's
     * duration, so early flushes keep the disk busy at most half the time. With a few publishers that is no delay
     * at all (the last flush is long past); under load, back-to-back fsyncs each covered the few commits logged
     * during the previous one, and an fsync costs the master about as much CPU as a few messages. A commit whose
     * acknowledgement arrives first never waits for the pace. Otherwise the flusher sleeps: it never polls.
     */
    private void runFlusher() {
        List<Outcome<T>> batch = new ArrayList<>();
        List<Outcome<T>> awaiting = new ArrayList<>();
        List<Outcome<T>> coveredEarly = new ArrayList<>();
        List<Outcome<T>> finished = new ArrayList<>();
        boolean stop = false;
        while (!stop) {
            Outcome<T> next = highestLogged > durable ? pollUntil(earlyFlushDue()) : takeNext();
            if (next != null) {
                batch.add(next);
                applied.drainTo(batch);
            }
            stop = batch.removeIf(outcome -> outcome == endOfOutcomes);
            for (Outcome<T> outcome : batch) {
                if (outcome.isLoggedNotice()) {
                    highestLogged = Math.max(highestLogged, outcome.position());
                } else {
                    sort(outcome, coveredEarly, finished, awaiting);
                }
            }
            batch.clear();
            if (!awaiting.isEmpty() || (highestLogged > durable && System.nanoTime() - earlyFlushDue() >= 0)) {
                flush(awaiting, finished);
                awaiting.clear();
            }
            finish(coveredEarly, finished);
            coveredEarly.clear();
            finished.clear();
        }
        // Closing: the numbers still missing were failed by close() itself; complete the rest in order.
        completing.lock();
        try {
            completionOrder.releaseRemaining(this::complete);
        } finally {
            completing.unlock();
        }
    }

    /**
     * On any committer thread: holds these final outcomes for their turn and completes, in submission order, every
     * future whose turn has come; a commit in {@code coveredEarly} counts for the flush that covered it.
     */
    private void finish(List<Outcome<T>> coveredEarly, List<Outcome<T>> others) {
        if (coveredEarly.isEmpty() && others.isEmpty()) {
            return;
        }
        completing.lock();
        try {
            for (Outcome<T> outcome : coveredEarly) {
                counters.durableEarly(recentFlushes.countCovered(outcome.position()));
                completionOrder.finished(outcome.submission().sequence(), outcome);
            }
            for (Outcome<T> outcome : others) {
                completionOrder.finished(outcome.submission().sequence(), outcome);
            }
            completionOrder.releaseInOrder(this::complete);
        } finally {
            completing.unlock();
        }
    }

    /** When an early flush may start: twice the last flush's duration after it started. */
    private long earlyFlushDue() {
        return lastFlushStart + 2 * lastFlushNanos;
    }

    private Outcome<T> takeNext() {
        return SubmissionQueue.takeIgnoringInterrupts(applied);
    }

    /** The next outcome, or null once {@code deadline} (System.nanoTime) passed without one. */
    private Outcome<T> pollUntil(long deadline) {
        while (true) {
            long wait = deadline - System.nanoTime();
            if (wait <= 0) {
                return applied.poll();
            }
            try {
                return applied.poll(wait, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                // the flusher stops on the end marker only, as in takeNext
            }
        }
    }

    /**
     * Flushes; everything in {@code awaiting} had been applied before this flush started, so it is covered. Adds
     * their final outcomes to {@code finished}.
     */
    private void flush(List<Outcome<T>> awaiting, List<Outcome<T>> finished) {
        assert flusher.isCurrent() : flusher.violation();
        long end = log.end(); // read before flushing: everything up to it is durable afterwards
        Throwable failure = null;
        try {
            timedFlush();
            counters.flushed(awaiting.size());
            if (end != NO_POSITION) {
                long durableNow = Math.max(durable, end);
                recentFlushes.flushed(durableNow, awaiting.size()); // before an applier can find a commit covered
                durable = durableNow;
            }
        } catch (Throwable e) {
            // A failed flush made nothing durable; a commit whose notice started it waits for the next one, which
            // its acknowledgement or a later notice starts (no early flush is retried on its own).
            failure = outcomes.failed(e);
            highestLogged = durable;
        }
        for (Outcome<T> outcome : awaiting) {
            finished.add(failure == null ? outcome
                    : new Outcome<>(outcome.submission(), failure, outcome.position()));
        }
    }

    private void timedFlush() {
        long start = System.nanoTime();
        try {
            log.flush();
        } finally {
            long took = System.nanoTime() - start;
            counters.flushTook(took);
            lastFlushStart = start;
            lastFlushNanos = took;
        }
    }

    /** True when a finished flush already made {@code outcome}'s commit record durable (any committer thread). */
    private boolean coveredAlready(Outcome<T> outcome) {
        long durableNow = durable;
        return outcome.position() != NO_POSITION && durableNow != NO_POSITION && outcome.position() <= durableNow;
    }

    private void complete(Outcome<T> outcome) {
        assert completing.isHeldByCurrentThread() : "ordered futures complete holding the completion lock";
        if (outcome.failure() != null) {
            counters.failed(1);
            outcome.submission().future().completeExceptionally(outcome.failure());
        } else {
            outcomes.succeeded();
            counters.committed(1);
            outcome.submission().future().complete(null);
        }
    }

    /**
     * The last flushes and how many commits each made durable, so that a commit found covered when its
     * transaction returns counts for the flush that covered it (the first whose end is at or beyond its record),
     * not only the commits that waited for a flush. The flusher adds, any committer thread counts: guarded by
     * its own monitor.
     */
    private static final class RecentFlushes {
        private static final int KEPT = 64;
        private final ArrayDeque<long[]> endAndCount = new ArrayDeque<>();

        synchronized void flushed(long end, int commitsWaiting) {
            if (endAndCount.size() == KEPT) {
                endAndCount.removeFirst();
            }
            endAndCount.addLast(new long[] {end, commitsWaiting});
        }

        /** Counts a commit for the flush that covered {@code position}; returns that flush's count (0: unknown). */
        synchronized long countCovered(long position) {
            long[] covering = null;
            for (Iterator<long[]> newestFirst = endAndCount.descendingIterator(); newestFirst.hasNext(); ) {
                long[] flush = newestFirst.next();
                if (flush[0] < position) {
                    break;
                }
                covering = flush;
            }
            return covering == null ? 0 : ++covering[1];
        }
    }
}
