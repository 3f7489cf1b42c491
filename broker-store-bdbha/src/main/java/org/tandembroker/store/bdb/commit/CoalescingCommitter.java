package org.tandembroker.store.bdb.commit;

import java.util.ArrayList;
import java.util.List;
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
 * <p><b>Threads.</b> {@link #singleThread}: one thread named {@code threadName} takes submissions, applies them,
 * flushes and completes every future; it owns the batch lists. {@link #applierPool}: {@code appliers} threads
 * named {@code <threadName>-applier-<n>} apply submissions concurrently (for commits that block, such as
 * replica acknowledgements) and hand those needing a flush to one thread {@code <threadName>-flusher} that owns
 * flushing and completing them. Futures complete on these threads, never on a caller's: a dependent stage that
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

    private record Pending<T>(T work, boolean flushRequired, CompletableFuture<Void> future) {
    }

    private final String threadName;
    private final int appliers;
    private final Applier<T> applier;
    private final LogFlusher flusher;
    private final Outcomes outcomes;
    private final BlockingQueue<Pending<T>> submitted = new LinkedBlockingQueue<>();
    /** Pool mode only: applied, waiting for the flusher. */
    private final BlockingQueue<Pending<T>> applied = new LinkedBlockingQueue<>();
    private final Pending<T> poison = new Pending<>(null, false, null);
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
     * a flush that followed it; or fails with what {@link Outcomes#failed} returns; or with
     * {@link BrokerException} {@code NOT_ACTIVE} when the committer closed before applying it.
     */
    public CompletableFuture<Void> submit(T work, boolean flushRequired) {
        Pending<T> pending = new Pending<>(Objects.requireNonNull(work, "work"), flushRequired,
                new CompletableFuture<>());
        if (closing) {
            failClosed(pending);
            return pending.future();
        }
        submitted.add(pending);
        // close() may have drained the queue between the check and the add: whoever removes it fails it.
        if (closing && submitted.remove(pending)) {
            failClosed(pending);
        }
        return pending.future();
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
        failRemaining(applied);
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
                    applied.add(poison); // the flusher stops once every applier has handed over its work
                }
                return;
            }
            if (apply(pending)) {
                applied.add(pending);
            }
        }
    }

    private void runFlusher() {
        List<Pending<T>> batch = new ArrayList<>();
        boolean stop = false;
        while (!stop) {
            batch.add(take(applied));
            applied.drainTo(batch);
            stop = batch.removeIf(pending -> pending == poison);
            flushAndComplete(batch);
            batch.clear();
        }
    }

    /** Applies one submission; true when it now waits for a flush, false when it is completed or failed. */
    private boolean apply(Pending<T> pending) {
        if (closing) {
            failClosed(pending);
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
                failClosed(pending);
            }
        }
    }

    private void failClosed(Pending<T> pending) {
        if (pending.future().completeExceptionally(
                new BrokerException(ErrorKind.NOT_ACTIVE, threadName + ": the store is closed"))) {
            failures.incrementAndGet();
        }
    }

    private Pending<T> take(BlockingQueue<Pending<T>> queue) {
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
