package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.systest.cluster.BrokerCluster;
import org.tandembroker.systest.cluster.BrokerNode;
import org.tandembroker.systest.cluster.ContainerEnvironment;
import org.tandembroker.systest.cluster.NodePartition;
import org.tandembroker.systest.cluster.StoreSection;

/**
 * Figure 1.6 of {@code docs/operations.md} made as the document says it happens, detected with its
 * {@code fig-1.6-detect} block run as written, and what the document says of the healed network checked. The
 * commands are the document's, run by bash on this machine ({@code bin/ha-admin}, {@code $A} and {@code $B} each
 * node's published JMX port; the document's node-a and node-b are the containers node1 and node2).
 * <ol>
 *   <li>A pair: node-a designated primary and master, node-b its replica.</li>
 *   <li>The network between the two nodes fails ({@link NodePartition}: packets dropped, every interface up, the
 *       clients still reach both). node-b goes UNKNOWN; node-a, designated, carries on alone (figure 1.5).</li>
 *   <li>The operator designates node-b anyway, with figure 1.3's command. Its broker cannot reach node-a, so its
 *       split-brain check lets the designation through and says node-a did not answer.</li>
 *   <li>{@code fig-1.6-detect}: both nodes say MASTER; each accepts a message.</li>
 *   <li>The network heals: node-a, master since before the partition, learns of node-b's newer mastership and
 *       leaves the group to join it ({@code HA-1003}); both are designated, so it gives its designation up
 *       ({@code HA-1002}), rolls back what it committed alone ({@code HA-1004}) and becomes node-b's replica, caught
 *       up ({@code fig-1.3-rejoined}). node-b alone serves, with node-b's history: what clients sent to node-a during
 *       the split brain is gone.</li>
 * </ol>
 * About 80 s (a pair started, a partition of about 30 s).
 */
