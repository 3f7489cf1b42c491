package org.tandembroker.perftests;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * One cell of the failover matrix: a group of {@code nodes} brokers with {@code depth} persistent messages of
 * {@code bodySize} bytes queued on the master when it is killed. A two-node group fails over when the operator
 * designates the replica primary, so its times run from the designation; a larger group elects a master, so its
 * times run from the kill. Issue 5's targets apply to 500,000 queued 2 KiB messages: the first message on the
 * new master at most 2 s after the designation (two nodes) and 3 s after the kill (three nodes).
 */
public record FailoverCell(int nodes, long depth, int bodySize) {
    static final long TARGET_DEPTH = 500_000;
    static final int TARGET_BODY_SIZE = 2048;

    public FailoverCell {
        if (nodes < 2) {
            throw new IllegalArgumentException("a replication group has at least 2 nodes, not " + nodes);
        }
        if (depth < 0) {
            throw new IllegalArgumentException("a queue depth is at least 0, not " + depth);
        }
        if (bodySize < 1) {
            throw new IllegalArgumentException("a message body has at least 1 byte, not " + bodySize);
        }
    }

    /** The message bytes queued before the kill (bodies only). */
    public long queuedBytes() {
        return Math.multiplyExact(depth, (long) bodySize);
    }

    /** True for a two-node group: the replica is designated primary over JMX after the kill. */
    public boolean byDesignation() {
        return nodes == 2;
    }

    /** Where the times start: {@code designation} (two nodes) or {@code kill -9} (an election). */
    public String measuredFrom() {
        return byDesignation() ? "designation" : "kill -9";
    }

    /** The bound on the time to the first message, for the two cells it names. */
    public Optional<Duration> target() {
        if (depth != TARGET_DEPTH || bodySize != TARGET_BODY_SIZE) {
            return Optional.empty();
        }
        return switch (nodes) {
            case 2 -> Optional.of(Duration.ofSeconds(2));
            case 3 -> Optional.of(Duration.ofSeconds(3));
            default -> Optional.empty();
        };
    }

    /** {@code 2 nodes, 500,000 x 2 KiB}. */
    public String label() {
        return String.format(Locale.ROOT, "%d nodes, %,d x %s", nodes, depth, ByteSizeConverter.format(bodySize));
    }
}
