package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The matrix over several rounds, from made-up runs: each cell is the median of the rounds that measured it with
 * the lowest and highest beside it, and every ratio (Tandem / peer, share of No HA, N over the previous N) is taken
 * within a round first, then its median, with each round's ratio listed.
 */
class MatrixMediansTest {
    private static final MatrixConfiguration NON_HA = MatrixConfiguration.NON_HA;
    private static final MatrixConfiguration DEFAULT = MatrixConfiguration.DEFAULT;
    private static final MatrixConfiguration PAIR = MatrixConfiguration.ARTEMIS_PAIR;
    private static final List<MatrixConfiguration> CONFIGURATIONS = List.of(NON_HA, DEFAULT, PAIR);

    @Test
    void eachCellIsTheMedianOfTheRoundsWithTheLowestAndTheHighest() {
        MatrixMedians medians = new MatrixMedians(CONFIGURATIONS, List.of(16), List.of(
                round(16, 8000, 6000, 5000), round(16, 9000, 7000, 8000), round(16, 7000, 6500, 4000)));

        assertThat(medians.messagesPerSecondTable().rows()).containsExactly(
                List.of("5 (16/16)", "8,000 (7,000-9,000)", "6,500 (6,000-7,000)", "5,000 (4,000-8,000)"));
        assertThat(medians.messagesPerSecond(DEFAULT, 16)).hasValue(6500);
    }

    @Test
    void theRatioToThePeerIsTakenWithinEachRoundThenItsMedianNotTheRatioOfTheMedians() {
        // Rounds: 6,000 / 5,000 = 1.20x, 7,000 / 8,000 = 0.88x, 6,500 / 4,000 = 1.63x; the ratio of the medians
        // would be 6,500 / 5,000 = 1.30x.
        MatrixMedians medians = new MatrixMedians(CONFIGURATIONS, List.of(16), List.of(
                round(16, 8000, 6000, 5000), round(16, 9000, 7000, 8000), round(16, 7000, 6500, 4000)));

        assertThat(medians.peerRatios().header()).containsExactly("Test (producers/consumers)",
                DEFAULT.label() + " / " + PAIR.label());
        assertThat(medians.peerRatios().rows()).containsExactly(
                List.of("5 (16/16)", "1.20x (1.20x / 0.88x / 1.63x)"));
        assertThat(medians.shareOfStandalone()).get().extracting(Table::rows).isEqualTo(List.of(
                List.of("5 (16/16)", "78 % (75 % / 78 % / 93 %)")));
    }

    @Test
    void aRoundThatFailedACellLeavesItOutOfTheMedianAndIsCounted() {
        MatrixTables failedRound = new MatrixTables(CONFIGURATIONS, List.of(16), List.of(run(NON_HA, 16, 8000),
                MatrixRun.failed(DEFAULT, 16, "did not start: no quorum"), run(PAIR, 16, 5000)));
        MatrixMedians medians = new MatrixMedians(CONFIGURATIONS, List.of(16), List.of(
                round(16, 8000, 6000, 5000), failedRound, round(16, 7000, 7200, 4000)));

        assertThat(medians.messagesPerSecondTable().rows().get(0).get(2)).isEqualTo("6,600 (6,000-7,200) [2 of 3]");
        assertThat(medians.peerRatios().rows().get(0).get(1)).isEqualTo("1.50x (1.20x / - / 1.80x)");
    }

    @Test
    void growthComparesEachNWithThePreviousNWithinEachRound() {
        MatrixTables first = new MatrixTables(CONFIGURATIONS, List.of(64, 256), List.of(run(NON_HA, 64, 10000),
                run(NON_HA, 256, 8000), run(DEFAULT, 64, 6000), run(DEFAULT, 256, 6000), run(PAIR, 64, 5000),
                run(PAIR, 256, 6000)));
        MatrixTables second = new MatrixTables(CONFIGURATIONS, List.of(64, 256), List.of(run(NON_HA, 64, 9000),
                run(NON_HA, 256, 9000), run(DEFAULT, 64, 7000), run(DEFAULT, 256, 6300), run(PAIR, 64, 8000),
                run(PAIR, 256, 6400)));

        MatrixMedians medians = new MatrixMedians(CONFIGURATIONS, List.of(64, 256), List.of(first, second));

        assertThat(medians.growth()).get().extracting(Table::rows).isEqualTo(List.of(List.of("256 / 64",
                "0.90x (0.80x / 1.00x)", "0.95x (1.00x / 0.90x)", "1.00x (1.20x / 0.80x)")));
    }

    @Test
    void cpuPerMessageIsTheMedianOfEachPartAndLatencyTheMedianOfEachPercentile() {
        // 1,000 msg/s; the broker at 40, 50 and 70 % of a core: 400, 500 and 700 µs per message.
        MatrixTables a = new MatrixTables(List.of(DEFAULT), List.of(16), List.of(cpuRun(4, 25, 1000)));
        MatrixTables b = new MatrixTables(List.of(DEFAULT), List.of(16), List.of(cpuRun(5, 20, 3000)));
        MatrixTables c = new MatrixTables(List.of(DEFAULT), List.of(16), List.of(cpuRun(7, 30, 2000)));

        MatrixMedians medians = new MatrixMedians(List.of(DEFAULT), List.of(16), List.of(a, b, c));

        assertThat(medians.cpuPerMessage().rows()).containsExactly(List.of("5 (16/16)", "500 / 250 / 800 / 100"));
        assertThat(medians.latency().rows()).containsExactly(List.of("5 (16/16)", "2.00 / 2.00"));
    }

