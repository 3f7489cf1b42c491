package org.tandembroker.management.store;

/**
 * A JE store's disk use, from JE's own figures ({@code EnvironmentStats}), not from the directory size (which
 * counts files JE has already cleaned and will delete). A figure JE did not give is -1.
 *
 * @param available  bytes the store may still write before JE's disk limits ({@code maxDisk}, {@code je.freeDisk}
 *                   and the volume's free space) stop its writes; reserved files JE may delete count as available
 * @param total      bytes of all log files
 * @param active     bytes of log files holding live data
 * @param reserved   bytes of cleaned log files kept for replicas that may need them (the log kept for absent or
 *                   lagging replicas); deleted when space is needed
 * @param protectedBytes bytes of reserved files that may not be deleted now (a replica or a backup uses them)
 */
public record DiskFigures(long available, long total, long active, long reserved, long protectedBytes) {
}
