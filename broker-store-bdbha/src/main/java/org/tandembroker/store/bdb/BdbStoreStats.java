package org.tandembroker.store.bdb;

import org.tandembroker.store.bdb.commit.CommitterStats;

/**
 * A snapshot of a JE store's counters, for metrics.
 *
 * @param committer        the coalescing committer's counters
 * @param logFsyncs        fsyncs JE performed on its log (all causes: commits, flushes, checkpoints)
 * @param totalLogSize     bytes of JE log files on disk
 * @param availableLogSize bytes JE may still write before its disk limits stop writes
 */
public record BdbStoreStats(CommitterStats committer, long logFsyncs, long totalLogSize, long availableLogSize) {
}
