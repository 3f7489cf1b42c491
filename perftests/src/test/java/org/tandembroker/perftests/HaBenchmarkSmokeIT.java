package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The replicated store's failover and catch-up benchmarks at toy sizes against the assembled broker, so that they
 * cannot rot: each failover cell (two nodes, depths 0 and 200) gets a first message on the new master and every
 * confirmed message back, the catch-up of a replica stopped for a 300-message backlog is seen through JMX, and
 * the tables, CSV and chart are written. Timings are never asserted.
 */
class HaBenchmarkSmokeIT {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    /** Broker JVMs that start faster: the smoke run measures nothing. */
    private static final List<String> QUICK_BROKER = List.of("--broker-jvm-option", "-XX:TieredStopAtLevel=1",
            "--broker-jvm-option", "-XX:+UseSerialGC");

    private static String resultsBase() {
        return Path.of(System.getProperty("perftests.results", "target/smoke-results")).toString();
    }

    private static String[] args(List<String> args) {
        return java.util.stream.Stream.concat(args.stream(), QUICK_BROKER.stream()).toArray(String[]::new);
    }

    @Test
    @Timeout(180)
    void failoverCellsGetTheFirstMessageAndEveryConfirmedMessageFromTheNewMaster() throws Exception {
        HaBenchmark.Report report = HaBenchmark.run(args(List.of("failover", "--nodes", "2", "--depths", "0,200",
                "--sizes", "2048", "--drain-timeout", "60s", "--results", resultsBase())));

        assertThat(report.failover()).extracting(FailoverResult::cell)
                .containsExactly(new FailoverCell(2, 0, 2048), new FailoverCell(2, 200, 2048));
        for (FailoverResult r : report.failover()) {
            String cell = r.cell().label();
            assertThat(r.status()).as("%s: %s", cell, r.note()).isEqualTo(FailoverResult.Status.MEASURED);
            assertThat(r.designationCall()).as("%s: designation call", cell).isPresent();
            assertThat(r.toFirst()).as("%s: first message", cell).isPresent();
            assertThat(r.recovered()).as("%s: confirmed messages received", cell).isEqualTo(r.expected());
        }
        assertThat(report.failover().get(0).expected()).as("depth 0: the message published after the failover")
                .isEqualTo(1);
        FailoverResult queued = report.failover().get(1);
        assertThat(queued.expected()).as("depth 200: confirmed sends").isEqualTo(200);
        assertThat(queued.toDrained()).as("depth 200: drained").isPresent();
        assertThat(queued.toDrained().get()).isGreaterThanOrEqualTo(queued.toFirst().get());
        assertThat(report.ok()).isTrue();

        Path folder = report.resultsFolder();
        List<String> csv = Files.readAllLines(folder.resolve("failover.csv"));
        assertThat(csv).hasSize(3);
        assertThat(csv.get(0)).startsWith("nodes,depth,body_bytes,queued_bytes,status");
        assertThat(csv.get(1)).startsWith("2,0,2048,0,measured,designation,published-after-failover,");
        assertThat(csv.get(2)).startsWith("2,200,2048,409600,measured,designation,queued,");
        assertThat(Files.readString(folder.resolve("failover.md")))
                .contains("| 2 nodes", "published after the failover", "200 of 200", "(failover.png)");
        byte[] png = Files.readAllBytes(folder.resolve("failover.png"));
        assertThat(Arrays.copyOf(png, 8)).isEqualTo(PNG_SIGNATURE);
        assertThat(folder.resolve("machine.md")).content().contains("cores");
        assertThat(folder.resolve("failover-02-node-2.log")).content()
                .contains("HA-1001 : Role changed : default : node node-2 is now MASTER");
    }

