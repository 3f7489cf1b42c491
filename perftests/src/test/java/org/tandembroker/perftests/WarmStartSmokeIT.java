package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The warm-start benchmark at toy durations against the assembled broker, so that it cannot rot: a fresh
 * standalone broker and a two-node group whose master is killed each serve, have a curve and a warm rate, and
 * hold every confirmed message; the tables and CSV are written. Timings are never asserted.
 */
class WarmStartSmokeIT {

    @Test
    @Timeout(150)
    void aFreshBrokerAndANewMasterEachServeAndAreFollowedUntilWarm() throws Exception {
        Path resultsBase = Path.of(System.getProperty("perftests.results", "target/smoke-results"));

        WarmStartBenchmark.Report report = WarmStartBenchmark.run("--smoke", "--results", resultsBase.toString(),
                "--broker-jvm-option", "-XX:TieredStopAtLevel=1", "--broker-jvm-option", "-XX:+UseSerialGC");

        assertThat(report.rows()).extracting(row -> row.result().setup())
                .containsExactly(WarmStartRun.Setup.FRESH, WarmStartRun.Setup.FAILOVER);
        for (WarmStartBenchmark.Row row : report.rows()) {
            String setup = row.result().setup().label();
            assertThat(row.result().note()).as("%s: note", setup).isEmpty();
            assertThat(row.result().errors()).as("%s: client errors", setup).isEmpty();
            assertThat(row.reading().toServing()).as("%s: served", setup).isPresent();
            assertThat(row.reading().rates()).as("%s: one rate per second of the span", setup).hasSize(2);
            assertThat(row.reading().warmRate()).as("%s: warm rate", setup).isPositive();
            assertThat(row.result().drained()).as("%s: drained", setup).isTrue();
            assertThat(row.result().ledger().confirmed()).as("%s: confirmed sends", setup).isPositive();
            assertThat(row.result().ledger().missing()).as("%s: confirmed messages never received", setup).isZero();
        }
        assertThat(report.complete()).isTrue();

        Path folder = report.resultsFolder();
        List<String> runs = Files.readAllLines(folder.resolve("warm-start.csv"));
        assertThat(runs).hasSize(1 + 2);
        assertThat(runs.get(0)).startsWith("setup,variant,round,load_average,pairs,to_serving_s,warm_msg_per_s");
        assertThat(runs.get(1)).startsWith("fresh,default,1,");
        assertThat(runs.get(2)).startsWith("failover,default,1,");
        assertThat(Files.readAllLines(folder.resolve("warm-start-curve.csv"))).hasSize(1 + 2 * 2);
        assertThat(Files.readString(folder.resolve("warm-start.md")))
                .contains("## Best of the rounds", "## % of warm, per 2 s from serving")
                .containsPattern("\\| fresh +\\| default +\\| 1 ").containsPattern("\\| failover +\\| default +\\| 1 ")
                .containsPattern("\\| 0-2 +\\| \\d+ %");
        assertThat(folder.resolve("failover-default-1-node-2.log")).content()
                .contains("HA-1001 : Role changed : default : node node-2 is now MASTER");
        assertThat(folder.resolve("fresh-default-1-broker.log")).content().contains("BRK-1005 : Stopped");
    }
}
