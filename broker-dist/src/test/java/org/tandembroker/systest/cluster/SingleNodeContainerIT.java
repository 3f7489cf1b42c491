package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import java.time.Duration;
import java.util.List;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The container infrastructure on one node with the standalone store ({@code <store type="bdb">}): Qpid JMS
 * in this JVM reaches the broker through the published port, neither a {@code docker kill} nor a graceful
 * {@code docker stop} loses a settled message once the same container is started again, and pause and
 * disconnect really cut the node off.
 *
 * <p>Needs Docker: skipped without it on a developer's machine, failed without it when {@code CI} is set.
 */
class SingleNodeContainerIT {
    private static final Logger LOG = LoggerFactory.getLogger(SingleNodeContainerIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    private static BrokerNode node;

    @BeforeAll
    static void startNode() {
        ContainerEnvironment.requireDocker();
        node = BrokerNode.builder("node1")
                .store(StoreSection.standalone())
                .start();
    }

    @AfterAll
    static void closeNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void messagesSentThroughThePublishedPortAreReceivedOnceEachInOrder() throws Exception {
        ZeroLossChecker checker = new ZeroLossChecker();
        new CountingProducer("p1", node.connectionFactory(), "smoke.roundtrip", checker).sendNow(200);

        try (CountingConsumer consumer = new CountingConsumer("c1", node.connectionFactory(), "smoke.roundtrip",
                checker).start()) {
            ZeroLossChecker.Report report = checker.awaitZeroLoss(DEADLINE, consumer);

            LOG.info("round trip: {}", report);
            assertThat(report.settled()).isEqualTo(200);
            report.assertZeroLoss().assertNoDuplicates().assertInOrderApartFromRedeliveries();
        }
    }

    @Test
    void everySettledMessageIsStillThereAfterDockerKillAndRestart() {
        ZeroLossChecker checker = new ZeroLossChecker();
        List<CountingProducer> producers = List.of(
                new CountingProducer("p1", node.connectionFactory(), "smoke.kill", checker),
                new CountingProducer("p2", node.connectionFactory(), "smoke.kill", checker),
                new CountingProducer("p3", node.connectionFactory(), "smoke.kill", checker).payloadBytes(4096));
        producers.forEach(CountingProducer::start);
        producers.forEach(p -> p.awaitSettled(200, DEADLINE));
        String uri = node.amqpUri();

        node.kill();

        assertThat(node.exitCode()).as("exit code after SIGKILL").isEqualTo(137);
        producers.forEach(CountingProducer::stop);
        assertThat(producers).allSatisfy(p -> assertThat(p.failure()).as(p.id() + "'s sends failed when the broker died")
                .isPresent());

        node.restart();

        assertThat(node.amqpUri()).as("same published address after restart").isEqualTo(uri);
        try (CountingConsumer consumer = new CountingConsumer("c1", node.connectionFactory(), "smoke.kill",
                checker).start()) {
            ZeroLossChecker.Report report = checker.awaitZeroLoss(DEADLINE, consumer);

            LOG.info("after kill and restart: {}", report);
            assertThat(report.settled()).isGreaterThanOrEqualTo(600);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
        }
    }

    @Test
    void aGracefullyStoppedNodeRestartsWithEveryMessage() throws Exception {
        ZeroLossChecker checker = new ZeroLossChecker();
        new CountingProducer("p1", node.connectionFactory(), "smoke.stop", checker).sendNow(50);

        assertThat(node.stop()).as("exit code after SIGTERM (the JVM's 128 + 15)").isEqualTo(143);
        assertThat(node.logs()).as("graceful shutdown logged").contains("BRK-1005 : Stopped");
        node.restart();

        try (CountingConsumer consumer = new CountingConsumer("c1", node.connectionFactory(), "smoke.stop",
                checker).start()) {
            checker.awaitZeroLoss(DEADLINE, consumer).assertZeroLoss().assertNoDuplicates()
                    .assertInOrderApartFromRedeliveries();
        }
    }

    @Test
    void aPausedOrDisconnectedNodeDoesNotAnswerUntilResumedOrReconnected() {
        node.pause();
        assertThat(opensConnection()).as("paused node answers").isFalse();
        node.unpause();
        await("paused node answering again").atMost(DEADLINE).until(this::opensConnection);

        node.disconnect();
        assertThat(opensConnection()).as("disconnected node answers").isFalse();
        node.reconnect();
        await("reconnected node answering again").atMost(DEADLINE).until(this::opensConnection);
    }

    @Test
    void theBrokerListensOnThePublishedPortNumberAndAdvertisesTheHostSideAddress() throws Exception {
        int port = node.identity().clientPort();

        String brokerXml = node.container().execInContainer("cat", BrokerNode.HOME + "/etc/broker.xml").getStdout();

        assertThat(brokerXml).contains("advertisedAddress=\"127.0.0.1:" + port + "\"");
        assertThat(node.logs()).contains("listening on amqp://0.0.0.0:" + port);
    }

    /** Whether a connection opens within a short connect timeout. */
    private boolean opensConnection() {
        JmsConnectionFactory factory = new JmsConnectionFactory(BrokerNode.USER, BrokerNode.PASSWORD,
                node.amqpUri() + "?jms.connectTimeout=2000&jms.closeTimeout=2000");
        try (Connection connection = factory.createConnection()) {
            connection.start();
            connection.createSession().close();
            return true;
        } catch (JMSException e) {
            return false;
        }
    }
}
