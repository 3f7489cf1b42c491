package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The peer in the harness, so that it cannot rot: the matrix's smoke profile on the Artemis replicated pair alone
 * starts the primary and the backup as separate processes, waits for the backup's initial replication, drives one
 * producer and one consumer over AMQP with Qpid JMS through the failover URI, receives every confirmed message, and
 * stops both gracefully; the results record the generated configurations and the journal the servers used.
 * Timings are never asserted.
 */
class PeerSmokeIT {
    /** Artemis's libaio binding links against this library; where it is installed the journal must be ASYNCIO. */
    private static final List<Path> LIBAIO = List.of(Path.of("/lib/x86_64-linux-gnu/libaio.so.1"),
            Path.of("/usr/lib/x86_64-linux-gnu/libaio.so.1"), Path.of("/usr/lib64/libaio.so.1"));

    @Test
    @Timeout(240)
    void theArtemisPairStartsReplicatesCarriesMessagesThroughTheHarnessAndStops() throws Exception {
        Path resultsBase = Path.of(System.getProperty("perftests.results", "target/smoke-results"));

        MatrixBenchmark.Report report = MatrixBenchmark.run("--profile", "smoke", "--configs", "artemis-pair",
                "--results", resultsBase.toString());

        assertThat(report.runs()).singleElement().satisfies(run -> {
            assertThat(run.configuration()).isEqualTo(MatrixConfiguration.ARTEMIS_PAIR);
            assertThat(run.failure()).isNull();
            assertThat(run.result().consumedInWindow()).isPositive();
            assertThat(run.result().ledger().confirmed()).isPositive();
            assertThat(run.result().ledger().missing()).isZero();
        });
        assertThat(report.brokers()).extracting(MatrixBenchmark.BrokerNotes::process)
                .containsExactly("node-1", "node-2");
        assertThat(report.brokers()).allSatisfy(broker ->
                assertThat(broker.exitCode()).as("%s exit code", broker.process()).isEqualTo(143));

        Path folder = report.resultsFolder();
        assertThat(folder.resolve("broker-artemis-pair-primary.xml")).content().contains("<primary/>");
        assertThat(folder.resolve("broker-artemis-pair-backup.xml")).content().contains("<backup>");
        String backupConsole = Files.readString(folder.resolve("broker-artemis-pair-node-2.log"));
        assertThat(backupConsole).contains("AMQ221024", "peer backup synchronised with the primary");
        String journal = LIBAIO.stream().anyMatch(Files::exists) ? "ASYNCIO" : "NIO";
        List<String> markdown = Files.readAllLines(folder.resolve("matrix.md"));
        assertThat(markdown).anyMatch(line -> line.startsWith("| artemis-pair ") && line.contains("| " + journal + " "));
        assertThat(markdown).anyMatch(line -> line.startsWith("Peer columns: "));
        assertThat(Files.readString(folder.resolve("broker-artemis-pair-node-1.log")))
                .contains("peer: Apache ActiveMQ Artemis 2.50.0, role primary, journal " + journal);
    }
}
