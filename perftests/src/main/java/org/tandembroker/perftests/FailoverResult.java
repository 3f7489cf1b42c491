package org.tandembroker.perftests;

import java.time.Duration;
import java.util.Optional;

/**
 * What one cell of the failover matrix measured, or why it did not.
 *
 * @param cell             the cell
 * @param status           measured, skipped (too large for the run) or failed (the harness could not measure it)
 * @param note             the skip or failure reason, or remarks on a measured cell (empty when none)
 * @param fill             how long queueing the messages took (zero when none were queued)
 * @param designationCall  how long the JMX designation call took (two nodes; empty otherwise)
 * @param toFirst          from the kill or designation to the first message consumed on the new master (empty: none
 *                         arrived before the drain timeout)
 * @param toDrained        from the kill or designation until every confirmed message had arrived (empty: not
 *                         drained before the timeout, or a depth-0 cell, which queues nothing)
 * @param expected         messages that must arrive: the confirmed queued ones, or the one published after the
 *                         failover in a depth-0 cell
 * @param recovered        distinct expected messages that arrived
 * @param duplicates       messages that arrived more than once
 */
public record FailoverResult(FailoverCell cell, Status status, String note, Duration fill,
                             Optional<Duration> designationCall, Optional<Duration> toFirst,
                             Optional<Duration> toDrained, long expected, long recovered, long duplicates) {

    /** Whether a cell was measured. */
    public enum Status { MEASURED, SKIPPED, FAILED }

    public static FailoverResult skipped(FailoverCell cell, String reason) {
        return new FailoverResult(cell, Status.SKIPPED, reason, Duration.ZERO, Optional.empty(), Optional.empty(),
                Optional.empty(), 0, 0, 0);
    }

    public static FailoverResult failed(FailoverCell cell, String reason) {
        return new FailoverResult(cell, Status.FAILED, reason, Duration.ZERO, Optional.empty(), Optional.empty(),
                Optional.empty(), 0, 0, 0);
    }

    /** True when the first message is one published after the failover (nothing was queued). */
    public boolean firstPublishedAfterFailover() {
        return cell.depth() == 0;
    }

    /** Every expected message arrived (for a depth-0 cell: the one published after the failover). */
    public boolean lossless() {
        return status == Status.MEASURED && recovered == expected;
    }

    /**
     * Whether the target was met: empty for a cell without a target, or one that was not measured. A
     * measured target cell whose first message never came missed it.
     */
    public Optional<Boolean> targetMet() {
        if (status != Status.MEASURED) {
            return Optional.empty();
        }
        return cell.target().map(bound -> toFirst.map(t -> t.compareTo(bound) <= 0).orElse(false));
    }
}