    @Test
    void withVariantsEachLaterVariantIsTakenOverTheFirstWithinEachRoundAndEachPairOverItsOwnNoHa() {
        BrokerVariant base = new BrokerVariant("base", Path.of("lib"), List.of(), List.of());
        BrokerVariant next = new BrokerVariant("next", Path.of("other-lib"), List.of(), List.of());
        List<MatrixConfiguration> columns = List.of(NON_HA.withVariant(base), NON_HA.withVariant(next),
                DEFAULT.withVariant(base), DEFAULT.withVariant(next), PAIR);
        // Round 1: next / base = 1.10x standalone, 1.25x pair; round 2: 0.90x and 1.05x.
        MatrixTables first = new MatrixTables(columns, List.of(16), List.of(run(columns.get(0), 16, 10000),
                run(columns.get(1), 16, 11000), run(columns.get(2), 16, 6000), run(columns.get(3), 16, 7500),
                run(PAIR, 16, 5000)));
        MatrixTables second = new MatrixTables(columns, List.of(16), List.of(run(columns.get(0), 16, 10000),
                run(columns.get(1), 16, 9000), run(columns.get(2), 16, 8000), run(columns.get(3), 16, 8400),
                run(PAIR, 16, 8000)));

        MatrixMedians medians = new MatrixMedians(columns, List.of(16), List.of(first, second));

        assertThat(medians.variantRatios()).get().extracting(Table::header).isEqualTo(List.of(
                "Test (producers/consumers)", "No HA [next] / No HA [base]",
                DEFAULT.label() + " [next] / " + DEFAULT.label() + " [base]"));
        assertThat(medians.variantRatios()).get().extracting(Table::rows).isEqualTo(List.of(
                List.of("5 (16/16)", "1.00x (1.10x / 0.90x)", "1.15x (1.25x / 1.05x)")));
        // Each pair over the No HA of its own variant: 60 % and 80 %; 68 % and 93 %.
        assertThat(medians.shareOfStandalone()).get().extracting(Table::rows).isEqualTo(List.of(
                List.of("5 (16/16)", "70 % (60 % / 80 %)", "81 % (68 % / 93 %)")));
        assertThat(medians.peerRatios().rows()).containsExactly(
                List.of("5 (16/16)", "1.10x (1.20x / 1.00x)", "1.28x (1.50x / 1.05x)"));
    }

    @Test
    void withoutASecondVariantThereIsNoVariantTable() {
        assertThat(new MatrixMedians(CONFIGURATIONS, List.of(16), List.of(round(16, 8000, 6000, 5000)))
                .variantRatios()).isEmpty();
    }

    private static MatrixTables round(int n, long standalone, long pair, long peerPair) {
        return new MatrixTables(CONFIGURATIONS, List.of(n), List.of(run(NON_HA, n, standalone),
                run(DEFAULT, n, pair), run(PAIR, n, peerPair)));
    }

    /** A successful run at {@code perSecond} msg/s with 1 KiB bodies over a 10 s window. */
    private static MatrixRun run(MatrixConfiguration configuration, int n, long perSecond) {
        long messages = perSecond * 10;
        Histogram latency = new Histogram(3);
        latency.recordValue(1500);
        PairedLoad.Result result = new PairedLoad.Result(n, 1024, Duration.ofSeconds(10), messages, messages, latency,
                latency, Duration.ZERO, Duration.ZERO, Duration.ZERO, PairedLoad.FsyncCount.unavailable("test"),
                new DeliveryLedger.Check(messages, messages, 0, 0, 0), true, List.of());
        return new MatrixRun(configuration, n, result, 0, null);
    }

    /**
     * The default at N=16, 1,000 msg/s over 10 s: the broker used {@code brokerSeconds} of CPU, the replicas
     * {@code replicaPercent} of a core, the clients 8 s, the rest 1 s; one message took {@code latencyMicros}.
     */
    private static MatrixRun cpuRun(long brokerSeconds, double replicaPercent, long latencyMicros) {
        Histogram latency = new Histogram(3);
        latency.recordValue(latencyMicros);
        PairedLoad.Result result = new PairedLoad.Result(16, 1024, Duration.ofSeconds(10), 10_000, 10_000, latency,
                latency, Duration.ofSeconds(brokerSeconds), Duration.ofSeconds(8), Duration.ofSeconds(1),
                PairedLoad.FsyncCount.unavailable("test"), new DeliveryLedger.Check(10_000, 10_000, 0, 0, 0), true,
                List.of());
        return new MatrixRun(DEFAULT, 16, result, replicaPercent, null);
    }
}
