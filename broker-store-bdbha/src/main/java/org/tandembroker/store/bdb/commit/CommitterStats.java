package org.tandembroker.store.bdb.commit;

/**
 * Counters of a {@link CoalescingCommitter} since it was created.
 *
 * @param commits        commits whose futures completed normally
 * @param failures       commits whose futures failed (including those refused after close)
 * @param flushes        coalesced flushes (fsyncs requested by the committer) that succeeded
 * @param flushedCommits commits made durable by those flushes
 * @param largestBatch   most commits made durable by one flush
 * @param queued         submissions waiting to be applied when the snapshot was taken
 */
public record CommitterStats(long commits, long failures, long flushes, long flushedCommits, long largestBatch,
                             int queued) {

    /** Commits per flush, 0 before the first flush. */
    public double averageBatchSize() {
        return flushes == 0 ? 0 : (double) flushedCommits / flushes;
    }
}
