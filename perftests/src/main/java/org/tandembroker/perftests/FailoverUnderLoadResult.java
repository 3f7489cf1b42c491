package org.tandembroker.perftests;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What one failover-under-load run measured ({@link FailoverUnderLoadRun}); every time runs from the {@code kill -9}
 * of the master.
 *
 * @param topology            the group
 * @param status              measured, or failed (the harness could not measure)
 * @param note                why it failed, or remarks (empty when none)
 * @param producers           producers sending during the kill
 * @param designationCall     how long the JMX designation took (two nodes without an arbiter; empty otherwise)
 * @param consumerRestored    the consumer's connection restored on the survivor
 * @param firstConsumed       the first message the consumer received after that
 * @param lastProducerRestored the last producer's connection restored
 * @param producersResumedP50 the median producer's first confirmed send after the kill
 * @param producersResumedMax the last producer's first confirmed send after the kill (empty: one never resumed)
 * @param longestGap          the longest time between two confirmed sends of one producer over the run
 * @param confirmed           confirmed sends
 * @param lost                confirmed sends never received
 * @param duplicates          messages received more than once
 * @param unconfirmedArrivals messages received whose send was not confirmed (in-doubt sends)
 */
public record FailoverUnderLoadResult(FailoverTopology topology, Status status, String note, int producers,
                                      Optional<Duration> designationCall, Optional<Duration> consumerRestored,
                                      Optional<Duration> firstConsumed, Optional<Duration> lastProducerRestored,
                                      Optional<Duration> producersResumedP50, Optional<Duration> producersResumedMax,
                                      Duration longestGap, long confirmed, long lost, long duplicates,
                                      long unconfirmedArrivals) {

    public enum Status { MEASURED, FAILED }

    public static FailoverUnderLoadResult failed(FailoverTopology topology, String reason) {
        return new FailoverUnderLoadResult(topology, Status.FAILED, reason, 0, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Duration.ZERO, 0, 0, 0, 0);
    }

    /** The column headers of {@link #row()}. */
    public static List<String> headers() {
        return List.of("group", "producers", "designation call", "consumer reconnected", "first message consumed",
                "last producer reconnected", "producers resumed p50", "producers resumed max",
                "longest gap between confirmed sends", "confirmed", "lost", "duplicates", "note");
    }

    public List<String> row() {
        return List.of(topology.label(), Integer.toString(producers), seconds(designationCall),
                seconds(consumerRestored), seconds(firstConsumed), seconds(lastProducerRestored),
                seconds(producersResumedP50), seconds(producersResumedMax),
                status == Status.MEASURED ? FailoverReport.seconds(longestGap) : "-",
                String.format(Locale.ROOT, "%,d", confirmed), String.format(Locale.ROOT, "%,d", lost),
                String.format(Locale.ROOT, "%,d", duplicates), note.isEmpty() ? status.name().toLowerCase(Locale.ROOT)
                        : note);
    }

    /** Every confirmed send arrived. */
    public boolean lossless() {
        return status == Status.MEASURED && lost == 0;
    }

    /** One line for the console. */
    public String summary() {
        return String.format(Locale.ROOT, "%s: first message consumed %s after the kill, producers resumed %s "
                        + "(p50 %s), longest gap between confirmed sends %s; %,d confirmed, %,d lost, %,d duplicates%s",
                topology.label(), seconds(firstConsumed), seconds(producersResumedMax), seconds(producersResumedP50),
                FailoverReport.seconds(longestGap), confirmed, lost, duplicates, note.isEmpty() ? "" : " (" + note + ")");
    }

    private static String seconds(Optional<Duration> duration) {
        return duration.map(FailoverReport::seconds).orElse("-");
    }
}