class SplitBrainIT {
    private static final Logger LOG = LoggerFactory.getLogger(SplitBrainIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final String QUEUE = "procedure";

    @BeforeAll
    static void requireDockerJmxAndPacketFilter() {
        ContainerEnvironment.requireDocker();
        ContainerEnvironment.requireBrokerJmx();
        NodePartition.requireAvailable();
    }

    @Test
    void nodeBDesignatedDuringAPartitionMakesTwoMastersBothStatusesShowAndTheHealedNetworkRollsNodeABack()
            throws Exception {
        OperationsProcedures document = OperationsProcedures.read();
        try (BrokerCluster cluster = BrokerCluster.builder().nodes(2)
                .store((node, group) -> StoreSection.replicated(node, group)
                        .set("designatedPrimary", String.valueOf(node.index() == 1))
                        .quickFailureDetection().immediatePrimaryActivation().xml())
                .eachNode(BrokerNode.Builder::jmx)
                .start()) {
            BrokerNode nodeA = cluster.node(1);
            BrokerNode nodeB = cluster.node(2);
            Map<String, String> texts = new LinkedHashMap<>();
            texts.put("node-a", nodeA.name());
            texts.put("node-b", nodeB.name());
            Map<String, String> environment = Map.of("TANDEM_JMX_USER", BrokerNode.ADMIN_USER,
                    "TANDEM_JMX_PASSWORD", BrokerNode.ADMIN_PASSWORD,
                    "A", "--host 127.0.0.1 --port " + nodeA.jmxPort(),
                    "B", "--host 127.0.0.1 --port " + nodeB.jmxPort());
            cluster.awaitOnlyNodeAcceptingClients(nodeA, DEADLINE);
            nodeB.awaitLoggedRole("REPLICA (master " + nodeA.name() + ")", DEADLINE);
            send(nodeA, "before the partition");

            try (NodePartition partition = NodePartition.between(nodeA, nodeB)) {
                // Figure 1.5: node-b goes UNKNOWN; node-a, designated, carries on alone.
                nodeB.awaitLoggedRole("UNKNOWN", DEADLINE);
                sendUntilAccepted(nodeA, "node-a alone");

                // The wrong designation, with figure 1.3's command: node-b cannot reach node-a, so it is let through.
                ScriptProcess designation = run(document, "fig-1.3-designate", texts, environment);
                assertThat(designation.exitCode()).as(designation.text()).isZero();
                assertThat(designation.text())
                        .contains("node " + nodeB.name() + " is designated primary; it is MASTER")
                        .contains("checked the other nodes first: did not answer within 3 s")
                        .contains(nodeA.name() + " (");

                // fig-1.6-detect as written: both nodes say MASTER.
                List<String> detect = document.commands("fig-1.6-detect");
                assertThat(detect).hasSize(2);
                ScriptProcess statusA = run(detect.get(0), texts, environment);
                ScriptProcess statusB = run(detect.get(1), texts, environment);
                assertThat(statusA.exitCode()).as(statusA.text()).isZero();
                assertThat(statusA.text()).contains("group tandem, virtual host default, asked node "
                        + nodeA.name() + " (MASTER)");
                assertThat(statusB.exitCode()).as(statusB.text()).isZero();
                assertThat(statusB.text()).contains("group tandem, virtual host default, asked node "
                        + nodeB.name() + " (MASTER)");

                // Clients work against both.
                send(nodeB, "node-b during the split brain");
                send(nodeA, "node-a during the split brain");

                partition.heal();
            }

            // The network is back: node-a, master since before the partition, learns of node-b, the newer master,
            // and leaves the group to join it. Both are designated: it gives its designation up (HA-1002), rolls
            // back what it committed alone (HA-1004) and becomes node-b's replica.
            nodeA.awaitLoggedRole("REPLICA (master " + nodeB.name() + ")", DEADLINE);
            String logA = nodeA.currentRunLogs();
            LOG.info("node-a after the partition healed:\n{}", logA.lines()
                    .filter(line -> line.matches(".*(HA|MST)-\\d+ : .*")).collect(Collectors.joining("\n")));
            assertThat(logA).contains("HA-1003 : Environment restart : node " + nodeA.name() + " : node "
                            + nodeA.name() + " left the group")
                    .contains("HA-1002 : Designated primary : node " + nodeA.name() + " : not designated primary any "
                            + "more: master " + nodeB.name() + " is designated primary")
                    .contains("HA-1004 : Rolled back : node " + nodeA.name() + " : rolled back while rejoining")
                    .doesNotContain("both designated primary").doesNotContain("DbTruncateLog");
            assertThat(nodeB.currentRunLogs()).doesNotContain("HA-1004").doesNotContain("HA-1003");
            awaitCommand(document.commands("fig-1.3-rejoined").get(0), texts, environment,
                    Pattern.compile(nodeA.name() + "\\s+\\S+:\\d+\\s+ELECTABLE\\s+REPLICA\\s+0\\s"));
            cluster.awaitOnlyNodeAcceptingClients(nodeB, DEADLINE);
            // node-b's history is the group's: what clients sent to node-a during the split brain is gone.
            assertThat(receiveAll(nodeB)).containsExactly("before the partition", "node-b during the split brain");
        }
    }

    // ---- the document's commands ----------------------------------------------------------------------------

    private static ScriptProcess run(OperationsProcedures document, String block, Map<String, String> texts,
            Map<String, String> environment) throws Exception {
        List<String> commands = document.commands(block);
        assertThat(commands).as(block).hasSize(1);
        return run(commands.get(0), texts, environment);
    }

    /** One of the document's command lines, node names mapped, run by bash in the installation. */
    private static ScriptProcess run(String command, Map<String, String> texts, Map<String, String> environment)
            throws Exception {
        String mapped = OperationsProcedures.mapped(command, texts, Map.of());
        ScriptProcess run = ScriptProcess.start(mapped, environment, "");
        run.awaitExit(Duration.ofSeconds(120));
        LOG.info("{}: exit {}\n{}", mapped, run.exitCode(), run.text());
        return run;
    }

    /** A status command run until its output matches (the master samples its replicas' lag). */
    private static void awaitCommand(String command, Map<String, String> texts, Map<String, String> environment,
            Pattern expected) {
        String[] last = {""};
        await(command + " shows /" + expected + "/").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    ScriptProcess run = run(command, texts, environment);
                    last[0] = run.text();
                    return run.exitCode() == 0 && expected.matcher(last[0]).find();
                });
    }

    // ---- clients ------------------------------------------------------------------------------------------------

    private static void send(BrokerNode node, String text) throws JMSException {
        try (Connection connection = factory(node).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
            producer.send(session.createTextMessage(text));
        }
    }

    /**
     * Publishes until {@code node} accepts (a master that just lost its replica first waits for acknowledgements
     * that do not come); each attempt has its own text ({@code prefix} and a number).
     */
    private static void sendUntilAccepted(BrokerNode node, String prefix) {
        int[] attempt = {0};
        await(node.name() + " accepts a message").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                .ignoreExceptionsInstanceOf(JMSException.class).until(() -> {
                    send(node, prefix + " " + ++attempt[0]);
                    return true;
                });
    }

    /** Every message of the queue, acknowledged. */
    private static List<String> receiveAll(BrokerNode node) throws JMSException {
        List<String> texts = new ArrayList<>();
        try (Connection connection = factory(node).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            var consumer = session.createConsumer(session.createQueue(QUEUE));
            TextMessage message;
            while ((message = (TextMessage) consumer.receive(texts.isEmpty() ? 10_000 : 2_000)) != null) {
                texts.add(message.getText());
            }
        }
        LOG.info("{} holds {}", node.name(), texts);
        return texts;
    }

    private static JmsConnectionFactory factory(BrokerNode node) {
        return new JmsConnectionFactory(BrokerNode.USER, BrokerNode.PASSWORD, node.amqpUri()
                + "?amqp.idleTimeout=10000&jms.connectTimeout=10000&jms.requestTimeout=30000");
    }
}
