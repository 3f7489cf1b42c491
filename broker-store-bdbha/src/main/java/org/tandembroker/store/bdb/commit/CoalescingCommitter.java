package org.tandembroker.store.bdb.commit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/**
 * Group commit ("coalescing sync"): commits are applied one by one without waiting for the disk, then one
 * fsync makes the whole batch durable, then the batch's futures complete. Commits that arrive while a flush runs
 * form the next batch, so the number of fsyncs follows the disk's speed, not the commit rate; there is no timer
 * and no batch threshold: a thread wakes when work arrives.
 *
 * <p>The JE-facing work sits behind three seams: an {@link Applier} (commit one unit of work as its own
 * transaction, e.g. with local {@code NO_SYNC}), a {@link LogFlusher} (e.g. {@code environment.flushLog(true)})
 * and {@link Outcomes} (translate failures, notice recoveries). A submission that needs no flush (e.g. a
 * consumer's removals, or every commit when the applier already syncs) completes as soon as it is applied.
 *
 * <p><b>Order of completion.</b> Futures of {@link #submit} complete in submission order: a later commit's future
 * never completes (normally or exceptionally) before an earlier one's, so a publisher whose messages are enqueued
 * in memory when their commits complete keeps its order. {@link #submitUnordered} opts out (a consumer's
 * removals, which must not wait behind slow commits). In single-thread mode the order is natural (one thread
 * applies in order, a flushed batch completes in order). In pool mode several appliers finish in any order
 * (one may wait seconds for replica acknowledgements while the next one is already acknowledged), so every
 * ordered submission takes a sequence number when submitted, and the flusher thread, which alone completes
 * ordered futures, holds finished ones back until every lower number has finished: completion is a reorder
 * buffer behind the appliers.
 *
 * <p><b>Threads.</b> {@link #singleThread}: one thread named {@code threadName} takes submissions, applies them,
 * flushes and completes every future; it owns the batch lists. {@link #applierPool}: {@code appliers} threads
 * named {@code <threadName>-applier-<n>} apply submissions concurrently (for commits that block, such as
 * replica acknowledgements) and hand every ordered outcome to one thread {@code <threadName>-flusher}, which owns
 * flushing, the reorder buffer and completing ordered futures; unordered ones complete on their applier.
 * Futures complete on these threads, never on a caller's: a dependent stage that
 * is slow must use an {@code *Async} variant. Other threads only call {@link #submit}, {@link #stats} and
 * {@link #close}; the counters are atomics. No thread is ever interrupted: JE invalidates an environment whose
 * thread is interrupted during I/O, so {@link #close()} wakes the threads with a poison pill.
 *
 * @param <T> a unit of work (one transaction's changes)
 */
public final class CoalescingCommitter<T> implements AutoCloseable {

    /** Commits one unit of work as its own transaction; throws when it did not commit. */
    @FunctionalInterface
    public interface Applier<T> {
        void apply(T work);
    }

    /**
     * Commits several units of work as ONE transaction (all or none); throws when it did not commit. One
     * transaction per batch instead of one per unit is what makes a replicated commit cheap: one commit record,
     * one replication message, one replay and one acknowledgement for the whole batch.
     */
    @FunctionalInterface
    public interface BatchApplier<T> {
        void apply(List<T> work);
    }

    /** A log position (e.g. a JE LSN) that orders log writes; {@link #NO_POSITION} when unknown. */
    public static final long NO_POSITION = -1;

    /**
     * Commits several units of work as one transaction and tells where its commit record is in the log
     * ({@link #NO_POSITION} when unknown: the commit then waits for a flush that starts after it was applied).
     *
     * <p>{@code logged} may be told that position as soon as the commit record is in the log while the commit
     * still waits (for replica acknowledgements): the flusher then starts a flush at once, so the fsync runs during
     * that wait instead of after it. Called at most once, on the applier's thread; it never blocks.
     */
    @FunctionalInterface
    public interface PositionedApplier<T> {
        long apply(List<T> work, LongConsumer logged);
    }

    /**
     * The log that a flush makes durable. {@link #end()} is the position of the last record written so far: every
     * record at or below the value it returns is made durable by a {@link #flush()} that starts afterwards.
     */
    public interface FlushableLog {
        long end();

        void flush();
    }

    /** Makes every transaction applied so far durable (one fsync); throws when that failed. */
    @FunctionalInterface
    public interface LogFlusher {
        void flush();
    }

