package org.tandembroker.store.bdb;

import com.sleepycat.je.EnvironmentStats;

/**
 * JE's own account of a store's log on disk, for disk-space reporting (the directory size overstates it: it counts
 * files the cleaner will delete). Immutable.
 *
 * @param availableLogSize bytes that can still be written before JE's disk limits stop writes
 * @param totalLogSize     bytes of all log files
 * @param activeLogSize    bytes holding live data
 * @param reservedLogSize  bytes of cleaned files kept (e.g. for replicas that are behind) until space is needed
 * @param protectedLogSize bytes of files that may not be deleted now (backups, lagging replicas' feeders)
 * @param logFsyncs        fsyncs of the log since the environment opened
 */
public record JeLogFigures(long availableLogSize, long totalLogSize, long activeLogSize, long reservedLogSize,
                           long protectedLogSize, long logFsyncs) {

    public static JeLogFigures of(EnvironmentStats stats) {
        return new JeLogFigures(stats.getAvailableLogSize(), stats.getTotalLogSize(), stats.getActiveLogSize(),
                stats.getReservedLogSize(), stats.getProtectedLogSize(), stats.getNLogFSyncs());
    }
}
