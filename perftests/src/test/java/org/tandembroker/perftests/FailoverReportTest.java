package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FailoverReportTest {
    private static final FailoverCell TWO_NODE_TARGET = new FailoverCell(2, 500_000, 2048);
    private static final FailoverCell THREE_NODE_TARGET = new FailoverCell(3, 500_000, 2048);

    private static FailoverResult measured(FailoverCell cell, double toFirst, Double toDrained, long recovered,
                                           long duplicates, String note) {
        return new FailoverResult(cell, FailoverResult.Status.MEASURED, note, Duration.ofSeconds(10),
                cell.byDesignation() ? Optional.of(Duration.ofMillis(57)) : Optional.empty(),
                Optional.of(seconds(toFirst)), Optional.ofNullable(toDrained).map(FailoverReportTest::seconds),
                cell.depth() == 0 ? 1 : cell.depth(), recovered, duplicates);
    }

    private static Duration seconds(double s) {
        return Duration.ofNanos((long) (s * 1e9));
    }

    @Test
    void aTargetCellWithinItsBoundIsMetAndOneBeyondItIsMissed() {
        FailoverReport report = new FailoverReport(List.of(
                measured(TWO_NODE_TARGET, 1.9, 30.0, 500_000, 0, ""),
                measured(THREE_NODE_TARGET, 16.233, 40.0, 500_000, 3, "")));

        List<List<String>> rows = report.markdown().rows();
        assertThat(rows.get(0)).contains("2 nodes", "500,000", "2 KiB", "designation", "queued", "0.057 s",
                "1.900 s", "30 s", "500,000 of 500,000", "≤ 2 s: met");
        assertThat(rows.get(1)).contains("3 nodes", "kill -9", "-", "16.233 s", "3", "≤ 3 s: **MISSED**");
        assertThat(report.targetVerdicts()).containsExactly(
                "2 nodes, 500,000 x 2 KiB: first message at most 2 s after the designation: met (1.900 s)",
                "3 nodes, 500,000 x 2 KiB: first message at most 3 s after the kill -9: **MISSED** (16.233 s)");
        List<List<String>> csv = report.csv().rows();
        assertThat(csv.get(0)).containsSequence("2.000", "met");
        assertThat(csv.get(1)).containsSequence("3.000", "missed");
    }

    @Test
    void aTargetCellThatGotNoMessageMissedIt() {
        FailoverResult none = new FailoverResult(TWO_NODE_TARGET, FailoverResult.Status.MEASURED,
                "drain timeout PT10M: 0 of 500,000 arrived", Duration.ZERO, Optional.of(Duration.ofMillis(40)),
                Optional.empty(), Optional.empty(), 500_000, 0, 0);

        assertThat(none.targetMet()).hasValue(false);
        assertThat(new FailoverReport(List.of(none)).markdown().rows().get(0))
                .contains("none", "timed out", "0 of 500,000", "≤ 2 s: **MISSED**",
                        "drain timeout PT10M: 0 of 500,000 arrived");
    }

    @Test
    void skippedAndFailedCellsAreRowsWithTheirReasonAndNoVerdict() {
        FailoverReport report = new FailoverReport(List.of(
                FailoverResult.skipped(new FailoverCell(2, 500_000, 204800), "too large"),
                FailoverResult.failed(THREE_NODE_TARGET, "the group did not settle")));

        List<List<String>> rows = report.markdown().rows();
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)).contains("95.4 GiB", "skipped: too large").doesNotContain("none");
        assertThat(rows.get(0).get(11)).isEqualTo("-");
        assertThat(rows.get(1)).contains("≤ 3 s: not measured", "failed: the group did not settle");
        assertThat(report.targetVerdicts()).containsExactly("3 nodes, 500,000 x 2 KiB: first message at most 3 s"
                + " after the kill -9: not measured (failed: the group did not settle)");
        assertThat(report.csv().rows()).extracting(row -> row.get(4)).containsExactly("skipped", "failed");
    }

    @Test
    void depthZeroSaysItsFirstMessageWasPublishedAfterTheFailoverAndHasNoDrainTime() {
        FailoverReport report = new FailoverReport(List.of(measured(new FailoverCell(2, 0, 2048), 0.8, null, 1, 0,
                "")));

        List<String> row = report.markdown().rows().get(0);
        assertThat(row).contains("published after the failover", "0.800 s", "1 of 1");
        assertThat(row.get(8)).isEqualTo("-");
        assertThat(report.csv().rows().get(0)).contains("published-after-failover", "0.800");
        assertThat(report.targetVerdicts()).isEmpty();
    }

    @Test
    void csvHasAHeaderAndOneLinePerCell(@TempDir Path dir) throws Exception {
        FailoverReport report = new FailoverReport(List.of(measured(new FailoverCell(2, 200, 2048), 0.5, 1.25, 200,
                0, ""), FailoverResult.skipped(new FailoverCell(3, 200, 2048), "a, b")));

        report.csv().writeCsv(dir.resolve("failover.csv"));

        assertThat(Files.readAllLines(dir.resolve("failover.csv"))).containsExactly(
                "nodes,depth,body_bytes,queued_bytes,status,measured_from,first_message,designation_call_s,to_first_s,"
                        + "to_drained_s,expected,recovered,duplicates,target_s,target_met,note",
                "2,200,2048,409600,measured,designation,queued,0.057,0.500,1.250,200,200,0,,,",
                "3,200,2048,409600,skipped,kill,queued,,,,,,,,,\"a, b\"");
    }

    @Test
    void theDocumentSaysWhichTargetsWereMetAndShowsTheChart() {
        FailoverPlan plan = FailoverPlan.of(List.of(2), List.of(500_000L), List.of(2048), 4L << 30);
        String text = HaBenchmark.failoverDocument(new FailoverReport(List.of(
                measured(TWO_NODE_TARGET, 7.352, 11.7, 500_000, 0, ""))), plan, Duration.ofMinutes(10), true);

        assertThat(text).contains("| 2 nodes ", "- 2 nodes, 500,000 x 2 KiB: first message at most 2 s after the"
                + " designation: **MISSED** (7.352 s)", "(failover.png)", "more than 4 GiB");
    }
}
