package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HaBenchmarkTest {

    private static HaBenchmark.RoundTrip roundTrips(String setup, long... micros) {
        Histogram histogram = new Histogram(60_000_000L, 3);
        for (long m : micros) {
            histogram.recordValue(m);
        }
        return new HaBenchmark.RoundTrip(setup, "store of " + setup, histogram);
    }

    private static FailoverPlan plan(String... args) {
        HaBenchmark benchmark = new HaBenchmark();
        new CommandLine(benchmark).parseArgs(args);
        return benchmark.plan();
    }

    @Test
    void haDefaultRoundTripWithinOneMillisecondMeetsTheTargetAndTheOtherSetupsHaveNone() {
        List<HaBenchmark.RoundTrip> rows = List.of(roundTrips("ha-default", 700, 800, 900, 5000),
                roundTrips("standalone", 300, 400, 500));

        Table table = HaBenchmark.roundTripTable(rows);

        assertThat(table.rows().get(0)).contains("ha-default", "0.80", "p50 ≤ 1 ms: met");
        assertThat(table.rows().get(1)).contains("standalone", "0.40").endsWith("-");
        assertThat(HaBenchmark.roundTripVerdict(rows)).contains("p50 ≤ 1 ms: met (p50 0.80 ms)");
    }

    @Test
    void haDefaultRoundTripAboveOneMillisecondMissesTheTarget() {
        List<HaBenchmark.RoundTrip> rows = List.of(roundTrips("ha-default", 1900, 2070, 2100));

        assertThat(HaBenchmark.roundTripTable(rows).rows().get(0)).contains("2.07", "p50 ≤ 1 ms: **MISSED**");
        assertThat(HaBenchmark.roundTripVerdict(rows)).contains("**MISSED** (p50 2.07 ms)");
        assertThat(HaBenchmark.roundTripVerdict(List.of(roundTrips("standalone", 100)))).contains("not measured");
    }

    private static BacklogResult backlogRun(String setup, int run, long fillMillis, long steadyConfirmed,
                                            FillCpu cpu) {
        return new BacklogResult(setup, setup + " settings", run, Optional.empty(), "", Duration.ofMillis(fillMillis),
                Duration.ofSeconds(10), steadyConfirmed, Optional.ofNullable(cpu), 500_000,
                Optional.of(Duration.ofSeconds(1)), Optional.of(Duration.ofSeconds(21)), 500_000, 0);
    }

    @Test
    void theBacklogReportShowsEachRunsSteadyCpuByProcessAndTheMedianOfThreeRunsBesideTheBest() {
        BacklogRun.Load load = new BacklogRun.Load(500_000, 2048, 32, 1, 8, Duration.ofSeconds(20));
        List<BacklogResult> runs = List.of(
                backlogRun("ha-default", 1, 100_000, 80_000, new FillCpu(70, 25, 80, 15, 5)),
                backlogRun("artemis-pair", 1, 50_000, 100_000, null),
                backlogRun("ha-default", 2, 62_500, 90_000, null),
                backlogRun("artemis-pair", 2, 62_500, 90_000, null),
                backlogRun("ha-default", 3, 50_000, 100_000, null),
                backlogRun("artemis-pair", 3, 100_000, 80_000, null));

        String document = HaBenchmark.backlogDocument(load, runs);

        assertThat(document).contains("| 70 / 25 / 80 / 15 µs, idle 5 %");
        // fills of 5,000, 8,000 and 10,000 msg/s on both sides: best 10,000 each, median 8,000 each
        assertThat(document).contains("Median of the runs");
        assertThat(document.lines().filter(line -> line.startsWith("| fill msg/s"))
                .map(line -> line.split("\\s*\\|\\s*")))
                .as("best, then median").extracting(cells -> cells[2] + " " + cells[3] + " " + cells[4])
                .containsExactly("10,000 10,000 1.00x", "8,000 8,000 1.00x");
        assertThat(HaBenchmark.median(runs, "ha-default", BacklogResult::steadyFillPerSecond)).contains(9_000.0);
        assertThat(HaBenchmark.median(runs.subList(0, 4), "ha-default", BacklogResult::fillPerSecond))
                .as("two runs: the mean of both").contains(6_500.0);
        assertThat(HaBenchmark.median(runs, "no-such-setup", BacklogResult::fillPerSecond)).isEmpty();
    }

    @Test
    void theDocumentedSingleCellCommandStillPlansOneCell() {
        FailoverPlan plan = plan("failover", "--nodes", "2", "--depth", "500000", "--body-size", "2048");

        assertThat(plan.cellsToRun()).containsExactly(new FailoverCell(2, 500_000, 2048));
    }

    @Test
    void withoutOptionsTheMatrixIsTheIssues() {
        FailoverPlan plan = plan("failover");

        assertThat(plan.entries()).hasSize(18);
        assertThat(plan.maxQueuedBytes()).isEqualTo(4L << 30);
        assertThat(plan.cellsToRun()).contains(new FailoverCell(2, 500_000, 2048), new FailoverCell(3, 500_000, 2048))
                .hasSize(12);
    }

    @Test
    void listsAndTheByteLimitAreReadFromTheCommandLine() {
        FailoverPlan plan = plan("failover", "--nodes", "2,3", "--depths", "0,2000", "--sizes", "2048,20480",
                "--max-queued-bytes", "10MiB");

        assertThat(plan.entries()).hasSize(8);
        assertThat(plan.entries()).filteredOn(e -> !e.runs()).extracting(FailoverPlan.Entry::cell)
                .containsExactly(new FailoverCell(2, 2000, 20480), new FailoverCell(3, 2000, 20480));
        assertThatThrownBy(() -> plan("failover", "--sizes", "2048", "--body-size", "1024"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("not both");
    }
}
