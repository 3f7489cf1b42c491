package org.tandembroker.store.bdb.commit;

import java.util.concurrent.atomic.AtomicLong;

/** A committer's counters: atomics, updated on its threads, read by any thread through {@link #stats}. */
final class CommitCounters {
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong flushedCommits = new AtomicLong();
    private final AtomicLong largestBatch = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong applyNanos = new AtomicLong();
    private final AtomicLong flushNanos = new AtomicLong();
    private final AtomicLong earlyDurable = new AtomicLong();

    void committed(int count) {
        commits.addAndGet(count);
    }

    void failed(int count) {
        failures.addAndGet(count);
    }

    void transactionCommitted() {
        transactions.incrementAndGet();
    }

    /** A flush succeeded and made {@code commitsWaiting} commits durable. */
    void flushed(int commitsWaiting) {
        flushes.incrementAndGet();
        flushedCommits.addAndGet(commitsWaiting);
        largestBatch.accumulateAndGet(commitsWaiting, Math::max);
    }

    /**
     * A commit was found durable when its transaction returned: it counts for the flush that covered it, which
     * has now made {@code commitsOfThatFlush} commits durable.
     */
    void durableEarly(long commitsOfThatFlush) {
        earlyDurable.incrementAndGet();
        flushedCommits.incrementAndGet();
        largestBatch.accumulateAndGet(commitsOfThatFlush, Math::max);
    }

    void applyTook(long nanos) {
        applyNanos.addAndGet(nanos);
    }

    void flushTook(long nanos) {
        flushNanos.addAndGet(nanos);
    }

    CommitterStats stats(int queued) {
        return new CommitterStats(commits.get(), failures.get(), flushes.get(), flushedCommits.get(),
                largestBatch.get(), queued, transactions.get(), applyNanos.get(), flushNanos.get(),
                earlyDurable.get());
    }
}
