package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The matrix's tables from made-up runs: the spec's layout (its row names, KB/s and the difference to No HA for
 * the same N), the targets at N = 16 and 64 with their verdicts, and failed runs as footnoted cells.
 */
class MatrixTablesTest {
    private static final MatrixConfiguration NON_HA = MatrixConfiguration.NON_HA;
    private static final MatrixConfiguration SYNC = MatrixConfiguration.SYNC_SYNC_ALL;
    private static final MatrixConfiguration DEFAULT = MatrixConfiguration.DEFAULT;

    @Test
    void specLayoutNamesRowsLikeTheSpecAndComparesEachCellWithNoHaForTheSameN() {
        List<MatrixRun> runs = List.of(run(NON_HA, 1, 1000), run(SYNC, 1, 386), run(DEFAULT, 1, 2170),
                run(NON_HA, 4, 2000), run(SYNC, 4, 302), run(DEFAULT, 4, 1000));
        Table table = new MatrixTables(List.of(NON_HA, SYNC, DEFAULT), List.of(1, 4), runs).specLayout();

        assertThat(table.rows()).containsExactly(
                List.of("1 (1/1)", "1,000 (0.0%)", "386 (-61.4%)", "2,170 (+117.0%)"),
                List.of("3 (4/4)", "2,000 (0.0%)", "302 (-84.9%)", "1,000 (-50.0%)"));
        assertThat(table.markdown()).startsWith("| Test/Broker | No HA ").contains("| SYNC, SYNC, ALL ");
        assertThat(MatrixTables.specRow(64)).isEqualTo("7 (64/64)");
        assertThat(MatrixTables.specRow(3)).isEqualTo("- (3/3)");
    }

    @Test
    void targetsAreMetWhenTheDefaultKeepsThreeQuartersOfNoHaAndFourTimesSyncSyncAll() {
        List<MatrixRun> runs = List.of(run(NON_HA, 16, 4000), run(SYNC, 16, 700), run(DEFAULT, 16, 3000),
                run(NON_HA, 64, 4000), run(SYNC, 64, 800), run(DEFAULT, 64, 3200));
        MatrixTables tables = new MatrixTables(List.of(NON_HA, SYNC, DEFAULT), List.of(16, 64), runs);

        assertThat(tables.targets()).extracting(MatrixTables.Target::outcome)
                .containsOnly(MatrixTables.Outcome.MET).hasSize(4);
        assertThat(tables.targetsMarkdown()).contains(
                "N=16: default >= 75 % of No HA: met, 75.0 % of No HA (3,000 vs 4,000 KB/s)",
                "N=64: default >= 4x SYNC, SYNC, ALL: met, 4.00x SYNC, SYNC, ALL (3,200 vs 800 KB/s)");
        assertThat(tables.specLayout().markdown()).doesNotContain("MISSED");
    }

    @Test
    void aMissedTargetIsSaidInTheTargetsAndMarkedInTheTable() {
        List<MatrixRun> runs = List.of(run(NON_HA, 16, 4000), run(SYNC, 16, 1000), run(DEFAULT, 16, 2000));
        MatrixTables tables = new MatrixTables(List.of(NON_HA, SYNC, DEFAULT), List.of(16), runs);

        assertThat(tables.targetsMarkdown()).contains(
                "N=16: default >= 75 % of No HA: **MISSED**, 50.0 % of No HA (2,000 vs 4,000 KB/s)",
                "N=16: default >= 4x SYNC, SYNC, ALL: **MISSED**, 2.00x SYNC, SYNC, ALL (2,000 vs 1,000 KB/s)",
                "N=64: default >= 75 % of No HA: not measured (N=64 is not among this run's client counts)");
        assertThat(tables.specLayout().rows().get(0).get(3)).isEqualTo("2,000 (-50.0%) **MISSED**");
        assertThat(tables.footnotesMarkdown()).contains("**MISSED**: at this N the default configuration misses");
    }

