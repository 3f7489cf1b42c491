package org.tandembroker.store.bdb.commit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.exec.OwningThread;
import org.tandembroker.core.exec.Uninterruptibly;
import org.tandembroker.store.bdb.commit.SubmissionQueue.Submission;

/**
 * The standalone store's committer: one thread takes every submission queued when it wakes, applies each as its
 * own transaction, flushes once for all of them that need it, and completes their futures. Submission order is
 * completion order by construction.
 *
 * <p><b>Threads.</b> The thread named {@code threadName} owns the batch lists and completes every future. Other
 * threads only submit, read {@link #stats()} and {@link #close()}.
 */
final class SingleThreadCommitter<T> implements CoalescingCommitter<T> {
    private final String threadName;
    private final Consumer<T> applier;
    private final Runnable flushLog;
    private final CommitOutcomes outcomes;
    private final CommitCounters counters = new CommitCounters();
    private final SubmissionQueue<T> submitted;
    private final OwningThread committerThread;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Thread thread;

    SingleThreadCommitter(String threadName, Consumer<T> applier, Runnable flushLog, CommitOutcomes outcomes) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        this.applier = Objects.requireNonNull(applier, "applier");
        this.flushLog = Objects.requireNonNull(flushLog, "flushLog");
        this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
        this.submitted = new SubmissionQueue<>(threadName, counters, Integer.MAX_VALUE, 1);
        this.committerThread = new OwningThread(threadName);
    }

    @Override
    public void start() {
        if (closed.get() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException(threadName + " already started or closed");
        }
        Thread created = NamedThreadFactory.daemonThread(threadName, committerThread::adopt).newThread(this::run);
        thread = created;
        created.start();
    }

    @Override
    public CompletableFuture<Void> submit(T work, boolean flushRequired) {
        return submitted.add(work, flushRequired, Submission.UNORDERED);
    }

    @Override
    public CompletableFuture<Void> submitUnordered(T work) {
        return submitted.add(work, false, Submission.UNORDERED);
    }

    @Override
    public boolean runsOn(Thread candidate) {
        return candidate != null && candidate == thread;
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
            Uninterruptibly.join(thread);
        }
        submitted.failRemaining();
    }

    private void run() {
        List<Submission<T>> batch = new ArrayList<>();
        List<Submission<T>> awaitingFlush = new ArrayList<>();
        boolean stop = false;
        while (!stop) {
            submitted.takeBatch(batch); // all unordered: every one queued, whenever there are any
            for (Submission<T> submission : batch) {
                if (submitted.isEnd(submission)) {
                    stop = true;
                } else if (apply(submission)) {
                    awaitingFlush.add(submission);
                }
            }
            batch.clear();
            flushAndComplete(awaitingFlush);
            awaitingFlush.clear();
        }
        submitted.failRemaining();
    }

    /** Applies one submission; true when it now waits for a flush, false when it is completed or failed. */
    private boolean apply(Submission<T> submission) {
        assert committerThread.isCurrent() : committerThread.violation();
        if (submitted.closing()) {
            submitted.failClosed(submission.future());
            return false;
        }
        try {
            timedApply(submission.work());
        } catch (Throwable e) {
            counters.failed(1);
            submission.future().completeExceptionally(outcomes.failed(e));
            return false;
        }
        counters.transactionCommitted();
        if (submission.flushRequired()) {
            return true;
        }
        outcomes.succeeded();
        counters.committed(1);
        submission.future().complete(null);
        return false;
    }

    private void flushAndComplete(List<Submission<T>> batch) {
        assert committerThread.isCurrent() : committerThread.violation();
        if (batch.isEmpty()) {
            return;
        }
        try {
            timedFlush();
        } catch (Throwable e) {
            Throwable failure = outcomes.failed(e);
            counters.failed(batch.size());
            batch.forEach(submission -> submission.future().completeExceptionally(failure));
            return;
        }
        counters.flushed(batch.size());
        outcomes.succeeded();
        counters.committed(batch.size());
        batch.forEach(submission -> submission.future().complete(null));
    }

    private void timedApply(T work) {
        long start = System.nanoTime();
        try {
            applier.accept(work);
        } finally {
            counters.applyTook(System.nanoTime() - start);
        }
    }

    private void timedFlush() {
        long start = System.nanoTime();
        try {
            flushLog.run();
        } finally {
            counters.flushTook(System.nanoTime() - start);
        }
    }
}
