package org.tandembroker.perftests;

import java.time.Duration;
import java.util.Optional;

/**
 * What one run of the backlog benchmark ({@link BacklogRun}) measured on one replicated set-up, or why it could
 * not.
 *
 * @param setup      {@code ha-default} (a Tandem two-node group) or {@code artemis-pair}
 * @param settings   the set-up in words (store, durability, journal)
 * @param run        the round, from 1
 * @param failure    why the run could not be measured (empty: measured)
 * @param note       remarks on a measured run (empty when none)
 * @param fill       from the producers' start (their connections included) until every send was confirmed
 * @param steadyFill the part of {@code fill} from its steady start on (the load's {@code steadyAfter}; zero when the
 *                   fill ended before it)
 * @param steadyConfirmed sends confirmed within {@code steadyFill}
 * @param steadyCpu  the machine's CPU per confirmed send within {@code steadyFill}, by process (empty when there was no
 *                   steady fill or the counters could not be read)
 * @param confirmed  the backlog's confirmed sends
 * @param toFirst    from the kill of the master (Artemis) or the designation of the survivor (Tandem) to the
 *                   first message consumed on the survivor (empty: none arrived before the drain timeout)
 * @param toDrained  from the same moment until every confirmed message had arrived (empty: not before the timeout)
 * @param recovered  distinct confirmed messages that arrived
 * @param duplicates messages that arrived more than once
 */
public record BacklogResult(String setup, String settings, int run, Optional<String> failure, String note,
                            Duration fill, Duration steadyFill, long steadyConfirmed, Optional<FillCpu> steadyCpu,
                            long confirmed,
                            Optional<Duration> toFirst, Optional<Duration> toDrained, long recovered,
                            long duplicates) {

    public static BacklogResult failed(String setup, int run, String reason) {
        return new BacklogResult(setup, "", run, Optional.of(reason), "", Duration.ZERO, Duration.ZERO, 0,
                Optional.empty(), 0, Optional.empty(), Optional.empty(), 0, 0);
    }

    public boolean measured() {
        return failure.isEmpty();
    }

    /** Confirmed sends per second while the backlog was queued (0 when none were). */
    public double fillPerSecond() {
        return fill.isZero() ? 0 : confirmed / (fill.toNanos() / 1e9);
    }

    /**
     * Confirmed sends per second once the fill was steady (from the load's {@code steadyAfter} on: connections open,
     * the first compilations done), 0 when the fill ended before.
     */
    public double steadyFillPerSecond() {
        return steadyFill.isZero() ? 0 : steadyConfirmed / (steadyFill.toNanos() / 1e9);
    }

    /**
     * Messages per second from the first message consumed on the survivor until the last confirmed one arrived: the
     * drain rate of the backlog on the new master (0 when it did not drain).
     */
    public double drainPerSecond() {
        if (toFirst.isEmpty() || toDrained.isEmpty()) {
            return 0;
        }
        long nanos = toDrained.get().minus(toFirst.get()).toNanos();
        return nanos <= 0 ? 0 : recovered / (nanos / 1e9);
    }

    /** Measured, and every confirmed message arrived. */
    public boolean lossless() {
        return measured() && recovered == confirmed;
    }
}
