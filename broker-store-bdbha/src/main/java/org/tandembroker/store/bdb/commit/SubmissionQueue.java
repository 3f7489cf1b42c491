package org.tandembroker.store.bdb.commit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/**
 * A committer's submissions on their way from the callers to its thread(s), and the close that stops them: after
 * {@link #close()} nothing more is queued, the threads find an end marker, and whatever is left fails with
 * {@code NOT_ACTIVE}. Thread-safe.
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
    private final BlockingQueue<Submission<T>> queue = new LinkedBlockingQueue<>();
    private final Submission<T> end = new Submission<>(null, false, Submission.UNORDERED, null);
    private volatile boolean closing;

    SubmissionQueue(String threadName, CommitCounters counters) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.counters = counters;
    }

    /**
     * Queues {@code work}, or fails its future at once when closing. A sequence number left unused here is a gap
     * that can only appear once closing, when the pool's flusher completes what it holds regardless of gaps.
     */
    CompletableFuture<Void> add(T work, boolean flushRequired, long sequence) {
        Objects.requireNonNull(work, "work");
        CompletableFuture<Void> future = new CompletableFuture<>();
        if (closing) {
            failClosed(future);
            return future;
        }
        Submission<T> submission = new Submission<>(work, flushRequired, sequence, future);
        queue.add(submission);
        // close() may have drained the queue between the check and the add: whoever removes it fails it.
        if (closing && queue.remove(submission)) {
            failClosed(future);
        }
        return future;
    }

    /** Waits for the next submission or the end marker ({@link #isEnd}). */
    Submission<T> take() {
        return takeIgnoringInterrupts(queue);
    }

    /** Moves up to {@code max} more queued submissions (and the end marker, if reached) to {@code into}. */
    void drainTo(List<Submission<T>> into, int max) {
        queue.drainTo(into, max);
    }

    boolean isEnd(Submission<T> submission) {
        return submission == end;
    }

    /** Leaves the end marker for the next thread that takes (one marker stops every thread of a pool in turn). */
    void passEndOn() {
        queue.add(end);
    }

    boolean closing() {
        return closing;
    }

    /** Refuses further submissions and tells the threads to stop. */
    void close() {
        closing = true;
        queue.add(end);
    }

    /** Fails every submission still queued with {@code NOT_ACTIVE}. */
    void failRemaining() {
        List<Submission<T>> remaining = new ArrayList<>();
        queue.drainTo(remaining);
        for (Submission<T> submission : remaining) {
            if (submission != end) {
                failClosed(submission.future());
            }
        }
    }

    void failClosed(CompletableFuture<Void> future) {
        if (future.completeExceptionally(
                new BrokerException(ErrorKind.NOT_ACTIVE, threadName + ": the store is closed"))) {
            counters.failed(1);
        }
    }

    /** Submissions waiting to be applied (for statistics). */
    int size() {
        return queue.size();
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
