package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster fixture's address plan on a three-node replicated group ({@code <store type="bdb-ha">}): every
 * node advertises its host-side published address, so a client in this JVM that knows only a replica is
 * redirected to the master and its messages are confirmed there. Scenario tests build on exactly this.
 *
 * <p>Needs Docker: skipped without it on a developer's machine, failed without it when {@code CI} is set.
 */
class ReplicaRedirectContainerIT {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaRedirectContainerIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    private static BrokerCluster cluster;

    @BeforeAll
    static void startCluster() {
        ContainerEnvironment.requireDocker();
        cluster = BrokerCluster.builder()
                .nodes(3)
                .store((node, group) -> StoreSection.replicated(node, group).xml())
                .start();
    }

    @AfterAll
    static void closeCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aClientThatKnowsOnlyAReplicaIsRedirectedToTheMasterThroughItsPublishedAddress() throws Exception {
        BrokerNode master = cluster.awaitSingleActiveNode(DEADLINE);
        BrokerNode replica = cluster.nodes().stream().filter(n -> n != master).findFirst().orElseThrow();
        LOG.info("master {}, sending through replica {}", master, replica);
        ZeroLossChecker checker = new ZeroLossChecker();
        JmsConnectionFactory replicaOnly = new JmsConnectionFactory(BrokerNode.USER, BrokerNode.PASSWORD,
                "failover:(" + replica.amqpUri() + ")?failover.maxReconnectAttempts=20");

        new CountingProducer("via-replica", replicaOnly, "redirect", checker).sendNow(50);

        assertThat(checker.settledCount()).isEqualTo(50);
        try (CountingConsumer consumer = new CountingConsumer("c1", cluster.connectionFactory(), "redirect", checker)
                .start()) {
            ZeroLossChecker.Report report = checker.awaitZeroLoss(DEADLINE, consumer);

            LOG.info("redirected: {}", report);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
        }
    }

    @Test
    void everyNodeNamesItsPeersAndTakesTheStoreSectionItWasGiven() throws Exception {
        BrokerNode node2 = cluster.node(2);

        String hosts = node2.container().execInContainer("getent", "hosts", "node1", "node3").getStdout();
        String vhost = node2.container().execInContainer("cat", BrokerNode.HOME + "/etc/vhosts/default.xml").getStdout();

        assertThat(hosts).contains(cluster.node(1).identity().ipAddress() + " ", cluster.node(3).identity().ipAddress() + " ");
        assertThat(vhost).contains("<store type=\"bdb-ha\">", "<nodeName>node2</nodeName>",
                "<nodeHostPort>node2:5000</nodeHostPort>", "<helperHostPort>node1:5000</helperHostPort>");
    }
}
