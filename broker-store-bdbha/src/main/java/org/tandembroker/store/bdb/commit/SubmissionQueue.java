package org.tandembroker.store.bdb.commit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/**
 * A committer's submissions on their way from the callers to its thread(s), when each thread may take a batch,
 * and the close that stops them: after {@link #close()} nothing more is queued, every thread that takes finds an
 * end marker, and whatever is left fails with {@code NOT_ACTIVE}.
 *
 * <p><b>Admission.</b> A thread takes ({@link #takeBatch}) every unordered submission queued (removals, which wait for
 * no acknowledgement), up to {@code maxBatch}, whenever there are any; and up to {@code maxBatch} ordered ones (data
 * commits) when no other thread is committing ordered ones, or when {@code overlapAt} of them wait whatever the others
 * do (a full batch; 1 for commits that fsync by themselves). It reports the batch's end with {@link #batchDone}. So
 * while one data transaction waits for the replicas' acknowledgements the next gathers, and a second starts alongside
 * only when the first's round trip outlasts a full batch's arrival; a data commit that waits for a replica that is gone
 * holds up no removal. Every JE transaction costs the master and each replica about the same (a commit record, a
 * replication message, a replay, an acknowledgement, wake-ups on both nodes) whatever its size, so fewer, larger
 * transactions cost less per message (docs/perf/log.md, "One data transaction at a time unless a full batch waits").
 *
 * <p><b>Threads.</b> Callers add from any thread; the committer's threads take. Every field but {@code closing}
 * is guarded by {@code lock}. New work wakes a waiting thread only when no thread woken earlier is still on its way
 * ({@link #signalIfSomeoneMayTake}): a burst of submissions wakes one thread, not one each.
 */
final class SubmissionQueue<T> {

    /** Work to commit; {@code sequence} orders completion in an applier pool, {@link #UNORDERED} otherwise. */
    record Submission<T>(T work, boolean flushRequired, long sequence, CompletableFuture<Void> future) {
        static final long UNORDERED = -1;

        boolean ordered() {
            return sequence != UNORDERED;
        }
    }

    private final String threadName;
    private final CommitCounters counters;
    private final int maxBatch;
    private final int overlapAt;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled whenever a waiting thread may now take; one signal lets one thread take. */
    private final Condition mayTake = lock.newCondition();
    /** Threads waiting on {@link #mayTake}. */
    private int waiting;
    /** A thread was signalled and has not yet woken: while it is on its way, further work needs no other thread. */
    private boolean signalledOnItsWay;
    /** Times a thread woke and found nothing it may take (another took it first). */
    private long needlessWakeUps;
    private final ArrayDeque<Submission<T>> ordered = new ArrayDeque<>();
    private final ArrayDeque<Submission<T>> unordered = new ArrayDeque<>();
    private final Submission<T> end = new Submission<>(null, false, Submission.UNORDERED, null);
    /** Batches with ordered submissions taken and not yet reported done. */
    private int orderedCommitting;
    private volatile boolean closing;

