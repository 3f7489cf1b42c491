package org.tandembroker.store.bdb.commit;

/**
 * Counters of a {@link CoalescingCommitter} since it was created.
 *
 * @param commits        commits whose futures completed normally
 * @param failures       commits whose futures failed (including those refused after close)
 * @param flushes        coalesced flushes (fsyncs requested by the committer) that succeeded
 * @param flushedCommits commits made durable by those flushes (including those a flush covered before their
 *                       transaction returned)
 * @param largestBatch   most commits made durable by one flush (a commit that a flush covered before its
 *                       transaction returned counts for that flush)
 * @param queued         submissions waiting to be applied when the snapshot was taken
 * @param transactions   transactions committed; fewer than the submissions they carried when an applier pool
 *                       batches several submissions into one transaction
 * @param applyNanos     time spent committing transactions (summed over appliers; includes waits for replica
 *                       acknowledgements)
 * @param flushNanos     time spent in coalesced flushes
 * @param earlyDurable   commits whose record a flush had already made durable when their transaction returned
 *                       (the fsync overlapped the wait for replica acknowledgements)
 */
public record CommitterStats(long commits, long failures, long flushes, long flushedCommits, long largestBatch,
                             int queued, long transactions, long applyNanos, long flushNanos,
                             long earlyDurable) {

    /** Commits per flush, 0 before the first flush. */
    public double averageBatchSize() {
        return flushes == 0 ? 0 : (double) flushedCommits / flushes;
    }

    /** Submissions per transaction, 0 before the first transaction. */
    public double submissionsPerTransaction() {
        return transactions == 0 ? 0 : (double) (commits + failures) / transactions;
    }

    /** One line for the operator's log: how the commits went. */
    public String summary() {
        return String.format(java.util.Locale.ROOT,
                "%d commits (%d failed) in %d transactions (%.1f per transaction, %.2f ms each on average);"
                        + " %d flushes (%.1f commits each, at most %d; %.2f ms each on average);"
                        + " %d commits durable before their transaction returned",
                commits, failures, transactions, submissionsPerTransaction(),
                transactions == 0 ? 0 : applyNanos / 1e6 / transactions, flushes, averageBatchSize(), largestBatch,
                flushes == 0 ? 0 : flushNanos / 1e6 / flushes, earlyDurable);
    }
}