    @Test
    @Timeout(180)
    void aRestartedReplicaIsSeenToCatchUpAndHoldsEveryConfirmedMessage() throws Exception {
        HaBenchmark.Report report = HaBenchmark.run(args(List.of("catchup", "--backlog", "300", "--drain-timeout",
                "90s", "--results", resultsBase())));

        CatchUpResult r = report.catchUp().orElseThrow();
        assertThat(r.note()).isEmpty();
        assertThat(r.vlsnsBehind()).as("replication stream entries written while the replica was down")
                .isGreaterThanOrEqualTo(300);
        assertThat(r.toJoined()).as("joined").isPresent();
        assertThat(r.toCaughtUp()).as("caught up").isPresent();
        assertThat(r.toCaughtUp().get()).isGreaterThanOrEqualTo(r.toJoined().get());
        assertThat(r.messagesPerSecond()).isPresent();
        assertThat(r.verification()).as("consumed from the replica").isPresent();
        DeliveryLedger.Check check = r.verification().get();
        assertThat(check.confirmed()).isEqualTo(300);
        assertThat(check.missing()).as("confirmed messages missing on the replica").isZero();
        assertThat(report.ok()).isTrue();

        Path folder = report.resultsFolder();
        List<String> csv = Files.readAllLines(folder.resolve("catchup.csv"));
        assertThat(csv).hasSize(2);
        assertThat(csv.get(0)).startsWith("backlog,body_bytes,stopped_by");
        assertThat(csv.get(1)).startsWith("300,2048,SIGTERM,");
        assertThat(Files.readString(folder.resolve("catchup.md"))).contains("# Replica catch-up", "300 of 300");
    }

    @Test
    @Timeout(300)
    void aBacklogIsFilledAndDrainedAfterTheFailoverOnTandemAndOnThePeerPair() throws Exception {
        HaBenchmark.Report report = HaBenchmark.run(args(List.of("backlog", "--backlog", "300", "--producers", "3",
                "--consumers", "2", "--in-flight", "10", "--drain-timeout", "90s", "--tandem-warm-up", "1s",
                "--steady-after", "0s",
                "--results", resultsBase())));

        assertThat(report.backlog()).extracting(BacklogResult::setup).containsExactly("ha-default", "artemis-pair");
        for (BacklogResult r : report.backlog()) {
            assertThat(r.failure()).as("%s: %s", r.setup(), r.failure()).isEmpty();
            assertThat(r.confirmed()).as("%s: confirmed sends", r.setup()).isEqualTo(300);
            assertThat(r.recovered()).as("%s: confirmed messages consumed after the failover", r.setup())
                    .isEqualTo(300);
            assertThat(r.toFirst()).as("%s: first message", r.setup()).isPresent();
            assertThat(r.toDrained()).as("%s: drained", r.setup()).isPresent();
            assertThat(r.fillPerSecond()).isPositive();
            assertThat(r.steadyConfirmed()).as("%s: steady from the start, every send", r.setup()).isEqualTo(300);
            assertThat(r.steadyFillPerSecond()).isPositive();
            assertThat(r.steadyCpu()).as("%s: CPU per message while filling", r.setup()).isPresent();
            assertThat(r.steadyCpu().get().masterMicros()).as("%s: the master's CPU", r.setup()).isPositive();
            assertThat(r.drainPerSecond()).isPositive();
        }
        assertThat(report.ok()).isTrue();

        Path folder = report.resultsFolder();
        List<String> csv = Files.readAllLines(folder.resolve("backlog.csv"));
        assertThat(csv).hasSize(3);
        assertThat(csv.get(0)).startsWith("setup,run,status,fill_s,fill_per_s").contains(",steady_fill_per_s,steady_cpu_master_us,")
                .endsWith(",steady_idle_percent");
        assertThat(csv.get(1)).startsWith("ha-default,1,measured,");
        assertThat(csv.get(2)).startsWith("artemis-pair,1,measured,");
        assertThat(Files.readString(folder.resolve("backlog.md"))).contains("# A backlog filled", "300 of 300",
                "Tandem / peer", "verdicts are indicative only", "warm-up 1.0 s", "steady fill msg/s (from 0 s)",
                "steady CPU (master / replica / clients / rest)");
        assertThat(folder.resolve("backlog-ha-default-1-node-2.log")).content()
                .contains("HA-1001 : Role changed : default : node node-2 is now MASTER")
                .contains("BRK-1010 : Warm-up").contains("ended at warmUp@duration 1s");
    }
}