    /**
     * {@code maxBatch}: the most submissions of each kind {@link #takeBatch} hands out at once; {@code overlapAt}:
     * how many ordered submissions must wait before a second ordered batch starts alongside one being committed
     * ({@code maxBatch}: a full batch; 1: whenever any waits, for commits that sync by themselves, whose fsyncs
     * JE shares only between transactions committing at the same time).
     */
    SubmissionQueue(String threadName, CommitCounters counters, int maxBatch, int overlapAt) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.counters = counters;
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1: " + maxBatch);
        }
        if (overlapAt < 1 || overlapAt > maxBatch) {
            throw new IllegalArgumentException("overlapAt must be from 1 to maxBatch: " + overlapAt);
        }
        this.maxBatch = maxBatch;
        this.overlapAt = overlapAt;
    }

    /**
     * Queues {@code work}, or fails its future at once when closing. A sequence number left unused here is a gap
     * that can only appear once closing, when the pool's flusher completes what it holds regardless of gaps.
     */
    CompletableFuture<Void> add(T work, boolean flushRequired, long sequence) {
        Objects.requireNonNull(work, "work");
        CompletableFuture<Void> future = new CompletableFuture<>();
        lock.lock();
        try {
            if (!closing) {
                Submission<T> submission = new Submission<>(work, flushRequired, sequence, future);
                (submission.ordered() ? ordered : unordered).add(submission);
                signalIfSomeoneMayTake();
                return future;
            }
        } finally {
            lock.unlock();
        }
        failClosed(future);
        return future;
    }

    /**
     * Waits until this thread may take (see the class comment), then moves the unordered submissions and the
     * ordered ones it may take, up to {@code maxBatch} of each, to {@code into}; once closing, only the end marker
     * ({@link #isEnd}). A call that took ordered submissions must be followed by {@link #batchDone} once they are
     * committed, or failed.
     */
    void takeBatch(List<Submission<T>> into) {
        lock.lock();
        try {
            boolean woken = false;
            while (!someoneMayTake()) {
                if (woken) {
                    needlessWakeUps++; // another thread took the work first
                }
                waiting++;
                mayTake.awaitUninterruptibly(); // never carries an interrupt into JE, see takeIgnoringInterrupts
                waiting--;
                signalledOnItsWay = false; // this thread's signal (or close's signalAll) has arrived
                woken = true;
            }
            if (closing) {
                into.add(end);
                return;
            }
            moveUpToMaxBatch(unordered, into);
            if (mayTakeOrdered()) {
                moveUpToMaxBatch(ordered, into);
                orderedCommitting++;
            }
            signalIfSomeoneMayTake(); // e.g. another full batch behind this one
        } finally {
            lock.unlock();
        }
    }

    /** The batch this thread took last is committed or failed; {@code hadOrdered}: it held ordered submissions. */
    void batchDone(boolean hadOrdered) {
        if (!hadOrdered) {
            return;
        }
        lock.lock();
        try {
            orderedCommitting--;
            signalIfSomeoneMayTake();
        } finally {
            lock.unlock();
        }
    }

    private void moveUpToMaxBatch(ArrayDeque<Submission<T>> from, List<Submission<T>> into) {
        for (int moved = 0; moved < maxBatch && !from.isEmpty(); moved++) {
            into.add(from.poll());
        }
    }

    private boolean mayTakeOrdered() {
        return !ordered.isEmpty() && (orderedCommitting == 0 || ordered.size() >= overlapAt);
    }

    private boolean someoneMayTake() {
        return closing || !unordered.isEmpty() || mayTakeOrdered();
    }

    /**
     * Wakes one waiting thread when there is work it may take, unless one woken already has yet to take it: that one
     * takes everything it may, and signals again if something is left. A thread that is not waiting checks before it
     * waits, so it needs no signal. (Each needless wake-up costs two context switches on a busy machine.)
     */
    private void signalIfSomeoneMayTake() {
        if (waiting > 0 && !signalledOnItsWay && someoneMayTake()) {
            signalledOnItsWay = true;
            mayTake.signal();
        }
    }

    boolean isEnd(Submission<T> submission) {
        return submission == end;
    }

    boolean closing() {
        return closing;
    }

    /** Refuses further submissions and tells the threads to stop. */
    void close() {
        lock.lock();
        try {
            closing = true;
            mayTake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Fails every submission still queued with {@code NOT_ACTIVE}. */
    void failRemaining() {
        List<Submission<T>> remaining;
        lock.lock();
        try {
            remaining = new ArrayList<>(unordered);
            remaining.addAll(ordered);
            unordered.clear();
            ordered.clear();
        } finally {
            lock.unlock();
        }
        remaining.forEach(submission -> failClosed(submission.future()));
    }

    void failClosed(CompletableFuture<Void> future) {
        if (future.completeExceptionally(
                new BrokerException(ErrorKind.NOT_ACTIVE, threadName + ": the store is closed"))) {
            counters.failed(1);
        }
    }

    /** Threads waiting for something to take (for tests). */
    int waitingThreads() {
        lock.lock();
        try {
            return waiting;
        } finally {
            lock.unlock();
        }
    }

    /** Times a thread was woken and found nothing it may take, because another took it first (for tests). */
    long needlessWakeUps() {
        lock.lock();
        try {
            return needlessWakeUps;
        } finally {
            lock.unlock();
        }
    }

    /** Submissions waiting to be applied (for statistics). */
    int size() {
        lock.lock();
        try {
            return ordered.size() + unordered.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Never carries an interrupt into JE (it would invalidate the environment): a committer thread ignores
     * interrupts, and its owner stops it with an end marker instead.
     */
    static <E> E takeIgnoringInterrupts(BlockingQueue<E> queue) {
        while (true) {
            try {
                return queue.take();
            } catch (InterruptedException e) {
                // ignored, see above
            }
        }
    }
}