    /** Observes outcomes on the committer's threads (several at once in pool mode). */
    public interface Outcomes {
        /** A commit or a flushed batch succeeded. */
        void succeeded();

        /** A commit or flush failed with {@code cause}; returns what the affected futures fail with. */
        Throwable failed(Throwable cause);

        /** Failures reach the futures unchanged. */
        static Outcomes passThrough() {
            return new Outcomes() {
                @Override
                public void succeeded() {
                }

                @Override
                public Throwable failed(Throwable cause) {
                    return cause;
                }
            };
        }
    }

    /** {@code sequence} orders completion in pool mode; {@link #UNORDERED} for {@link #submitUnordered}. */
    private record Pending<T>(T work, boolean flushRequired, long sequence, CompletableFuture<Void> future) {
        boolean ordered() {
            return sequence != UNORDERED;
        }
    }

    /**
     * An applied (or failed) ordered submission on its way to the flusher; {@code failure} null on success;
     * {@code position} where its commit record is in the log, or {@link #NO_POSITION}. With no {@code pending}, a
     * notice that a commit record reached the log at {@code position} while its commit still waits
     * ({@link PositionedApplier}).
     */
    private record Outcome<T>(Pending<T> pending, Throwable failure, long position) {
        static <T> Outcome<T> logged(long position) {
            return new Outcome<>(null, null, position);
        }

        /** A notice has a position; the poison pill, the other outcome without a submission, has none. */
        boolean isLoggedNotice() {
            return pending == null && position != NO_POSITION;
        }

        boolean awaitsFlush() {
            return failure == null && pending.flushRequired();
        }
    }

    private static final long UNORDERED = -1;
    /** Commits that need no flush of the committer's (removals, commits that sync by themselves). */
    private static final LongConsumer NOT_WATCHED = position -> { };


    private final String threadName;
    private final int appliers;
    /** Pool mode: the most submissions an applier commits in one transaction (1: one transaction each). */
    private final int maxBatch;
    private final PositionedApplier<T> applier;
    private final FlushableLog log;
    private final Outcomes outcomes;
    private final BlockingQueue<Pending<T>> submitted = new LinkedBlockingQueue<>();
    /** Pool mode only: ordered submissions applied or failed, waiting for the flusher. */
    private final BlockingQueue<Outcome<T>> applied = new LinkedBlockingQueue<>();
    private final Pending<T> poison = new Pending<>(null, false, UNORDERED, null);
    private final Outcome<T> poisonOutcome = new Outcome<>(null, null, NO_POSITION);

    /** Pool mode: the next sequence number of an ordered submission. */
    private final AtomicLong nextSequence = new AtomicLong();
    /** Written once by {@link #start()}; read by any thread (volatile publication). */
    private volatile List<Thread> applierThreads = List.of();
    private final Thread flusherThread;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger liveAppliers = new AtomicInteger();
    private volatile boolean closing;

    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong flushedCommits = new AtomicLong();
    private final AtomicLong largestBatch = new AtomicLong();
    /** Transactions committed (fewer than the submissions they carried when batched). */
    private final AtomicLong transactions = new AtomicLong();
    /** Time spent in the applier (commits, including replica acknowledgement waits) and in flushes. */
    private final AtomicLong applyNanos = new AtomicLong();
    private final AtomicLong flushNanos = new AtomicLong();
    /** Pool mode: commits found durable when their applier returned (a flush overlapped their ack wait). */
    private final AtomicLong earlyDurable = new AtomicLong();

