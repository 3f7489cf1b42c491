package org.tandembroker.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.tools.group.EnableReplication;
import org.tandembroker.tools.group.ResetReplicationGroup;

/**
 * Migration of a standalone store to HA (spec 1.6.14) with {@code enable-replication}: the standalone ({@code bdb})
 * and the replicated ({@code bdb-ha}) store keep the same databases, so a converted store opened as {@code bdb-ha}
 * recovers every message, and a node added later with an empty store is restored over the network.
 */
class EnableReplicationTest {
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @TempDir
    Path directory;
    private final List<InJvmBroker> brokers = new ArrayList<>();

    @AfterEach
    void stopBrokers() {
        brokers.forEach(InJvmBroker::close);
    }

    @Test
    void aStandaloneStoreConvertedAndStartedAsBdbHaHoldsEveryMessageAndANewNodeJoinsIt() throws Exception {
        Path store = directory.resolve("store");
        InJvmBroker broker = started(InJvmBroker.standalone(directory, "node-a", store));
        Set<String> sent;
        try (SettlingProducers producers = SettlingProducers.start(broker.connectionFactory(), 2)) {
            await().atMost(DEADLINE).until(() -> producers.settledCount() >= 200);
            producers.stop();
            sent = producers.settledSoFar();
        }
        broker.close();
        int port = InJvmBroker.freePort();

        ToolRun conversion = ToolRun.of(EnableReplication::run, "--store-path", store.toString(), "--group-name",
                "migrated", "--node-name", "node-a", "--node-host-port", "localhost:" + port);

        assertThat(conversion.exitCode()).as(conversion.toString()).isZero();
        assertThat(conversion.out()).contains("is now replicated: node node-a at localhost:" + port
                + " of group migrated").contains("<store type=\"bdb-ha\">")
                .contains("<nodeHostPort>localhost:" + port + "</nodeHostPort>");

        broker.writeStore(InJvmBroker.replicatedStore(store, "migrated", "node-a", port, port));
        broker.start();
        assertThat(state(broker)).isEqualTo("MASTER");
        InJvmBroker added = started(InJvmBroker.replicated(directory, "node-b", directory.resolve("empty"), "migrated",
                InJvmBroker.freePort(), port));
        await().atMost(DEADLINE).until(() -> state(added).equals("REPLICA"));
        assertThat(added.linesWith("HA-1006")).anyMatch(line -> line.contains("complete"));

        assertThat(SettlingProducers.receiveAll(broker.connectionFactory(), sent, DEADLINE)).containsAll(sent);
    }

    @Test
    void aStoreInUseIsNeitherConvertedNorReset() throws Exception {
        Path store = directory.resolve("store");
        started(InJvmBroker.standalone(directory, "busy", store));

        ToolRun conversion = ToolRun.of(EnableReplication::run, "-storePath", store.toString(), "-groupName", "g",
                "-nodeName", "n", "-nodeHostPort", "localhost:" + InJvmBroker.freePort());
        ToolRun reset = ToolRun.of(ResetReplicationGroup::run, "--store-path", store.toString(), "--group-name", "g",
                "--node-name", "n", "--node-host-port", "localhost:" + InJvmBroker.freePort());

        assertThat(conversion.exitCode()).isEqualTo(1);
        assertThat(conversion.err()).contains("is in use (a broker has it open): stop that broker first to enable "
                + "replication");
        assertThat(reset.exitCode()).isEqualTo(1);
        assertThat(reset.err()).contains("stop that broker first to reset its replication group");
    }

    @Test
    void aDirectoryWithoutAStoreOrABadAddressIsAUsageError() throws Exception {
        Path empty = Files.createDirectories(directory.resolve("empty"));

        ToolRun noStore = ToolRun.of(ResetReplicationGroup::run, "-storePath", empty.toString(), "-groupName", "g",
                "-nodeName", "n", "-nodeHostPort", "localhost:5000");
        ToolRun badAddress = ToolRun.of(EnableReplication::run, "-h", empty.toString(), "-groupName", "g",
                "-nodeName", "n", "-nodeHostPort", "localhost");

        assertThat(noStore.exitCode()).isEqualTo(2);
        assertThat(noStore.err()).contains("holds no JE log files (*.jdb): it is not a store directory");
        assertThat(badAddress.exitCode()).isEqualTo(2);
        assertThat(badAddress.err()).contains("--node-host-port 'localhost' is not HOST:PORT");
    }

    @Test
    void bothCommandsTakeTheLongOptionsAndTheSpecsSpellings() {
        ToolRun enableHelp = ToolRun.of(EnableReplication::run, "--help");
        ToolRun resetHelp = ToolRun.of(ResetReplicationGroup::run, "--help");
        ToolRun missing = ToolRun.of(ResetReplicationGroup::run, "-storePath", "s", "--group-name", "g");

        assertThat(enableHelp.exitCode()).isZero();
        assertThat(enableHelp.out()).contains("Usage: enable-replication --store-path=DIR", "--store-path", "-storePath",
                "--group-name", "-groupName", "--node-name", "-nodeName", "--node-host-port", "-nodeHostPort");
        assertThat(resetHelp.exitCode()).isZero();
        assertThat(resetHelp.out()).contains("Usage: reset-group --store-path=DIR", "-storePath");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("Missing required options", "--node-name=NODE",
                "--node-host-port=HOST:PORT");
    }

    private InJvmBroker started(InJvmBroker broker) throws Exception {
        brokers.add(broker);
        return broker.start();
    }

    private static String state(InJvmBroker node) throws Exception {
        ToolRun run = ToolRun.haAdmin(node.asAdmin(), "status", "--json");
        return run.exitCode() != 0 ? "unreachable: " + run.err()
                : new ObjectMapper().readTree(run.out()).path("askedNodeState").asText();
    }
}
