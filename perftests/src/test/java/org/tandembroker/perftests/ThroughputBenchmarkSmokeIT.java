package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The throughput harness in its smoke mode (N=1, 1 s warm-up, 1 s window) against the assembled broker, so that
 * it cannot rot: every store setup yields a row with messages flowing, every confirmed message arrives, each
 * broker stops gracefully, and the table and CSV are written. Timings are never asserted.
 */
class ThroughputBenchmarkSmokeIT {

    @Test
    @Timeout(120)
    void smokeRunMeasuresEveryStoreSetupAndReceivesEveryConfirmedMessage() throws Exception {
        Path resultsBase = Path.of(System.getProperty("perftests.results", "target/smoke-results"));

        ThroughputBenchmark.Report report = ThroughputBenchmark.run("--smoke", "--results", resultsBase.toString());

        assertThat(report.rows()).extracting(row -> row.store().name())
                .containsExactly("coalescing", "no-sync", "sync");
        for (ThroughputBenchmark.Row row : report.rows()) {
            PairedLoad.Result result = row.result();
            String store = row.store().name();
            assertThat(result.pairs()).as(store).isEqualTo(1);
            assertThat(result.producedInWindow()).as("%s: messages produced in the window", store).isPositive();
            assertThat(result.consumedInWindow()).as("%s: messages consumed in the window", store).isPositive();
            assertThat(result.consumedPerSecond()).as("%s: consumption rate", store).isPositive();
            assertThat(result.latencyMicros().getTotalCount()).as("%s: latencies recorded", store).isPositive();
            assertThat(result.errors()).as("%s: client errors", store).isEmpty();
            assertThat(result.drained()).as("%s: backlog drained", store).isTrue();
            assertThat(result.ledger().confirmed()).as("%s: confirmed sends", store).isPositive();
            assertThat(result.ledger().missing()).as("%s: confirmed messages never received", store).isZero();
        }
        assertThat(report.brokers()).allSatisfy(broker -> {
            assertThat(broker.exitCode()).as("%s: exit code after SIGTERM", broker.store().name()).isEqualTo(143);
            assertThat(broker.errors()).as("%s: ERROR lines: %s", broker.store().name(), broker.problems()).isZero();
        });

        Path folder = report.resultsFolder();
        List<String> csv = Files.readAllLines(folder.resolve("throughput.csv"));
        assertThat(csv).hasSize(1 + 3);
        assertThat(csv.get(0)).startsWith("store,durability,coalescingSync");
        String markdown = Files.readString(folder.resolve("throughput.md"));
        assertThat(markdown).contains("| coalescing ", "| no-sync ", "| sync ", "**not fsynced**");
        assertThat(folder.resolve("machine.md")).isNotEmptyFile();
        assertThat(folder.resolve("broker-coalescing.log")).content().contains("BRK-1005 : Stopped");
    }
}
