package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.systest.cluster.BrokerCluster;
import org.tandembroker.systest.cluster.BrokerNode;
import org.tandembroker.systest.cluster.ContainerEnvironment;
import org.tandembroker.systest.cluster.NodePartition;
import org.tandembroker.systest.cluster.StoreSection;
import org.testcontainers.images.builder.Transferable;

/**
 * Figure 1.6 of {@code docs/operations.md} made as the document says it happens, detected with its
 * {@code fig-1.6-detect} block run as written, and both ends the document describes: the network healing by itself,
 * and the recovery steps 1-4 done while the partition lasts. The commands are the document's, run by bash on this
 * machine ({@code bin/ha-admin}, {@code bin/backup.sh}; {@code $A} and {@code $B} each node's published JMX port; the
 * document's node-a and node-b are the containers node1 and node2; its {@code /var/lib/tandem} is node-a's work
 * directory, bound from this machine).
 *
 * <p>The split brain, in both tests:
 * <ol>
 *   <li>A pair: node-a designated primary and master, node-b its replica.</li>
 *   <li>The network between the two nodes fails ({@link NodePartition}: packets dropped, every interface up, the
 *       clients still reach both). node-b goes UNKNOWN; node-a, designated, carries on alone (figure 1.5).</li>
 *   <li>The operator designates node-b anyway, with figure 1.3's command. Its broker cannot reach node-a, so its
 *       split-brain check lets the designation through and says node-a did not answer.</li>
 *   <li>{@code fig-1.6-detect}: both nodes say MASTER; each accepts a message.</li>
 * </ol>
 * Then either the network heals: node-a, master since before the partition, learns of node-b's newer mastership
 * and leaves the group to join it ({@code HA-1003}); both are designated, so it gives its designation up
 * ({@code HA-1002}), rolls back what it committed alone ({@code HA-1004}) and becomes node-b's replica, caught up
 * ({@code fig-1.3-rejoined}); node-b alone serves, with its own history: what clients sent to node-a during the
 * split brain is gone. Or, before the network is back, node-a is stopped, its store backed up
 * ({@code fig-1.6-backup}: the copy holds node-a's split-brain message) and moved away ({@code fig-1.6-discard}),
 * its file given node-b as helper and no designation; started after the heal, it copies node-b's store and joins
 * it, with no rollback.
 *
 * <p>About 40 s per test once the two containers run (a partition of about 25 s).
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

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path directory;
    private OperationsProcedures document;
    private final Map<String, String> texts = new LinkedHashMap<>();
    private Map<String, String> environment;

    @Test
    void nodeBDesignatedDuringAPartitionMakesTwoMastersBothStatusesShowAndTheHealedNetworkRollsNodeABack()
            throws Exception {
        try (BrokerCluster cluster = startPair(null)) {
            BrokerNode nodeA = cluster.node(1);
            BrokerNode nodeB = cluster.node(2);
            try (NodePartition partition = makeSplitBrain(cluster)) {
                partition.heal();
            }

            // The network is back: node-a, master since before the partition, learns of node-b, the newer master,
            // and leaves the group to join it. Both are designated: it gives its designation up (HA-1002), rolls
            // back what it committed alone (HA-1004) and becomes node-b's replica.
            nodeA.awaitLoggedRole("REPLICA (master " + nodeB.name() + ")", DEADLINE);
            String logA = nodeA.currentRunLogs();
            LOG.info("node-a after the partition healed:\n{}", codes(logA));
            // (HA-1003's reason: "node node1 left the group: ...", or the master session's end reporting the same
            // invalid environment, whichever the role thread handles first.)
            assertThat(logA).containsPattern("HA-1003 : Environment restart : node " + nodeA.name()
                            + " : .*Conflicting Primary designations")
                    .contains("HA-1002 : Designated primary : node " + nodeA.name() + " : not designated primary any "
                            + "more: master " + nodeB.name() + " is designated primary")
                    .contains("HA-1004 : Rolled back : node " + nodeA.name() + " : rolled back while rejoining")
                    .doesNotContain("both designated primary").doesNotContain("DbTruncateLog");
            assertThat(nodeB.currentRunLogs()).doesNotContain("HA-1004").doesNotContain("HA-1003");
            awaitReplicaCaughtUp(nodeA);
            cluster.awaitOnlyNodeAcceptingClients(nodeB, DEADLINE);
            // node-b's history is the group's: what clients sent to node-a during the split brain is gone.
            assertThat(receiveAll(nodeB)).containsExactly("before the partition", "node-b during the split brain");
        }
    }

    @Test
    void recoveredWhileThePartitionLastsNodeAsHistoryIsBackedUpAndDiscardedAndNodeAJoinsNodeB() throws Exception {
        Path workA = Files.createDirectories(directory.resolve("node-a-work"));
        Path backups = Files.createDirectories(directory.resolve("backup"));
        try (BrokerCluster cluster = startPair(workA)) {
            BrokerNode nodeA = cluster.node(1);
            BrokerNode nodeB = cluster.node(2);
            Map<String, String> paths = new LinkedHashMap<>();
            paths.put("/var/lib/tandem", workA.toString());
            paths.put(" /backup/", " " + backups + "/");
            try (NodePartition partition = makeSplitBrain(cluster)) {
                // Step 1: node-b kept; node-a's broker stopped before the network is back.
                nodeA.stop();
                // Step 2: node-a's store, stopped, copied: it holds what node-a accepted during the split brain.
                ScriptProcess backup = run(document, "fig-1.6-backup", paths, environment);
                assertThat(backup.exitCode()).as(backup.text()).isZero();
                Path copy = backups.resolve("node-a-split");
                assertThat(copy.resolve("tandem-backup.txt")).exists();
                assertThat(logFilesContain(copy, "node-a during the split brain")).as("the backup of " + copy)
                        .isTrue();
                // Step 3: node-a's history moved away.
                ScriptProcess discard = run(document, "fig-1.6-discard", paths, environment);
                assertThat(discard.exitCode()).as(discard.text()).isZero();
                assertThat(workA.resolve("default/store")).isEmptyDirectory();
                assertThat(logFilesContain(workA.resolve("default/store.split"), "node-a during the split brain"))
                        .isTrue();
                // Step 4: node-a's file: node-b as helper, not designated.
                String file = BrokerNode.HOME + "/etc/vhosts/default.xml";
                String hostA = nodeA.container().copyFileFromContainer(file,
                        in -> new String(in.readAllBytes(), StandardCharsets.UTF_8));
                nodeA.container().copyFileToContainer(Transferable.of(hostA
                        .replaceAll("<helperHostPort>[^<]*</helperHostPort>", "<helperHostPort>"
                                + nodeB.identity().replicationAddress() + "</helperHostPort>")
                        .replaceAll("<designatedPrimary>\\w+</designatedPrimary>",
                                "<designatedPrimary>false</designatedPrimary>")), file);
                partition.heal();
            }

            // node-a started once the network is back: it copies node-b's store and joins it as its replica.
            nodeA.restart();
            nodeA.awaitLoggedRole("REPLICA (master " + nodeB.name() + ")", DEADLINE);
            String logA = nodeA.currentRunLogs();
            LOG.info("node-a started again:\n{}", codes(logA));
            assertThat(logA).doesNotContain("HA-1004").doesNotContain("both designated primary");
            assertThat(nodeB.currentRunLogs()).doesNotContain("HA-1004").doesNotContain("HA-1003");
            awaitReplicaCaughtUp(nodeA);
            cluster.awaitOnlyNodeAcceptingClients(nodeB, DEADLINE);
            assertThat(receiveAll(nodeB)).containsExactly("before the partition", "node-b during the split brain");
        }
    }

    // ---- the split brain ------------------------------------------------------------------------------------

    /**
     * The pair: node1 (the document's node-a) designated primary, node2 (node-b) not; quick failure detection. With
     * {@code workA}, node-a's work directory is that directory of this machine (the document's
     * {@code /var/lib/tandem}).
     * Returns once node-a is master with node-b as its replica.
     */
    private BrokerCluster startPair(Path workA) throws Exception {
        document = OperationsProcedures.read();
        BrokerCluster cluster = BrokerCluster.builder().nodes(2)
                .store((node, group) -> StoreSection.replicated(node, group)
                        .set("designatedPrimary", String.valueOf(node.index() == 1))
                        .quickFailureDetection().immediatePrimaryActivation().xml())
                .eachNode(BrokerNode.Builder::jmx)
                .eachNode(node -> {
                    if (workA != null && node.name().equals("node1")) {
                        node.workVolume(workA.toString());
                    }
                })
                .start();
        BrokerNode nodeA = cluster.node(1);
        BrokerNode nodeB = cluster.node(2);
        texts.put("node-a", nodeA.name());
        texts.put("node-b", nodeB.name());
        environment = Map.of("TANDEM_JMX_USER", BrokerNode.ADMIN_USER,
                "TANDEM_JMX_PASSWORD", BrokerNode.ADMIN_PASSWORD,
                "A", "--host 127.0.0.1 --port " + nodeA.jmxPort(),
                "B", "--host 127.0.0.1 --port " + nodeB.jmxPort());
        try {
            cluster.awaitOnlyNodeAcceptingClients(nodeA, DEADLINE);
            nodeB.awaitLoggedRole("REPLICA (master " + nodeA.name() + ")", DEADLINE);
            send(nodeA, "before the partition");
            return cluster;
        } catch (RuntimeException | Error | JMSException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Figure 1.6 made: the partition; node-a carries on; node-b designated with figure 1.3's command (let through,
     * node-a named as not answering); {@code fig-1.6-detect} as written shows both MASTER; each accepts a message.
     * Returns the partition, still in place.
     */
    private NodePartition makeSplitBrain(BrokerCluster cluster) throws Exception {
        BrokerNode nodeA = cluster.node(1);
        BrokerNode nodeB = cluster.node(2);
        NodePartition partition = NodePartition.between(nodeA, nodeB);
        try {
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
            return partition;
        } catch (Exception | Error e) {
            partition.close();
            throw e;
        }
    }

    /** fig-1.3-rejoined ({@code ha-admin status $B}) until it shows {@code replica} as REPLICA with lag 0. */
    private void awaitReplicaCaughtUp(BrokerNode replica) {
        awaitCommand(document.commands("fig-1.3-rejoined").get(0), texts, environment,
                Pattern.compile(replica.name() + "\\s+\\S+:\\d+\\s+ELECTABLE\\s+REPLICA\\s+0\\s"));
    }

    /** Whether one of the JE log files ({@code *.jdb}) in {@code store} holds {@code text} (message bodies do). */
    private static boolean logFilesContain(Path store, String text) throws IOException {
        byte[] wanted = text.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.list(store)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".jdb")).toList()) {
                byte[] content = Files.readAllBytes(file);
                for (int i = 0; i + wanted.length <= content.length; i++) {
                    if (Arrays.equals(content, i, i + wanted.length, wanted, 0, wanted.length)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static String codes(String log) {
        return log.lines().filter(line -> line.matches(".*(HA|MST)-\\d+ : .*")).collect(Collectors.joining("\n"));
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
        await(command + " shows /" + expected + "/").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    ScriptProcess run = run(command, texts, environment);
                    return run.exitCode() == 0 && expected.matcher(run.text()).find();
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
