package org.tandembroker.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.tools.haadmin.HaAdmin;

/**
 * {@code ha-admin} against a running two-node group (node-1 master, node-2 replica, neither designated): each
 * command's output and JSON, and its exit codes: 0 done, 1 refused by the broker, 2 usage, 3 cannot connect,
 * 4 authentication or role. What changes the group for good (designation after a failure, moving and removing a
 * node) is in {@link HaAdminFailoverTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HaAdminTest {
    private static final Duration ROLE_DEADLINE = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    private InJvmBroker first;
    private InJvmBroker second;

    @BeforeAll
    void startPair(@TempDir Path directory) throws Exception {
        int firstPort = InJvmBroker.freePort();
        int secondPort = InJvmBroker.freePort();
        first = InJvmBroker.replicated(directory, "node-1", directory.resolve("node-1-store"), "pair", firstPort,
                firstPort).start();
        second = InJvmBroker.replicated(directory, "node-2", directory.resolve("node-2-store"), "pair", secondPort,
                firstPort).start();
        await().atMost(ROLE_DEADLINE).until(() -> status(second).path("askedNodeState").asText().equals("REPLICA"));
        await().atMost(ROLE_DEADLINE).until(() -> "REPLICA".equals(node(status(first), "node-2").path("state")
                .asText()));
    }

    @AfterAll
    void stopPair() {
        if (second != null) {
            second.close();
        }
        if (first != null) {
            first.close();
        }
    }

    @Test
    void statusListsEveryNodeWithItsStateAndOnTheMasterEachReplicasLag() throws Exception {
        ToolRun run = ToolRun.haAdmin(first.asAdmin(), "status", "--json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode status = JSON.readTree(run.out());
        assertThat(status.path("group").asText()).isEqualTo("pair");
        assertThat(status.path("virtualHost").asText()).isEqualTo("default");
        assertThat(status.path("askedNode").asText()).isEqualTo("node-1");
        assertThat(status.path("askedNodeState").asText()).isEqualTo("MASTER");
        assertThat(status.path("master").asText()).isEqualTo("node-1");
        assertThat(status.path("designatedPrimary").asBoolean()).isFalse();
        assertThat(StreamSupport.stream(status.path("nodes").spliterator(), false).map(n -> n.path("name").asText()))
                .containsExactly("node-1", "node-2");
        JsonNode replica = node(status, "node-2");
        assertThat(replica.path("hostPort").asText()).startsWith("localhost:");
        assertThat(replica.path("type").asText()).isEqualTo("ELECTABLE");
        assertThat(replica.path("state").asText()).isEqualTo("REPLICA");
        assertThat(replica.path("lagVlsns").isNumber()).as("lag known on the master").isTrue();
        assertThat(replica.path("lagVlsns").asLong()).isNotNegative();
        assertThat(node(status, "node-1").path("lagVlsns").isNull()).as("no lag of the master itself").isTrue();
    }

    @Test
    void statusAsTextIsATableOfTheNodes() {
        ToolRun run = ToolRun.haAdmin(second.asAdmin(), "status");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("group pair, virtual host default, asked node node-2 (REPLICA)")
                .contains("master: node-1; node-2 is not designated primary")
                .containsPattern("NODE\\s+HOST:PORT\\s+TYPE\\s+STATE\\s+LAG\\(VLSN\\)\\s+DELAY\\(ms\\)")
                .containsPattern("node-1\\s+localhost:\\d+\\s+ELECTABLE\\s+MASTER")
                .containsPattern("node-2\\s+localhost:\\d+\\s+ELECTABLE\\s+REPLICA");
    }

    @Test
    void pingShowsTheNodesOwnAnswerAsJesDbPingPrintsIt() throws Exception {
        ToolRun text = ToolRun.haAdmin(second.asAdmin(), "ping", "node-1");
        ToolRun json = ToolRun.haAdmin(second.asAdmin(), "ping", "node-1", "--json");

        assertThat(text.exitCode()).as(text.toString()).isZero();
        assertThat(text.out()).contains("Current state of node: node-1 from group: pair")
                .contains("  Current state: MASTER").contains("  Current master: node-1")
                .contains("  Current JE version: 18.3.12").contains("Current transaction end (abort or commit) VLSN: ");
        assertThat(json.exitCode()).as(json.toString()).isZero();
        JsonNode answer = JSON.readTree(json.out());
        assertThat(answer.path("node").asText()).isEqualTo("node-1");
        assertThat(answer.path("state").asText()).isEqualTo("MASTER");
        assertThat(answer.path("master").asText()).isEqualTo("node-1");
        assertThat(answer.path("transactionEndVlsn").asLong()).isPositive();
        assertThat(answer.path("activeFeeders").asInt()).isEqualTo(1);
        assertThat(answer.fieldNames()).toIterable().contains("hostPort", "jeVersion", "logVersion",
                "masterTransactionEndVlsn", "systemLoad");
    }

    @Test
    void designatingTheReplicaWhileTheMasterAnswersIsRefusedWithTheSplitBrainExplanation() throws Exception {
        ToolRun run = ToolRun.haAdmin(second.asAdmin(), "designate-primary", "node-2");

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.err()).startsWith("ha-admin designate-primary: ")
                .contains("refused to designate node node-2 primary")
                .contains("node node-1 (localhost:").contains("still answers as MASTER")
                .contains("split brain").contains("designate-primary node-2 --force");
        assertThat(status(second).path("designatedPrimary").asBoolean()).isFalse();
    }

    @Test
    void withJsonARefusalIsAJsonObjectToo() throws Exception {
        ToolRun run = ToolRun.haAdmin(second.asAdmin(), "designate-primary", "node-2", "--json");

        assertThat(run.exitCode()).isEqualTo(1);
        JsonNode error = JSON.readTree(run.out());
        assertThat(error.path("ok").asBoolean()).isFalse();
        assertThat(error.path("exitCode").asInt()).isEqualTo(1);
        assertThat(error.path("error").asText()).contains("still answers as MASTER").contains("split brain");
    }

    @Test
    void aForcedDesignationIsDoneAndTakenBack() throws Exception {
        ToolRun forced = ToolRun.haAdmin(second.asAdmin(), "designate-primary", "node-2", "--force", "--json");
        ToolRun undone = ToolRun.haAdmin(second.asAdmin(), "undesignate-primary", "node-2");

        assertThat(forced.exitCode()).as(forced.toString()).isZero();
        JsonNode designation = JSON.readTree(forced.out());
        assertThat(designation.path("node").asText()).isEqualTo("node-2");
        assertThat(designation.path("designatedPrimary").asBoolean()).isTrue();
        assertThat(designation.path("forced").asBoolean()).isTrue();
        assertThat(designation.path("nodeState").asText()).isEqualTo("REPLICA");
        assertThat(undone.exitCode()).as(undone.toString()).isZero();
        assertThat(undone.out()).isEqualTo("node node-2 is no longer designated primary; it is REPLICA\n");
        assertThat(status(second).path("designatedPrimary").asBoolean()).isFalse();
    }

    @Test
    void designationOfAnotherNodeFindsItsConnectorThroughTheGroup() throws Exception {
        ToolRun designated = ToolRun.haAdmin(second.asAdmin(), "designate-primary", "node-1", "--json");
        boolean designatedSeenOnNode1 = status(first).path("designatedPrimary").asBoolean();
        ToolRun undone = ToolRun.haAdmin(second.asAdmin(), "undesignate-primary", "node-1");

        assertThat(designated.exitCode()).as(designated.toString()).isZero();
        JsonNode designation = JSON.readTree(designated.out());
        assertThat(designation.path("node").asText()).isEqualTo("node-1");
        assertThat(designation.path("nodeState").asText()).isEqualTo("MASTER");
        assertThat(designatedSeenOnNode1).isTrue();
        assertThat(undone.exitCode()).as(undone.toString()).isZero();
        assertThat(undone.out()).isEqualTo("node node-1 is no longer designated primary; it is MASTER\n");
        assertThat(status(first).path("designatedPrimary").asBoolean()).isFalse();
    }

    @Test
    void theMasterRoleMovesToTheReplicaAndBack() throws Exception {
        ToolRun there = ToolRun.haAdmin(first.asAdmin(), "transfer-master", "node-2", "--json");
        assertThat(there.exitCode()).as(there.toString()).isZero();
        assertThat(JSON.readTree(there.out()).path("master").asText()).isEqualTo("node-2");
        await().atMost(ROLE_DEADLINE).until(() -> status(second).path("askedNodeState").asText().equals("MASTER")
                && status(first).path("askedNodeState").asText().equals("REPLICA"));

        ToolRun again = ToolRun.haAdmin(second.asAdmin(), "transfer-master", "node-2");
        assertThat(again.exitCode()).as(again.toString()).isEqualTo(1);
        assertThat(again.err()).contains("node node-2 is the master already");

        ToolRun back = ToolRun.haAdmin(first.asAdmin(), "transfer-master", "node-1", "--timeout-seconds", "30");
        assertThat(back.exitCode()).as(back.toString()).isZero();
        assertThat(back.out()).isEqualTo("node node-1 is the master of group pair (asked node node-1)\n");
        // The group as the other tests find it: the master sees node-2 as its replica, and node-2 itself has left
        // the UNKNOWN state it passes through after losing the master role and knows its master.
        await().atMost(ROLE_DEADLINE).until(() -> status(first).path("askedNodeState").asText().equals("MASTER")
                && "REPLICA".equals(node(status(first), "node-2").path("state").asText())
                && status(second).path("askedNodeState").asText().equals("REPLICA")
                && status(second).path("master").asText().equals("node-1"));
    }

    @Test
    void aRunningNodeCanNeitherBeRemovedNorMoved() {
        ToolRun removal = ToolRun.haAdmin(first.asAdmin(), "remove-node", "node-2");
        ToolRun move = ToolRun.haAdmin(first.asAdmin(), "update-address", "node-2", "elsewhere.example.com", "5999");

        assertThat(removal.exitCode()).as(removal.toString()).isEqualTo(1);
        assertThat(removal.err()).contains("node node-2 is running (it is REPLICA at localhost:")
                .contains("must be in a STOPPED state");
        assertThat(move.exitCode()).as(move.toString()).isEqualTo(1);
        assertThat(move.err()).contains("node node-2 is running");
    }

    @Test
    void anUnknownNodeOrVirtualHostIsAUsageErrorThatListsWhatThereIs() {
        ToolRun node = ToolRun.haAdmin(first.asAdmin(), "ping", "node-9");
        ToolRun host = ToolRun.haAdmin(first.asAdmin(), "status", "--vhost", "elsewhere");

        assertThat(node.exitCode()).isEqualTo(2);
        assertThat(node.err()).contains("no node 'node-9' in group pair; its nodes: node-1, node-2");
        assertThat(host.exitCode()).isEqualTo(2);
        assertThat(host.err()).contains("virtual host 'elsewhere'").contains("default (bdb-ha)");
    }

    @Test
    void wrongCredentialsOrAUserWithoutARoleExitWithFour() {
        String[] wrongPassword = {"--port", String.valueOf(first.jmxPort), "--user", "admin", "--password", "nope"};

        ToolRun wrong = ToolRun.haAdmin(wrongPassword, "status");
        ToolRun noRole = ToolRun.haAdmin(first.as("guest"), "status");

        assertThat(wrong.exitCode()).isEqualTo(4);
        assertThat(wrong.err()).contains("refused user 'admin'");
        assertThat(noRole.exitCode()).isEqualTo(4);
        assertThat(noRole.err()).contains("user 'guest' has no JMX role");
    }

    @Test
    void aMonitorReadsAndPingsButCannotDesignate() {
        ToolRun status = ToolRun.haAdmin(second.as("watcher"), "status");
        ToolRun ping = ToolRun.haAdmin(second.as("watcher"), "ping", "node-1");
        ToolRun designation = ToolRun.haAdmin(second.as("watcher"), "designate-primary", "node-2", "--force");

        assertThat(status.exitCode()).as(status.toString()).isZero();
        assertThat(ping.exitCode()).as(ping.toString()).isZero();
        assertThat(designation.exitCode()).as(designation.toString()).isEqualTo(4);
        assertThat(designation.err()).contains("user 'watcher' has role monitor (read only)")
                .contains("needs role admin");
    }

    @Test
    void nothingListeningExitsWithThree() {
        String[] nowhere = {"--port", String.valueOf(InJvmBroker.freePort()), "--user", "admin", "--password", "a"};

        ToolRun run = ToolRun.haAdmin(nowhere, "status");

        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.err()).contains("cannot connect to service:jmx:rmi:///jndi/rmi://localhost:")
                .contains("is the broker running");
    }

    @Test
    void aCommandLineItCannotParseExitsWithTwoAndShowsTheUsage() {
        ToolRun noCommand = ToolRun.of(HaAdmin::run);
        ToolRun noNode = ToolRun.haAdmin(first.asAdmin(), "designate-primary");
        ToolRun unknownOption = ToolRun.haAdmin(first.asAdmin(), "status", "--colour");
        ToolRun noUser = ToolRun.of(HaAdmin::run, "status", "--port", String.valueOf(first.jmxPort));

        assertThat(noCommand.exitCode()).isEqualTo(2);
        assertThat(noCommand.err()).contains("a command is needed").contains("designate-primary");
        assertThat(noNode.exitCode()).isEqualTo(2);
        assertThat(noNode.err()).contains("Missing required parameter: 'NODE'");
        assertThat(unknownOption.exitCode()).isEqualTo(2);
        assertThat(unknownOption.err()).contains("Unknown option: '--colour'");
        assertThat(noUser.exitCode()).isEqualTo(2);
        assertThat(noUser.err()).contains("no JMX user");
    }

    private static JsonNode status(InJvmBroker node) throws Exception {
        ToolRun run = ToolRun.haAdmin(node.asAdmin(), "status", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        return JSON.readTree(run.out());
    }

    private static JsonNode node(JsonNode status, String name) {
        for (JsonNode node : status.path("nodes")) {
            if (node.path("name").asText().equals(name)) {
                return node;
            }
        }
        throw new AssertionError("no node " + name + " in " + status);
    }
}
