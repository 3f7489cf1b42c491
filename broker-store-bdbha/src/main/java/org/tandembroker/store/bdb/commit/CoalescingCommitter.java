package org.tandembroker.store.bdb.commit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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

    /** An applied (or failed) ordered submission on its way to the flusher; {@code failure} null on success. */
    private record Outcome<T>(Pending<T> pending, Throwable failure) {
    }

    private static final long UNORDERED = -1;

    private final String threadName;
    private final int appliers;
    private final Applier<T> applier;
    private final LogFlusher flusher;
    private final Outcomes outcomes;
    private final BlockingQueue<Pending<T>> submitted = new LinkedBlockingQueue<>();
    /** Pool mode only: ordered submissions applied or failed, waiting for the flusher. */
    private final BlockingQueue<Outcome<T>> applied = new LinkedBlockingQueue<>();
    private final Pending<T> poison = new Pending<>(null, false, UNORDERED, null);
    private final Outcome<T> poisonOutcome = new Outcome<>(null, null);
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

    private CoalescingCommitter(String threadName, int appliers, boolean separateFlusher, Applier<T> applier,
                                LogFlusher flusher, Outcomes outcomes) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.flusherThread = separateFlusher ? new Thread(this::runFlusher, threadName + "-flusher") : null;
        this.appliers = appliers;
        this.applier = Objects.requireNonNull(applier, "applier");
        this.flusher = Objects.requireNonNull(flusher, "flusher");
        this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
    }

    /** One thread applies, flushes and completes (the standalone store). */
    public static <T> CoalescingCommitter<T> singleThread(String threadName, Applier<T> applier, LogFlusher flusher,
                                                          Outcomes outcomes) {
        return new CoalescingCommitter<>(threadName, 1, false, applier, flusher, outcomes);
    }

    /**
     * {@code appliers} threads apply concurrently and one flusher thread flushes and completes (for appliers that
     * block, e.g. on replica acknowledgements).
     */
    public static <T> CoalescingCommitter<T> applierPool(String threadName, int appliers, Applier<T> applier,
                                                         LogFlusher flusher, Outcomes outcomes) {
        if (appliers < 1) {
            throw new IllegalArgumentException("appliers must be at least 1: " + appliers);
        }
        return new CoalescingCommitter<>(threadName, appliers, true, applier, flusher, outcomes);
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
                largestBatch.get(), submitted.size());
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
        unfinished.stream().filter(outcome -> outcome != poisonOutcome)
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
        while (true) {
            Pending<T> pending = take(submitted);
            if (pending == poison) {
                submitted.add(poison); // for the other appliers
                if (liveAppliers.decrementAndGet() == 0) {
                    failRemaining(submitted);
                    applied.add(poisonOutcome); // the flusher stops once every applier has handed over its work
                }
                return;
            }
            if (!pending.ordered()) {
                apply(pending);
                continue;
            }
            if (closing) {
                failClosed(pending.future());
                continue;
            }
            try {
                applier.apply(pending.work());
                applied.add(new Outcome<>(pending, null));
            } catch (Throwable e) {
                applied.add(new Outcome<>(pending, outcomes.failed(e)));
            }
        }
    }

    /**
     * Pool mode: flushes for every applied commit that needs it, then completes ordered futures strictly by
     * sequence number. {@code finished} is the reorder buffer: outcomes that are final (failed, applied without
     * needing a flush, or flushed) but wait for a lower sequence number still being applied.
     */
    private void runFlusher() {
        List<Outcome<T>> batch = new ArrayList<>();
        Map<Long, Outcome<T>> finished = new HashMap<>();
        long nextToComplete = 0;
        boolean stop = false;
        while (!stop) {
            batch.add(take(applied));
            applied.drainTo(batch);
            stop = batch.removeIf(outcome -> outcome == poisonOutcome);
            batch = flush(batch);
            for (Outcome<T> outcome : batch) {
                finished.put(outcome.pending().sequence(), outcome);
            }
            batch.clear();
            Outcome<T> next;
            while ((next = finished.remove(nextToComplete)) != null) {
                complete(next);
                nextToComplete++;
            }
        }
        // Closing: the numbers still missing were failed by close() itself; complete the rest in order.
        finished.keySet().stream().sorted().forEach(sequence -> complete(finished.get(sequence)));
    }

    /** Pool mode: one flush for the batch's applied commits that need it; their outcomes become final. */
    private List<Outcome<T>> flush(List<Outcome<T>> batch) {
        List<Outcome<T>> needingFlush = batch.stream()
                .filter(outcome -> outcome.failure() == null && outcome.pending().flushRequired()).toList();
        if (needingFlush.isEmpty()) {
            return batch;
        }
        Throwable failure = null;
        try {
            flusher.flush();
            flushes.incrementAndGet();
            flushedCommits.addAndGet(needingFlush.size());
            largestBatch.accumulateAndGet(needingFlush.size(), Math::max);
        } catch (Throwable e) {
            failure = outcomes.failed(e);
        }
        if (failure == null) {
            return batch;
        }
        List<Outcome<T>> result = new ArrayList<>(batch.size());
        for (Outcome<T> outcome : batch) {
            boolean flushFailed = outcome.failure() == null && outcome.pending().flushRequired();
            result.add(flushFailed ? new Outcome<>(outcome.pending(), failure) : outcome);
        }
        return result;
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
            applier.apply(pending.work());
        } catch (Throwable e) {
            failures.incrementAndGet();
            pending.future().completeExceptionally(outcomes.failed(e));
            return false;
        }
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
            flusher.flush();
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