    @Test
    void aFailedRunIsAFootnotedCellAndItsTargetsAreNotMeasured() {
        List<MatrixRun> runs = new ArrayList<>(List.of(run(NON_HA, 16, 4000), run(DEFAULT, 16, 3500)));
        runs.add(MatrixRun.failed(SYNC, 16, "did not start: IllegalStateException: broker exited"));
        MatrixTables tables = new MatrixTables(List.of(NON_HA, SYNC, DEFAULT), List.of(16), runs);

        assertThat(tables.specLayout().rows().get(0)).containsExactly("5 (16/16)", "4,000 (0.0%)", "failed [1]",
                "3,500 (-12.5%)");
        assertThat(tables.footnotesMarkdown())
                .contains("[1] sync-sync-all, N=16: did not start: IllegalStateException: broker exited");
        assertThat(tables.targetsMarkdown())
                .contains("N=16: default >= 75 % of No HA: met")
                .contains("N=16: default >= 4x SYNC, SYNC, ALL: not measured (the run of sync-sync-all at N=16"
                        + " failed)");
        assertThat(tables.csv().rows()).hasSize(3)
                .allSatisfy(row -> assertThat(row).hasSize(MatrixTables.CSV_HEADER.size()));
        assertThat(tables.csv().rows().get(2).get(MatrixTables.CSV_HEADER.size() - 1)).startsWith("did not start");
    }

    @Test
    void tandemCellsCarryTheirRatioToThePeerOfTheSameKindAndThePeerPairIsComparedWithThePeerStandalone() {
        MatrixConfiguration artemis = MatrixConfiguration.ARTEMIS;
        MatrixConfiguration pair = MatrixConfiguration.ARTEMIS_PAIR;
        List<MatrixRun> runs = List.of(run(NON_HA, 16, 4000), run(DEFAULT, 16, 3000), run(artemis, 16, 2000),
                run(pair, 16, 1500));
        MatrixTables tables = new MatrixTables(List.of(NON_HA, DEFAULT, artemis, pair), List.of(16), runs);

        assertThat(tables.specLayout().rows()).containsExactly(List.of("5 (16/16)", "4,000 (0.0%) 2.00x peer",
                "3,000 (-25.0%) 2.00x peer", "2,000", "1,500 (-25.0%)"));
        assertThat(tables.hasPeer()).isTrue();
        assertThat(tables.comparesWithPeer()).isTrue();
        assertThat(new MatrixTables(List.of(pair), List.of(16), runs).comparesWithPeer()).isFalse();
        assertThat(tables.peerRatios().rows()).containsExactly(List.of("5 (16/16)", "2.00x", "2.00x"));
        assertThat(tables.peerRatios().markdown()).contains(NON_HA.label() + " / " + artemis.label(),
                DEFAULT.label() + " / " + pair.label());
        List<String> header = tables.csv().header();
        assertThat(tables.csv().rows()).extracting(row -> row.get(header.indexOf("ratio_vs_peer")))
                .containsExactly("2.000", "2.000", "", "");
    }

    @Test
    void withoutItsPeerColumnATandemCellHasNoRatioAndTheRatioTableLeavesItOut() {
        List<MatrixRun> runs = List.of(run(NON_HA, 4, 1000), run(DEFAULT, 4, 800),
                run(MatrixConfiguration.ARTEMIS_PAIR, 4, 400));
        MatrixTables tables = new MatrixTables(List.of(NON_HA, DEFAULT, MatrixConfiguration.ARTEMIS_PAIR),
                List.of(4), runs);

        assertThat(tables.specLayout().rows().get(0)).containsExactly("3 (4/4)", "1,000 (0.0%)",
                "800 (-20.0%) 2.00x peer", "400");
        assertThat(tables.peerRatios().rows()).containsExactly(List.of("3 (4/4)", "2.00x"));
        assertThat(tables.peerRatios().markdown()).doesNotContain(NON_HA.label());
    }

    @Test
    void aRunThatLostAConfirmedMessageFailsEvenWithAThroughputFigure() {
        PairedLoad.Result lost = result(4, 5000, new DeliveryLedger.Check(5000, 4999, 1, 0, 0), true, List.of());
        MatrixRun run = new MatrixRun(DEFAULT, 4, lost, 0, null);

        assertThat(run.failure()).isEqualTo("1 confirmed messages were never received");
        MatrixTables tables = new MatrixTables(List.of(DEFAULT), List.of(4), List.of(run));
        assertThat(tables.messagesPerSecond().rows().get(0)).containsExactly("3 (4/4)", "failed [1]");
        assertThat(tables.csv().rows().get(0)).contains("500.0", "false");
    }

