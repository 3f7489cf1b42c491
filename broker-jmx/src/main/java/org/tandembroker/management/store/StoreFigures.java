package org.tandembroker.management.store;

import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.tandembroker.core.store.CommitterStatistics;
import org.tandembroker.core.store.replication.ReplicaLag;

/**
 * One virtual host's store at one moment, as {@link StoreFigureReader} read it: what metrics, the JMX beans and
 * the disk watermark show. Immutable.
 *
 * @param type        the store type: {@code bdb}, {@code bdb-ha}, {@code memory}, ... ({@code none} without a store)
 * @param role        the store's role: STANDALONE, MASTER, REPLICA, UNKNOWN, DETACHED, CLOSED
 * @param writable    whether commits can succeed now
 * @param disk        the store's disk figures (empty for stores without them, or while the store is not open)
 * @param committer   the commit pipeline's counters (empty unless the store commits here)
 * @param logFsyncs   fsyncs of the store's log since it opened; -1 unknown
 * @param replicaLags on an HA master, each connected replica's lag
 */
public record StoreFigures(String type, String role, boolean writable, Optional<DiskFigures> disk,
                           Optional<CommitterStatistics> committer, long logFsyncs,
                           SortedMap<String, ReplicaLag> replicaLags) {

    public StoreFigures {
        replicaLags = Collections.unmodifiableSortedMap(new TreeMap<>(replicaLags));
    }

    /** Before the first reading, or for a host without a store. */
    public static StoreFigures none(String role) {
        return new StoreFigures("none", role, false, Optional.empty(), Optional.empty(), -1, new TreeMap<>());
    }
}