    private CoalescingCommitter(String threadName, int appliers, int maxBatch, boolean separateFlusher,
                                PositionedApplier<T> applier, FlushableLog log, Outcomes outcomes) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.flusherThread = separateFlusher ? new Thread(this::runFlusher, threadName + "-flusher") : null;
        this.appliers = appliers;
        this.maxBatch = maxBatch;
        this.applier = Objects.requireNonNull(applier, "applier");
        this.log = Objects.requireNonNull(log, "log");
        this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
    }

    /** One thread applies, flushes and completes (the standalone store). */
    public static <T> CoalescingCommitter<T> singleThread(String threadName, Applier<T> applier, LogFlusher flusher,
                                                          Outcomes outcomes) {
        Objects.requireNonNull(applier, "applier");
        return new CoalescingCommitter<>(threadName, 1, 1, false, unpositioned(work -> applier.apply(work.get(0))),
                unpositioned(flusher), outcomes);
    }

    /**
     * {@code appliers} threads apply concurrently and one flusher thread flushes and completes (for appliers that
     * block, e.g. on replica acknowledgements).
     */
    public static <T> CoalescingCommitter<T> applierPool(String threadName, int appliers, Applier<T> applier,
                                                         LogFlusher flusher, Outcomes outcomes) {
        Objects.requireNonNull(applier, "applier");
        return applierPool(threadName, appliers, 1, work -> applier.apply(work.get(0)), flusher, outcomes);
    }

    /**
     * Like {@link #applierPool(String, int, Applier, LogFlusher, Outcomes)}, but an applier that wakes takes up to
     * {@code maxBatch} queued submissions and commits them as one transaction: ordered ones together, unordered
     * ones together (never mixed, so a consumer's removals keep their own, lighter durability). Under light load a
     * batch holds one submission; under load the batch grows while earlier ones wait for acknowledgements, so the
     * number of transactions follows the replication round trip, not the commit rate. A batch that fails fails
     * every submission in it with the same error. Completion order is unchanged (submission order for ordered
     * submissions).
     */
    public static <T> CoalescingCommitter<T> applierPool(String threadName, int appliers, int maxBatch,
                                                         BatchApplier<T> applier, LogFlusher flusher,
                                                         Outcomes outcomes) {
        Objects.requireNonNull(applier, "applier");
        return positionedApplierPool(threadName, appliers, maxBatch, unpositioned(applier), unpositioned(flusher),
                outcomes);
    }

    /**
     * Like {@link #applierPool(String, int, int, BatchApplier, LogFlusher, Outcomes)}, with log positions: a commit
     * whose record a finished flush already covered (a flush made for other commits while its applier still waited
     * for replica acknowledgements) completes as soon as its applier returns, without waiting for another flush.
     * Under load the fsync then overlaps the acknowledgement round trip instead of following it.
     */
    public static <T> CoalescingCommitter<T> positionedApplierPool(String threadName, int appliers, int maxBatch,
                                                                   PositionedApplier<T> applier, FlushableLog log,
                                                                   Outcomes outcomes) {
        if (appliers < 1) {
            throw new IllegalArgumentException("appliers must be at least 1: " + appliers);
        }
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1: " + maxBatch);
        }
        return new CoalescingCommitter<>(threadName, appliers, maxBatch, true, applier, log, outcomes);
    }

    private static <T> PositionedApplier<T> unpositioned(BatchApplier<T> applier) {
        return (work, logged) -> {
            applier.apply(work);
            return NO_POSITION;
        };
    }

    private static FlushableLog unpositioned(LogFlusher flusher) {
        Objects.requireNonNull(flusher, "flusher");
        return new FlushableLog() {
            @Override
            public long end() {
                return NO_POSITION;
            }

            @Override
            public void flush() {
                flusher.flush();
            }
        };
    }

    /** Starts the threads. Submissions made before are kept and applied. */
    public void start() {
        if (closed.get() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException(threadName + " already started or closed");
        }
        List<Thread> threads = new ArrayList<>();
        if (flusherThread == null) {
            threads.add(new Thread(this::runSingleThread, threadName));
        } else {
            liveAppliers.set(appliers);
            for (int i = 1; i <= appliers; i++) {
                threads.add(new Thread(this::runApplier, threadName + "-applier-" + i));
            }
            flusherThread.setDaemon(true);
            flusherThread.start();
        }
        applierThreads = List.copyOf(threads);
        for (Thread thread : threads) {
            thread.setDaemon(true);
            thread.start();
        }
    }

    /**
     * Queues {@code work}. The future completes after the work is applied and, when {@code flushRequired}, after
     * a flush that followed it, and never before the future of an earlier {@code submit} (see the class comment);
     * or fails with what {@link Outcomes#failed} returns; or with {@link BrokerException} {@code NOT_ACTIVE} when
     * the committer closed before applying it.
     */
    public CompletableFuture<Void> submit(T work, boolean flushRequired) {
        return enqueue(work, flushRequired, true);
    }

    /**
     * Queues {@code work} that needs no flush and whose future completes as soon as it is applied, regardless of
     * earlier submissions still being applied or flushed (e.g. a consumer's removals).
     */
    public CompletableFuture<Void> submitUnordered(T work) {
        return enqueue(work, false, false);
    }

    private CompletableFuture<Void> enqueue(T work, boolean flushRequired, boolean ordered) {
        Objects.requireNonNull(work, "work");
        CompletableFuture<Void> future = new CompletableFuture<>();
        if (closing) {
            failClosed(future);
            return future;
        }
        // Only the pool needs numbers; a number left unused by a submission failed here is a gap that can only
        // appear once closing, when the flusher completes what it holds regardless of gaps.
        long sequence = ordered && flusherThread != null ? nextSequence.getAndIncrement() : UNORDERED;
        Pending<T> pending = new Pending<>(work, flushRequired, sequence, future);
        submitted.add(pending);
        // close() may have drained the queue between the check and the add: whoever removes it fails it.
        if (closing && submitted.remove(pending)) {
            failClosed(future);
        }
        return future;
    }

    /** True when {@code thread} is one of this committer's threads. */
    public boolean runsOn(Thread thread) {
        return applierThreads.contains(thread) || thread == flusherThread;
    }

    /** Counters so far. */
    public CommitterStats stats() {
        return new CommitterStats(commits.get(), failures.get(), flushes.get(), flushedCommits.get(),
                largestBatch.get(), submitted.size(), transactions.get(), applyNanos.get(), flushNanos.get(),
                earlyDurable.get());
    }

    /**
     * Stops applying: queued submissions fail with {@code NOT_ACTIVE}; work already applied is flushed and
     * completed. Waits for the threads to finish, unless called from one of them (e.g. from a future's
     * completion), in which case they finish by themselves. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closing = true;
        submitted.add(poison);
        if (runsOn(Thread.currentThread())) {
            return;
        }
        if (started.get()) {
            applierThreads.forEach(CoalescingCommitter::joinUninterruptibly);
            if (flusherThread != null) {
                joinUninterruptibly(flusherThread);
            }
        }
        failRemaining(submitted);
        List<Outcome<T>> unfinished = new ArrayList<>();
        applied.drainTo(unfinished);
        unfinished.stream().filter(outcome -> outcome != poisonOutcome && !outcome.isLoggedNotice())
                .forEach(outcome -> failClosed(outcome.pending().future()));
    }

    private void runSingleThread() {
        List<Pending<T>> batch = new ArrayList<>();
        List<Pending<T>> awaitingFlush = new ArrayList<>();
        boolean stop = false;
        while (!stop) {
            batch.add(take(submitted));
            submitted.drainTo(batch);
            for (Pending<T> pending : batch) {
                if (pending == poison) {
                    stop = true;
                } else if (apply(pending)) {
                    awaitingFlush.add(pending);
                }
            }
            batch.clear();
            flushAndComplete(awaitingFlush);
            awaitingFlush.clear();
        }
        failRemaining(submitted);
    }

    private void runApplier() {
        List<Pending<T>> taken = new ArrayList<>();
        List<Pending<T>> ordered = new ArrayList<>();
        List<Pending<T>> unordered = new ArrayList<>();
        boolean stop = false;
        while (!stop) {
            taken.add(take(submitted));
            if (maxBatch > 1) {
                submitted.drainTo(taken, maxBatch - 1);
            }
            for (Pending<T> pending : taken) {
                if (pending == poison) {
                    stop = true;
                } else {
                    (pending.ordered() ? ordered : unordered).add(pending);
                }
            }
            taken.clear();
            applyUnordered(unordered);
            applyOrdered(ordered);
            unordered.clear();
            ordered.clear();
        }
        submitted.add(poison); // for the other appliers
        if (liveAppliers.decrementAndGet() == 0) {
            failRemaining(submitted);
            applied.add(poisonOutcome); // the flusher stops once every applier has handed over its work
        }
    }

    /** Pool mode: commits unordered submissions as one transaction and completes them here. */
    private void applyUnordered(List<Pending<T>> batch) {
        if (batch.isEmpty()) {
            return;
        }
        if (closing) {
            batch.forEach(pending -> failClosed(pending.future()));
            return;
        }
        try {
            timedApply(works(batch), NOT_WATCHED);
        } catch (Throwable e) {
            Throwable failure = outcomes.failed(e);
            failures.addAndGet(batch.size());
            batch.forEach(pending -> pending.future().completeExceptionally(failure));
            return;
        }
        transactions.incrementAndGet();
        outcomes.succeeded();
        commits.addAndGet(batch.size());
        batch.forEach(pending -> pending.future().complete(null));
    }

    /** Pool mode: commits ordered submissions as one transaction and hands their outcomes to the flusher. */
    private void applyOrdered(List<Pending<T>> batch) {
        if (batch.isEmpty()) {
            return;
        }
        if (closing) {
            batch.forEach(pending -> failClosed(pending.future()));
            return;
        }
        Throwable failure = null;
        long position = NO_POSITION;
        try {
            // Only a commit that will wait for a flush wants one started early (not one that syncs by itself).
            boolean flushAhead = batch.stream().anyMatch(Pending::flushRequired);
            position = timedApply(works(batch), flushAhead ? this::commitLogged : NOT_WATCHED);
            transactions.incrementAndGet();
        } catch (Throwable e) {
            failure = outcomes.failed(e);
        }
        for (Pending<T> pending : batch) {
            applied.add(new Outcome<>(pending, failure, position));
        }
    }

    /** An applier's notice that an ordered commit's record is in the log (see {@link PositionedApplier}). */
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
            applyNanos.addAndGet(System.nanoTime() - start);
        }
    }

    private void timedFlush() {
        long start = System.nanoTime();
        try {
            log.flush();
        } finally {
            flushNanos.addAndGet(System.nanoTime() - start);
        }
    }

    private List<T> works(List<Pending<T>> batch) {
        List<T> works = new ArrayList<>(batch.size());
        for (Pending<T> pending : batch) {
            works.add(pending.work());
        }
        return works;
    }

    /**
     * Pool mode: makes applied commits durable and completes ordered futures strictly by sequence number.
     *
     * <p>{@code durable} is the log position covered by the last successful flush. A commit whose record is at
     * or below it is durable already: a flush ran while its applier still waited for replica acknowledgements,
     * so it needs no flush of its own. The others wait in {@code awaiting} for the next flush, which starts at
     * once. {@code finished} is the reorder buffer: outcomes that are final (failed, applied without needing a
     * flush, or flushed) but wait for a lower sequence number.
     *
     * <p>A logged notice (a commit record reached the log; its applier now waits for acknowledgements) above
     * {@code durable} starts a flush at once, so the fsync and the acknowledgement round trip overlap: with one
     * client, a commit then costs the longer of the two, not their sum. Notices that arrive during a flush are
     * served by one flush after it. Otherwise the flusher sleeps. (Flushing speculatively by polling every 100 us
     * instead was tried: it made the flusher thread the master's largest CPU consumer, mostly in context
     * switches; docs/performance.md.)
     */
    private void runFlusher() {
        List<Outcome<T>> batch = new ArrayList<>();
        List<Outcome<T>> awaiting = new ArrayList<>();
        Map<Long, Outcome<T>> finished = new HashMap<>();
        RecentFlushes recentFlushes = new RecentFlushes();
        long nextToComplete = 0;
        long durable = NO_POSITION;
        boolean stop = false;
        while (!stop) {
            batch.add(take(applied));
            applied.drainTo(batch);
            stop = batch.removeIf(outcome -> outcome == poisonOutcome);
            boolean loggedAboveDurable = false;
            for (Outcome<T> outcome : batch) {
                if (outcome.isLoggedNotice()) {
                    loggedAboveDurable |= outcome.position() > durable;
                } else if (!outcome.awaitsFlush() || covered(outcome, durable, recentFlushes)) {
                    finished.put(outcome.pending().sequence(), outcome);
                } else {
                    awaiting.add(outcome);
                }
            }
            batch.clear();
            if (!awaiting.isEmpty() || loggedAboveDurable) {
                long end = log.end(); // read before flushing: everything up to it is durable afterwards
                Throwable failure = null;
                try {
                    timedFlush();
                    flushes.incrementAndGet();
                    flushedCommits.addAndGet(awaiting.size());
                    largestBatch.accumulateAndGet(awaiting.size(), Math::max);
                    if (end != NO_POSITION) {
                        durable = Math.max(durable, end);
                        recentFlushes.flushed(durable, awaiting.size());
                    }
                } catch (Throwable e) {
                    // A failed flush made nothing durable; a commit whose notice started it waits for the next one.
                    failure = outcomes.failed(e);
                }
                // Everything that was awaiting had been applied before this flush started: it is covered.
                for (Outcome<T> outcome : awaiting) {
                    Outcome<T> result = failure == null ? outcome
                            : new Outcome<>(outcome.pending(), failure, outcome.position());
                    finished.put(outcome.pending().sequence(), result);
                }
                awaiting.clear();
            }
            Outcome<T> next;
            while ((next = finished.remove(nextToComplete)) != null) {
                complete(next);
                nextToComplete++;
            }
        }
        // Closing: the numbers still missing were failed by close() itself; complete the rest in order.
        finished.keySet().stream().sorted().forEach(sequence -> complete(finished.get(sequence)));
    }

    /** True when a finished flush already made {@code outcome}'s commit record durable. */
    private boolean covered(Outcome<T> outcome, long durable, RecentFlushes recentFlushes) {
        if (outcome.position() == NO_POSITION || durable == NO_POSITION || outcome.position() > durable) {
            return false;
        }
        earlyDurable.incrementAndGet();
        flushedCommits.incrementAndGet();
        largestBatch.accumulateAndGet(recentFlushes.countCovered(outcome.position()), Math::max);
        return true;
    }

    /**
     * Flusher thread: the last flushes and how many commits each made durable, so that a commit found covered
     * when its transaction returns counts for the flush that covered it (the first whose end is at or beyond its
     * record), not only the commits that waited for a flush.
     */
    private static final class RecentFlushes {
        private static final int KEPT = 64;
        private final ArrayDeque<long[]> endAndCount = new ArrayDeque<>();

        void flushed(long end, int commitsWaiting) {
            if (endAndCount.size() == KEPT) {
                endAndCount.removeFirst();
            }
            endAndCount.addLast(new long[] {end, commitsWaiting});
        }

        /** Counts a commit for the flush that covered {@code position}; returns that flush's count (0: unknown). */
        long countCovered(long position) {
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

    private void complete(Outcome<T> outcome) {
        if (outcome.failure() != null) {
            failures.incrementAndGet();
            outcome.pending().future().completeExceptionally(outcome.failure());
        } else {
            outcomes.succeeded();
            commits.incrementAndGet();
            outcome.pending().future().complete(null);
        }
    }

    /** Applies one submission; true when it now waits for a flush, false when it is completed or failed. */
    private boolean apply(Pending<T> pending) {
        if (closing) {
            failClosed(pending.future());
            return false;
        }
        try {
            timedApply(List.of(pending.work()), NOT_WATCHED);
        } catch (Throwable e) {
            failures.incrementAndGet();
            pending.future().completeExceptionally(outcomes.failed(e));
            return false;
        }
        transactions.incrementAndGet();
        if (pending.flushRequired()) {
            return true;
        }
        outcomes.succeeded();
        commits.incrementAndGet();
        pending.future().complete(null);
        return false;
    }

    private void flushAndComplete(List<Pending<T>> batch) {
        if (batch.isEmpty()) {
            return;
        }
        try {
            timedFlush();
        } catch (Throwable e) {
            Throwable failure = outcomes.failed(e);
            failures.addAndGet(batch.size());
            batch.forEach(pending -> pending.future().completeExceptionally(failure));
            return;
        }
        flushes.incrementAndGet();
        flushedCommits.addAndGet(batch.size());
        largestBatch.accumulateAndGet(batch.size(), Math::max);
        outcomes.succeeded();
        commits.addAndGet(batch.size());
        batch.forEach(pending -> pending.future().complete(null));
    }

    private void failRemaining(BlockingQueue<Pending<T>> queue) {
        List<Pending<T>> remaining = new ArrayList<>();
        queue.drainTo(remaining);
        for (Pending<T> pending : remaining) {
            if (pending != poison) {
                failClosed(pending.future());
            }
        }
    }

    private void failClosed(CompletableFuture<Void> future) {
        if (future.completeExceptionally(
                new BrokerException(ErrorKind.NOT_ACTIVE, threadName + ": the store is closed"))) {
            failures.incrementAndGet();
        }
    }

    private static <E> E take(BlockingQueue<E> queue) {
        while (true) {
            try {
                return queue.take();
            } catch (InterruptedException e) {
                // Never carry an interrupt into JE (it would invalidate the environment); close() uses a poison pill.
            }
        }
    }

    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
