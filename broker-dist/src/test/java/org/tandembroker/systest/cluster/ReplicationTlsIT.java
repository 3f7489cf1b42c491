package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.testing.TestCertificates;

/**
 * Issue 11, section 1, with real nodes: the replication channel over TLS ({@code <replicationTls>}).
 *
 * <ul>
 *   <li>A node whose certificate is signed by the group's authority but whose name is outside the allow-list cannot
 *       join, and both sides log one {@code HA-1008} line saying why.</li>
 *   <li>A TLS group of three passes the zero-loss master failure scenario ({@link ThreeNodeMasterFailureIT} with
 *       TLS on), and the bytes between two of its nodes, captured by a {@link ReplicationTap} between node2 and
 *       node1 (the master, feeding node2), hold no message body in clear.</li>
 *   <li>The control: in a plain group captured the same way, the bodies are there, so the check above can
 *       fail.</li>
 * </ul>
 * The TLS group is started once for the class (the first test leaves it as it found it; the second, which kills
 * its master, runs last). Certificates are made in process ({@link TestCertificates}): an authority, node1..node3
 * and an outsider it signs; the allow-list is {@value #ALLOWED}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicationTlsIT {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationTlsIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    static final String ALLOWED = "CN=node[0-9], O=Tandem Test";
    private static final String PASSWORD = "systest-only-password";
    private static final String TLS = BrokerNode.HOME + "/etc/tls/";
    /** In every marked body; the bodies are long enough that the stream must carry them whole. */
    private static final String MARKER = "TANDEM-CLEARTEXT-MARKER";
    private static final int MARKED = 100;
    private static final int MARKED_BODY_CHARS = 400;
    /** The intruder's position: its address is host 19 of the group's network. */
    private static final int INTRUDER_INDEX = 9;

    @TempDir
    static Path certificates;
    private static TestCertificates.Authority authority;
    private static byte[] trustStore;
    private static BrokerCluster group;
    private static ReplicationTap tap;

    @BeforeAll
    static void startTlsGroup() throws IOException {
        ContainerEnvironment.requireDocker();
        authority = TestCertificates.authority("CN=Tandem systest CA, O=Tandem Test");
        trustStore = Files.readAllBytes(TestCertificates.writeTrustStore(certificates.resolve("trust.jks"), "JKS",
                PASSWORD, authority.certificate()));
        ReplicationTap[] started = {null};
        try {
            group = BrokerCluster.builder().nodes(3)
                    // node2 reaches node1 through the tap; node1 creates the group, so it is the first master
                    .onNetwork(network -> started[0] = ReplicationTap.start(network, 200, network.address(11)))
                    .store((node, all) -> withTls(StoreSection.replicated(node, all).quickFailureDetection()).xml())
                    .eachNode(node -> {
                        tlsFiles(node, "CN=" + node.name() + ", O=Tandem Test");
                        if (node.name().equals("node2")) {
                            node.hostOverride("node1", started[0].address());
                        }
                    })
                    .start();
            tap = started[0];
        } catch (RuntimeException | Error e) {
            if (started[0] != null) {
                started[0].close();
            }
            throw e;
        }
    }

    @AfterAll
    static void stopTlsGroup() {
        try {
            if (group != null) {
                group.close();
            }
        } finally {
            if (tap != null) {
                tap.close();
            }
        }
    }

    @Test
    @Order(1)
    void aNodeWhoseCertificateNameIsOutsideTheAllowListCannotJoinAndBothSidesSayWhy() {
        String helpers = group.identities().stream().map(NodeIdentity::replicationAddress)
                .collect(Collectors.joining(","));
        List<NodeIdentity> peers = new ArrayList<>(group.identities());
        BrokerNode.Builder builder = BrokerNode.builder("intruder").network(group.network()).index(INTRUDER_INDEX)
                .store(node -> withTls(StoreSection.replicated(node, group.identities())
                        .set("helperHostPort", helpers)).xml())
                // it never finishes starting: its first refusal says it is under way
                .startedWhen("HA-1008 : Replication connection refused : node intruder");
        tlsFiles(builder, "CN=outsider, O=Tandem Test");
        peers.add(new NodeIdentity(INTRUDER_INDEX, "intruder", group.network().address(10 + INTRUDER_INDEX), 0,
                BrokerNode.REPLICATION_PORT));
        builder.peers(peers);
        try (BrokerNode intruder = builder.start()) {
            String refusedThere = "HA-1008 : Replication connection refused : node intruder : to node";
            String refusedHere = "its certificate name 'CN=outsider, O=Tandem Test' is not allowed by <allowedNodes> '"
                    + ALLOWED + "'";
            await("both sides' HA-1008 lines").atMost(DEADLINE).pollInterval(Duration.ofMillis(500))
                    .until(() -> intruder.countLogLines(refusedThere) > 0 && group.nodes().stream()
                            .anyMatch(node -> node.countLogLines("from " + intruder.identity().ipAddress() + " : "
                                    + refusedHere) > 0));
            assertThat(intruder.logs()).contains("it refused this node's certificate");
            for (BrokerNode node : group.nodes()) {
                // one line per peer and reason, however often JE retried
                assertThat(node.countLogLines(refusedHere)).as(node.name()).isLessThanOrEqualTo(1);
            }
            assertThat(intruder.loggedRoles()).as("the intruder's roles").noneMatch(role ->
                    role.startsWith("REPLICA") || role.startsWith("MASTER"));
        }
        // the group did not notice beyond the log lines: still one master, every other node its replica
        BrokerNode master = group.awaitSingleActiveNode(DEADLINE);
        for (BrokerNode node : group.others(master)) {
            assertThat(node.ping().isReplica()).as(node.name() + " a replica").isTrue();
        }
    }

    @Test
    @Order(2)
    void aTlsGroupShowsNoMessageBodyOnTheWireAndFailsOverWithoutLosingAMessage() {
        BrokerNode node1 = group.awaitSingleActiveNode(DEADLINE);
        assertThat(node1.name()).as("the group's first master").isEqualTo("node1");
        sendMarked(node1.connectionFactory());
        group.node("node2").awaitCaughtUpWith(node1, DEADLINE);

        byte[] seen = tap.captured();
        LOG.info("observed: {} bytes between node2 and node1 after {} marked messages of {} characters", seen.length,
                MARKED, MARKED_BODY_CHARS);
        assertThat(seen.length).as("bytes through the tap: the stream carried every body")
                .isGreaterThan(MARKED * MARKED_BODY_CHARS);
        assertThat(ReplicationTap.contains(seen, MARKER)).as("a message body in clear on the replication port")
                .isFalse();
        String intruder = "from " + group.network().address(10 + INTRUDER_INDEX) + " : ";
        for (BrokerNode node : group.nodes()) {
            assertThat(node.logs().lines().filter(line -> line.contains("HA-1008") && !line.contains(intruder)))
                    .as(node.name() + "'s refusals of members").isEmpty();
        }

        try (FailoverTraffic traffic = FailoverTraffic.start("tls-master-killed", group.connectionFactory())) {
            traffic.awaitProgress(100, DEADLINE);
            node1.kill();
            long killedAt = System.nanoTime();

            BrokerNode newMaster = group.awaitSingleActiveNode(DEADLINE);
            LOG.info("observed: {} accepted clients {} ms after node1 was killed (TLS)", newMaster.name(),
                    (System.nanoTime() - killedAt) / 1_000_000);
            assertThat(newMaster).isNotSameAs(node1);
            traffic.awaitProgress(100, DEADLINE);

            node1.restart();
            node1.awaitLoggedRole("REPLICA (master " + newMaster.name() + ")", DEADLINE);
            group.awaitOnlyNodeAcceptingClients(newMaster, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            node1.awaitCaughtUpWith(newMaster, DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
            assertThat(report.settled()).isGreaterThanOrEqualTo(200);
            assertThat(receiveMarked(newMaster.connectionFactory())).as("marked messages on the new master")
                    .isEqualTo(MARKED);
        }
    }

    /** The control: without TLS the same capture shows the bodies, so the check above can fail. */
    @Test
    @Order(3)
    void aPlainGroupShowsMessageBodiesOnTheWire() {
        ReplicationTap[] plainTap = {null};
        try (BrokerCluster plain = BrokerCluster.builder().nodes(2)
                .onNetwork(network -> plainTap[0] = ReplicationTap.start(network, 200, network.address(11)))
                .eachNode(node -> {
                    if (node.name().equals("node2")) {
                        node.hostOverride("node1", plainTap[0].address());
                    }
                })
                .start()) {
            BrokerNode master = plain.awaitSingleActiveNode(DEADLINE);
            assertThat(master.name()).isEqualTo("node1");
            sendMarked(master.connectionFactory());
            plain.node("node2").awaitCaughtUpWith(master, DEADLINE);
            assertThat(ReplicationTap.contains(plainTap[0].captured(), MARKER))
                    .as("a message body in clear on a plain replication port").isTrue();
        } finally {
            if (plainTap[0] != null) {
                plainTap[0].close();
            }
        }
    }

    // --- TLS set-up --------------------------------------------------------------------------------------------

    /** {@code <replicationTls>} as every node of the TLS group (and the intruder) has it. */
    private static StoreSection withTls(StoreSection store) {
        Map<String, String> tls = new LinkedHashMap<>();
        tls.put("keyStore", TLS + "node.p12");
        tls.put("keyStorePasswordFile", TLS + "password");
        tls.put("trustStore", TLS + "trust.jks");
        tls.put("trustStoreType", "JKS");
        tls.put("allowedNodes", ALLOWED);
        return store.element("replicationTls", tls);
    }

    /**
     * The node's key store (a certificate for {@code certificateName} from the group's authority), the trust store,
     * the password file, and the network properties with which DbPing ({@link BrokerNode#ping()}) speaks TLS.
     */
    private static void tlsFiles(BrokerNode.Builder node, String certificateName) {
        Path keyStore = authority.issue(certificateName)
                .writePkcs12(certificates.resolve(node.name() + ".p12"), "node", PASSWORD);
        String ping = String.join("\n",
                "je.rep.channelType=ssl",
                "je.rep.ssl.keyStoreFile=" + TLS + "node.p12",
                "je.rep.ssl.keyStorePassword=" + PASSWORD,
                "je.rep.ssl.keyStoreType=PKCS12",
                "je.rep.ssl.trustStoreFile=" + TLS + "trust.jks",
                "je.rep.ssl.trustStoreType=JKS", "");
        try {
            node.etcFile("tls/node.p12", Files.readAllBytes(keyStore))
                    .etcFile("tls/trust.jks", trustStore)
                    .etcFile("tls/password", (PASSWORD + "\n").getBytes(StandardCharsets.UTF_8))
                    .etcFile("tls/ping.properties", ping.getBytes(StandardCharsets.UTF_8))
                    .pingNetProps(TLS + "ping.properties");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // --- marked messages ---------------------------------------------------------------------------------------

    private static void sendMarked(ConnectionFactory factory) {
        String padding = "x".repeat(MARKED_BODY_CHARS);
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("tls.marked");
            MessageProducer producer = session.createProducer(queue);
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (int i = 0; i < MARKED; i++) {
                String body = MARKER + "-" + i + "-" + padding;
                producer.send(session.createTextMessage(body.substring(0, MARKED_BODY_CHARS)));
            }
        } catch (JMSException e) {
            throw new IllegalStateException("cannot send the marked messages", e);
        }
    }

    private static int receiveMarked(ConnectionFactory factory) {
        int received = 0;
        try (Connection connection = factory.createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("tls.marked"));
            for (Message message = consumer.receive(10_000); message != null; message = consumer.receive(2_000)) {
                assertThat(((TextMessage) message).getText()).startsWith(MARKER + "-");
                received++;
            }
        } catch (JMSException e) {
            throw new IllegalStateException("cannot receive the marked messages", e);
        }
        return received;
    }
}
