package org.tandembroker.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spec's figure 1.3 driven with {@code ha-admin} in a two-node group: the master fails, the operator designates
 * the replica, which becomes master; then the failed node, still stopped, is moved to a new address and finally
 * removed from the group.
 */
class HaAdminFailoverTest {
    private static final Duration ROLE_DEADLINE = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path directory;
    private InJvmBroker first;
    private InJvmBroker second;

    @AfterEach
    void stop() {
        if (second != null) {
            second.close();
        }
        if (first != null) {
            first.close();
        }
    }

    @Test
    void afterTheMasterFailedTheDesignatedReplicaBecomesMasterAndTheStoppedNodeIsMovedThenRemoved() throws Exception {
        int firstPort = InJvmBroker.freePort();
        first = InJvmBroker.replicated(directory, "node-1", directory.resolve("s1"), "pair", firstPort, firstPort)
                .start();
        second = InJvmBroker.replicated(directory, "node-2", directory.resolve("s2"), "pair", InJvmBroker.freePort(),
                firstPort).start();
        await().atMost(ROLE_DEADLINE).until(() -> status(second).path("askedNodeState").asText().equals("REPLICA"));

        first.close();
        await().atMost(ROLE_DEADLINE).until(() -> !status(second).path("askedNodeState").asText().equals("REPLICA"));
        // node-1 hung rather than gone (kill -STOP): its port accepts connections, nothing answers. The broker's
        // split-brain check gives it a few seconds, not ha-admin's whole --timeout, and the operator is told.
        ToolRun designation;
        try (ServerSocket hungNode = new ServerSocket()) {
            hungNode.setReuseAddress(true);
            hungNode.bind(new InetSocketAddress("localhost", firstPort), 50);
            designation = ToolRun.haAdmin(second.asAdmin(), "designate-primary", "node-2", "--wait", "60",
                    "--timeout", "30");
        }

        assertThat(designation.exitCode()).as(designation.toString()).isZero();
        assertThat(designation.out()).startsWith("node node-2 is designated primary; it is MASTER\nnode node-2 is "
                + "designated primary; checked the other nodes first: did not answer within 3 s")
                .contains("node-1 (localhost:" + firstPort + "): node node-1 (localhost:" + firstPort + ") did not "
                        + "answer within 3000 ms");
        JsonNode afterFailover = status(second);
        assertThat(afterFailover.path("master").asText()).isEqualTo("node-2");
        assertThat(afterFailover.path("designatedPrimary").asBoolean()).isTrue();

        int newPort = InJvmBroker.freePort();
        ToolRun move = ToolRun.haAdmin(second.asAdmin(), "update-address", "node-1", "127.0.0.1",
                String.valueOf(newPort), "--json");

        assertThat(move.exitCode()).as(move.toString()).isZero();
        assertThat(JSON.readTree(move.out()).path("hostPort").asText()).isEqualTo("127.0.0.1:" + newPort);
        assertThat(hostPortOf(status(second), "node-1")).isEqualTo("127.0.0.1:" + newPort);

        ToolRun removal = ToolRun.haAdmin(second.asAdmin(), "remove-node", "node-1");

        assertThat(removal.exitCode()).as(removal.toString()).isZero();
        assertThat(removal.out()).isEqualTo("node node-1 removed from group pair (asked node node-2)\n");
        assertThat(StreamSupport.stream(status(second).path("nodes").spliterator(), false)
                .map(n -> n.path("name").asText())).containsExactly("node-2");
    }

    private static JsonNode status(InJvmBroker node) throws Exception {
        ToolRun run = ToolRun.haAdmin(node.asAdmin(), "status", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        return JSON.readTree(run.out());
    }

    private static String hostPortOf(JsonNode status, String name) {
        for (JsonNode node : status.path("nodes")) {
            if (node.path("name").asText().equals(name)) {
                return node.path("hostPort").asText();
            }
        }
        throw new AssertionError("no node " + name + " in " + status);
    }
}
