package org.tandembroker.perftests;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What the replica catch-up benchmark measured: a two-node group whose replica was stopped while {@code backlog}
 * messages were published to the designated-primary master, then restarted. Times run from the restart of the
 * replica's process.
 *
 * @param backlog       messages published (and confirmed) while the replica was down
 * @param bodySize      their body size
 * @param stoppedBy     how the replica was stopped: {@code SIGTERM} or {@code kill -9}
 * @param publish       how long publishing the backlog took
 * @param vlsnsBehind   replication stream entries (VLSNs) the master wrote while the replica was down
 * @param toListening   restart to the replica's {@code listening on amqp://...} line
 * @param toJoined      restart to the first DbPing answer of the replica as REPLICA (empty: never)
 * @param toCaughtUp    restart until the replica's last transaction (DbPing) reached the master's (empty: not
 *                      within the timeout)
 * @param toLagZero     restart until the master's {@code ReplicationLag} for the replica read 0 (empty: never)
 * @param verification  when asked for: the backlog consumed from the replica after the master was stopped and the
 *                      replica designated primary
 * @param note          remarks (a timeout, a shortfall); empty when none
 */
public record CatchUpResult(long backlog, int bodySize, String stoppedBy, Duration publish, long vlsnsBehind,
                            Duration toListening, Optional<Duration> toJoined, Optional<Duration> toCaughtUp,
                            Optional<Duration> toLagZero, Optional<DeliveryLedger.Check> verification, String note) {

    /** Backlog messages per second, over restart to caught up. */
    public OptionalDouble messagesPerSecond() {
        return rate(backlog, toCaughtUp);
    }

    /** Backlog body megabytes (10^6 bytes) per second, over restart to caught up. */
    public OptionalDouble megabytesPerSecond() {
        return rate(backlog * (double) bodySize / 1e6, toCaughtUp);
    }

    /** From joining the group (DbPing says REPLICA) to caught up: the replay without the process start. */
    public Optional<Duration> joinedToCaughtUp() {
        return toJoined.flatMap(joined -> toCaughtUp.map(caughtUp -> caughtUp.minus(joined)));
    }

    /** Backlog messages per second from joining to caught up. */
    public OptionalDouble messagesPerSecondAfterJoining() {
        return rate(backlog, joinedToCaughtUp());
    }

    /** Backlog megabytes per second from joining to caught up. */
    public OptionalDouble megabytesPerSecondAfterJoining() {
        return rate(backlog * (double) bodySize / 1e6, joinedToCaughtUp());
    }

    /** Every confirmed message was consumed from the replica, if that was checked. */
    public boolean lossless() {
        return verification.map(DeliveryLedger.Check::complete).orElse(true);
    }

    public Table markdown() {
        Table table = new Table(List.of("backlog", "body", "replica stopped by", "restart → listening",
                "restart → joined", "restart → caught up", "joined → caught up", "msg/s", "MB/s",
                "msg/s after joining", "MB/s after joining", "master's ReplicationLag 0 at", "VLSNs replayed",
                "consumed from the replica", "note"));
        table.add(List.of(String.format(Locale.ROOT, "%,d", backlog), ByteSizeConverter.format(bodySize), stoppedBy,
                FailoverReport.seconds(toListening), seconds(toJoined), toCaughtUp.map(FailoverReport::seconds)
                        .orElse("not within the timeout"), seconds(joinedToCaughtUp()),
                number(messagesPerSecond(), "%,.0f"), number(megabytesPerSecond(), "%,.1f"),
                number(messagesPerSecondAfterJoining(), "%,.0f"), number(megabytesPerSecondAfterJoining(), "%,.1f"),
                seconds(toLagZero), String.format(Locale.ROOT, "%,d", vlsnsBehind),
                verification.map(c -> String.format(Locale.ROOT, "%,d of %,d (%,d duplicates)",
                        c.received() - c.unconfirmedArrivals(), c.confirmed(), c.duplicates())).orElse("not checked"),
                note));
        return table;
    }

    public Table csv() {
        Table table = new Table(List.of("backlog", "body_bytes", "stopped_by", "publish_s", "vlsns_behind",
                "to_listening_s", "to_joined_s", "to_caught_up_s", "joined_to_caught_up_s", "msg_per_s", "mb_per_s",
                "msg_per_s_after_joining", "mb_per_s_after_joining", "to_lag_zero_s", "verified_confirmed",
                "verified_received", "verified_duplicates", "note"));
        table.add(List.of(Long.toString(backlog), Integer.toString(bodySize), stoppedBy, plain(Optional.of(publish)),
                Long.toString(vlsnsBehind), plain(Optional.of(toListening)), plain(toJoined), plain(toCaughtUp),
                plain(joinedToCaughtUp()), plain(messagesPerSecond(), "%.1f"), plain(megabytesPerSecond(), "%.3f"),
                plain(messagesPerSecondAfterJoining(), "%.1f"), plain(megabytesPerSecondAfterJoining(), "%.3f"),
                plain(toLagZero), verification.map(c -> Long.toString(c.confirmed())).orElse(""),
                verification.map(c -> Long.toString(c.received() - c.unconfirmedArrivals())).orElse(""),
                verification.map(c -> Long.toString(c.duplicates())).orElse(""), note));
        return table;
    }

    private static OptionalDouble rate(double amount, Optional<Duration> over) {
        return over.filter(d -> d.toNanos() > 0).map(d -> OptionalDouble.of(amount * 1e9 / d.toNanos()))
                .orElse(OptionalDouble.empty());
    }

    private static String seconds(Optional<Duration> d) {
        return d.map(FailoverReport::seconds).orElse("-");
    }

    private static String plain(Optional<Duration> d) {
        return d.map(x -> String.format(Locale.ROOT, "%.3f", x.toNanos() / 1e9)).orElse("");
    }

    private static String plain(OptionalDouble value, String format) {
        return value.isPresent() ? String.format(Locale.ROOT, format, value.getAsDouble()) : "";
    }

    private static String number(OptionalDouble value, String format) {
        return value.isPresent() ? String.format(Locale.ROOT, format, value.getAsDouble()) : "-";
    }
}
