package org.tandembroker.core.store;

/**
 * Counters of a store's commit pipeline since it started (for a group-commit store: its coalescing committer).
 *
 * @param commits        commits whose futures completed normally
 * @param failures       commits whose futures failed
 * @param flushes        coalesced flushes (one fsync each) that succeeded
 * @param flushedCommits commits made durable by those flushes
 * @param largestBatch   most commits one flush made durable
 */
public record CommitterStatistics(long commits, long failures, long flushes, long flushedCommits,
                                  long largestBatch) {
}