    @Test
    void withoutNoHaTheCellsCarryNoPercentage() {
        MatrixConfiguration external = MatrixConfiguration.external("their broker");
        MatrixTables tables = new MatrixTables(List.of(external), List.of(1), List.of(run(external, 1, 1234)));

        assertThat(tables.specLayout().rows()).containsExactly(List.of("1 (1/1)", "1,234"));
        assertThat(tables.specLayout().markdown()).contains("| their broker |");
        assertThat(tables.targetsMarkdown()).contains("not measured (default is not among this run's"
                + " configurations)");
    }

    @Test
    void cpuPerMessageDividesEachPartsShareOfACoreByTheRateAndLeavesOutWhatTheSetUpHasNot() {
        Histogram latency = new Histogram(3);
        latency.recordValue(1500);
        // 1,000 msg/s over 10 s; the broker used 5 s of CPU (50 % of a core), the clients 8 s, the rest 1 s.
        PairedLoad.Result measured = new PairedLoad.Result(16, 1024, Duration.ofSeconds(10), 10_000, 10_000, latency,
                latency, Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(1),
                PairedLoad.FsyncCount.unavailable("test"), new DeliveryLedger.Check(10_000, 10_000, 0, 0, 0), true,
                List.of());
        List<MatrixRun> runs = List.of(new MatrixRun(DEFAULT, 16, measured, 25, null),
                new MatrixRun(NON_HA, 16, measured, 0, null));
        Table table = new MatrixTables(List.of(DEFAULT, NON_HA), List.of(16), runs).cpuPerMessage();

        assertThat(table.rows()).containsExactly(List.of("5 (16/16)", "500 / 250 / 800 / 100", "500 / - / 800 / 100"));
    }

    @Test
    void theCsvCarriesEachRunsLatencyTailsAndTheWholeDistributionsGoToTheirOwnFiles() {
        Histogram latency = new Histogram(3);
        Histogram send = new Histogram(3);
        for (long millis = 1; millis <= 1000; millis++) {
            latency.recordValue(millis * 1000);
            send.recordValue(millis * 100);
        }
        PairedLoad.Result measured = new PairedLoad.Result(16, 1024, Duration.ofSeconds(10), 1000, 1000, latency,
                send, Duration.ZERO, Duration.ZERO, Duration.ZERO, PairedLoad.FsyncCount.unavailable("test"),
                new DeliveryLedger.Check(1000, 1000, 0, 0, 0), true, List.of());
        MatrixTables tables = new MatrixTables(List.of(NON_HA, DEFAULT), List.of(16),
                List.of(new MatrixRun(NON_HA, 16, measured, 0, null), MatrixRun.failed(DEFAULT, 16, "did not start")));

        List<String> header = tables.csv().header();
        List<String> row = tables.csv().rows().get(0);
        assertThat(header).containsSubsequence("latency_p50_ms", "latency_p90_ms", "latency_p99_ms",
                "latency_p99_9_ms", "latency_max_ms");
        assertThat(Double.parseDouble(row.get(header.indexOf("latency_p50_ms")))).isCloseTo(500, within(1.0));
        assertThat(Double.parseDouble(row.get(header.indexOf("latency_p90_ms")))).isCloseTo(900, within(1.0));
        assertThat(Double.parseDouble(row.get(header.indexOf("latency_p99_ms")))).isCloseTo(990, within(1.0));
        assertThat(Double.parseDouble(row.get(header.indexOf("latency_p99_9_ms")))).isCloseTo(999, within(1.0));
        assertThat(Double.parseDouble(row.get(header.indexOf("latency_max_ms")))).isCloseTo(1000, within(1.0));
        assertThat(header).containsSubsequence("send_p50_ms", "send_p99_ms", "send_p99_9_ms");
        assertThat(Double.parseDouble(row.get(header.indexOf("send_p50_ms")))).isCloseTo(50, within(0.1));
        assertThat(Double.parseDouble(row.get(header.indexOf("send_p99_ms")))).isCloseTo(99, within(0.1));
        assertThat(Double.parseDouble(row.get(header.indexOf("send_p99_9_ms")))).isCloseTo(99.9, within(0.1));

        assertThat(tables.latencyDistributions())
                .containsOnlyKeys("latency-non-ha-n16.hgrm", "send-latency-non-ha-n16.hgrm");
        String distribution = tables.latencyDistributions().get("latency-non-ha-n16.hgrm");
        assertThat(distribution).contains("Value", "Percentile", "TotalCount", "#[Max     =");
        assertThat(distribution.lines().filter(line -> line.trim().startsWith("999.")).findFirst())
                .as("a line for the tail near the maximum, in milliseconds").isPresent();
        assertThat(tables.latencyDistributions().get("send-latency-non-ha-n16.hgrm").lines()
                .filter(line -> line.trim().startsWith("99.9")).findFirst())
                .as("the sends' tail, a tenth of the end-to-end one").isPresent();
    }

