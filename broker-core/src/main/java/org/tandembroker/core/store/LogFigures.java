package org.tandembroker.core.store;

/**
 * A log-structured store's own account of its files on disk (for a JE store, JE's environment statistics). The
 * directory size would overstate the use: it counts files the store has cleaned and will delete. A figure the store
 * could not give is -1. Immutable.
 *
 * @param availableLogSize bytes the store may still write before its disk limits stop its writes (reserved files it
 *                         may delete count as available)
 * @param totalLogSize     bytes of all log files
 * @param activeLogSize    bytes of log files holding live data
 * @param reservedLogSize  bytes of cleaned log files kept (for replicas that may still need them) until space is
 *                         needed
 * @param protectedLogSize bytes of reserved files that may not be deleted now (a replica or a backup uses them)
 * @param logFsyncs        fsyncs of the log since the store opened
 */
public record LogFigures(long availableLogSize, long totalLogSize, long activeLogSize, long reservedLogSize,
                         long protectedLogSize, long logFsyncs) {
}
