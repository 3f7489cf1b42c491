package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The durability matrix in its smoke profile (non-HA and the two-node default, N=1, a second's windows) against
 * the assembled broker, so that the harness cannot rot: both configurations start, measure messages and receive
 * every confirmed message, and the results folder holds a CSV, the Markdown tables, the charts and the machine.
 * Timings are never asserted.
 */
class MatrixBenchmarkSmokeIT {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @Test
    @Timeout(300)
    void aJeParameterGivenWithJeReachesEveryTandemStoreWhichRefusesOneItDoesNotKnow() throws Exception {
        Path resultsBase = Path.of(System.getProperty("perftests.results", "target/smoke-results"));

        MatrixBenchmark.Report report = MatrixBenchmark.run("--profile", "smoke", "--configs", "non-ha,default",
                "--je", "je.noSuchParameter=1", "--results", resultsBase.toString());

        assertThat(report.runs()).extracting(run -> run.configuration().id()).containsExactly("non-ha", "default");
        assertThat(report.runs()).allSatisfy(run -> assertThat(run.failure()).as(run.configuration().id())
                .startsWith("did not start").contains("je.noSuchParameter"));
        assertThat(report.complete()).isFalse();
        assertThat(report.resultsFolder().resolve("matrix.md")).content()
                .contains("JE parameters of Tandem's stores: je.noSuchParameter=1");
    }

    @Test
    @Timeout(300)
    void eachVariantsJvmOptionsAndJeParametersReachOnlyItsOwnBrokers() throws Exception {
        Path resultsBase = Path.of(System.getProperty("perftests.results", "target/smoke-results"));

        MatrixBenchmark.Report report = MatrixBenchmark.run("--profile", "smoke", "--configs", "non-ha",
                "--variant", "plain=", "--variant", "broken=-XX:+NoSuchJvmOption", "--variant",
                "unknown=je.noSuchParameter=1", "--results", resultsBase.toString());

        assertThat(report.runs()).extracting(run -> run.configuration().id())
                .containsExactly("non-ha@plain", "non-ha@broken", "non-ha@unknown");
        assertThat(report.runs().get(2).failure()).as("the variant with an unknown JE parameter")
                .startsWith("did not start").contains("je.noSuchParameter");
        assertThat(report.runs().get(0).failure()).as("the plain variant").isNull();
        assertThat(report.runs().get(0).result().ledger().missing()).isZero();
        assertThat(report.runs().get(1).failure()).as("the broken variant").startsWith("did not start")
                .contains("the process exited before it was ready");
        assertThat(report.complete()).isFalse();
        assertThat(report.resultsFolder().resolve("matrix.md")).content()
                .contains("| No HA [plain] ", "| No HA [broken] ", "broker JVM options `-XX:+NoSuchJvmOption`");
    }

    @Test
    @Timeout(300)
    void smokeProfileMeasuresNonHaAndTheDefaultAndWritesEveryOutput() throws Exception {
        Path resultsBase = Path.of(System.getProperty("perftests.results", "target/smoke-results"));

        MatrixBenchmark.Report report = MatrixBenchmark.run("--profile", "smoke", "--results", resultsBase.toString());

        assertThat(report.runs()).extracting(run -> run.configuration().id() + " N=" + run.clients())
                .containsExactly("non-ha N=1", "default N=1");
        for (MatrixRun run : report.runs()) {
            String id = run.configuration().id();
            assertThat(run.failure()).as("%s: failure", id).isNull();
            assertThat(run.result().consumedInWindow()).as("%s: consumed in the window", id).isPositive();
            assertThat(run.result().ledger().confirmed()).as("%s: confirmed sends", id).isPositive();
            assertThat(run.result().ledger().missing()).as("%s: confirmed messages never received", id).isZero();
        }
        assertThat(report.complete()).isTrue();
        assertThat(report.brokers()).extracting(MatrixBenchmark.BrokerNotes::process)
                .containsExactly("broker", "node-1", "node-2");
        assertThat(report.brokers()).allSatisfy(broker ->
                assertThat(broker.exitCode()).as("%s %s exit code", broker.configuration(), broker.process())
                        .isEqualTo(143));

        Path folder = report.resultsFolder();
        List<List<String>> csv = Files.readAllLines(folder.resolve("matrix.csv")).stream()
                .map(MatrixBenchmarkSmokeIT::csvCells).toList();
        assertThat(csv).hasSize(3);
        List<String> header = csv.get(0);
        assertThat(header).startsWith("configuration", "label", "nodes", "durability", "coalescing_sync", "n");
        for (List<String> row : csv.subList(1, 3)) {
            assertThat(row).hasSameSizeAs(header);
            assertThat(Double.parseDouble(row.get(header.indexOf("msg_per_s")))).isPositive();
            assertThat(Double.parseDouble(row.get(header.indexOf("kb_per_s")))).isPositive();
            assertThat(row.get(header.indexOf("ledger_ok"))).isEqualTo("true");
            assertThat(row.get(header.indexOf("error"))).isEmpty();
        }
        assertThat(csv.get(1).get(header.indexOf("pct_vs_non_ha"))).isEqualTo("0.00");
        for (String distribution : List.of("latency-non-ha-n1.hgrm", "latency-default-n1.hgrm",
                "send-latency-non-ha-n1.hgrm", "send-latency-default-n1.hgrm")) {
            assertThat(folder.resolve(distribution)).content().as(distribution).contains("Percentile", "#[Max     =");
        }

        List<String> markdown = Files.readAllLines(folder.resolve("matrix.md"));
        assertThat(markdown).anyMatch(line -> line.startsWith("| Test/Broker ") && line.contains("| No HA ")
                && line.contains("| NO_SYNC, NO_SYNC, SIMPLE_MAJORITY - coalescing-sync (default) |"));
        assertThat(markdown).anyMatch(line -> line.matches("\\| 1 \\(1/1\\) +\\| [\\d,]+ \\(0\\.0%\\) +\\|"
                + " [\\d,]+ \\([+-]\\d+\\.\\d%\\) +\\|"));
        assertThat(markdown).contains("## Targets", "## Messages per second", "## Latency p50 / p99 (ms)");
        assertThat(markdown).filteredOn(line -> line.startsWith("- N=16: ") || line.startsWith("- N=64: "))
                .hasSize(4).allMatch(line -> line.contains("not measured"));

        for (String chart : List.of("throughput.png", "throughput-kbs.png")) {
            byte[] png = Files.readAllBytes(folder.resolve(chart));
            assertThat(Arrays.copyOf(png, 8)).as(chart).isEqualTo(PNG_SIGNATURE);
        }
        assertThat(Files.readString(folder.resolve("machine.md"))).contains("- cores: ", "- memory: ", "- jvm: ",
                "store file system");
        assertThat(folder.resolve("broker-non-ha.log")).content().contains("BRK-1005 : Stopped");
        assertThat(folder.resolve("broker-default-node-1.log")).isNotEmptyFile();
    }

    @Test
    @Timeout(300)
    void roundsRepeatTheMatrixWithFreshBrokersAndReportTheMediansBesideEachRoundsOwnReport() throws Exception {
        Path resultsBase = Path.of(System.getProperty("perftests.results", "target/smoke-results"));

        MatrixBenchmark.Report report = MatrixBenchmark.run("--profile", "smoke", "--configs", "non-ha", "--rounds",
                "2", "--results", resultsBase.toString());

        assertThat(report.rounds()).hasSize(2);
        assertThat(report.runs()).extracting(run -> run.configuration().id() + " N=" + run.clients())
                .containsExactly("non-ha N=1", "non-ha N=1");
        assertThat(report.complete()).isTrue();
        assertThat(report.brokers()).extracting(MatrixBenchmark.BrokerNotes::process)
                .containsExactly("broker", "broker");
        assertThat(report.medians().messagesPerSecond(MatrixConfiguration.NON_HA, 1)).isPresent();

        Path folder = report.resultsFolder();
        for (String round : List.of("round-1", "round-2")) {
            assertThat(folder.resolve(round).resolve("matrix.md")).content().contains("| Test/Broker ");
            assertThat(folder.resolve(round).resolve("broker-non-ha.log")).content().contains("BRK-1005 : Stopped");
        }
        List<List<String>> csv = Files.readAllLines(folder.resolve("matrix.csv")).stream()
                .map(MatrixBenchmarkSmokeIT::csvCells).toList();
        assertThat(csv.get(0)).startsWith("round", "configuration");
        assertThat(csv.subList(1, csv.size())).extracting(row -> row.get(0) + " " + row.get(1))
                .containsExactly("1 non-ha", "2 non-ha");
        assertThat(folder.resolve("matrix.md")).content().contains("# Durability matrix, 2 rounds",
                "## Messages per second, median (lowest-highest)", "## CPU per message (µs), medians");
        byte[] png = Files.readAllBytes(folder.resolve("throughput.png"));
        assertThat(Arrays.copyOf(png, 8)).isEqualTo(PNG_SIGNATURE);
    }

    /** RFC 4180 cells of one line (quoted cells may hold commas and doubled quotes). */
    private static List<String> csvCells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