    /** A successful run of {@code kbPerSecond} with 1 KB bodies over a 10 s window. */
    @Test
    void withVariantsEachVariantsDefaultIsJudgedAgainstTheSameVariantsNoHaAndMarkedOnItsOwn() {
        BrokerVariant on = new BrokerVariant("on", Path.of("lib"), List.of(), List.of());
        BrokerVariant off = new BrokerVariant("off", Path.of("lib"), List.of(), List.of("-Dx=false"));
        MatrixConfiguration nonHaOn = NON_HA.withVariant(on);
        MatrixConfiguration nonHaOff = NON_HA.withVariant(off);
        MatrixConfiguration defaultOn = DEFAULT.withVariant(on);
        MatrixConfiguration defaultOff = DEFAULT.withVariant(off);
        List<MatrixRun> runs = List.of(run(nonHaOn, 16, 4000), run(nonHaOff, 16, 2000), run(defaultOn, 16, 3200),
                run(defaultOff, 16, 1800));
        MatrixTables tables = new MatrixTables(List.of(nonHaOn, nonHaOff, defaultOn, defaultOff), List.of(16), runs);

        // 3,200 / 4,000 = 80 % for "on", 1,800 / 2,000 = 90 % for "off": each against its own No HA.
        assertThat(tables.specLayout().rows()).containsExactly(List.of("5 (16/16)", "4,000 (0.0%)", "2,000 (0.0%)",
                "3,200 (-20.0%)", "1,800 (-10.0%)"));
        assertThat(tables.targetsMarkdown()).contains(
                "N=16: default [on] >= 75 % of No HA: met, 80.0 % of No HA (3,200 vs 4,000 KB/s)",
                "N=16: default [off] >= 75 % of No HA: met, 90.0 % of No HA (1,800 vs 2,000 KB/s)",
                "N=16: default [off] >= 4x SYNC, SYNC, ALL: not measured (sync-sync-all@off is not among");
        assertThat(tables.specLayout().markdown()).contains("| No HA [on] ", "| No HA [off] ")
                .doesNotContain("MISSED");
    }

    @Test
    void aVariantThatMissesATargetIsTheOnlyColumnMarked() {
        BrokerVariant a = new BrokerVariant("a", Path.of("lib"), List.of(), List.of());
        BrokerVariant b = new BrokerVariant("b", Path.of("lib"), List.of(), List.of());
        List<MatrixConfiguration> columns = List.of(NON_HA.withVariant(a), NON_HA.withVariant(b),
                DEFAULT.withVariant(a), DEFAULT.withVariant(b));
        MatrixTables tables = new MatrixTables(columns, List.of(16), List.of(run(columns.get(0), 16, 4000),
                run(columns.get(1), 16, 4000), run(columns.get(2), 16, 3600), run(columns.get(3), 16, 2000)));

        assertThat(tables.specLayout().rows().get(0)).containsExactly("5 (16/16)", "4,000 (0.0%)", "4,000 (0.0%)",
                "3,600 (-10.0%)", "2,000 (-50.0%) **MISSED**");
    }

    private static MatrixRun run(MatrixConfiguration configuration, int n, long kbPerSecond) {
        long messages = kbPerSecond * 10;
        return new MatrixRun(configuration, n, result(n, messages,
                new DeliveryLedger.Check(messages, messages, 0, 0, 0), true, List.of()), 0, null);
    }

    private static PairedLoad.Result result(int n, long messages, DeliveryLedger.Check ledger, boolean drained,
                                            List<String> errors) {
        Histogram latency = new Histogram(3);
        latency.recordValue(1500);
        return new PairedLoad.Result(n, 1024, Duration.ofSeconds(10), messages, messages, latency, latency,
                Duration.ZERO, Duration.ZERO, Duration.ZERO, PairedLoad.FsyncCount.unavailable("test"), ledger, drained,
                errors);
    }
}
