package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 2 of issue 3: a two-node group whose replica is killed (spec 1.6.3, figure 1.4). What the master
 * does is decided by its {@code designatedPrimary}:
 * <ul>
 *   <li>true: it carries on alone, its clients notice nothing (no failed send, no interrupted connection); the
 *       replica, restarted, rejoins and catches up;</li>
 *   <li>false: it stops serving (no send is settled, no node accepts clients) until an operator designates it
 *       primary over JMX; then the clients continue on it.</li>
 * </ul>
 * JE settings: {@link StoreSection#quickFailureDetection()} and {@link StoreSection#immediatePrimaryActivation()}
 * ({@code je.rep.electionsPrimaryRetries} 0).
 */
class TwoNodeReplicaFailureIT {
    private static final Logger LOG = LoggerFactory.getLogger(TwoNodeReplicaFailureIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    @BeforeAll
    static void requireDocker() {
        ContainerEnvironment.requireDocker();
    }

    @Test
    void replicaKilledTheDesignatedPrimaryMasterCarriesOnAloneAndItsClientsNoticeNothing() {
        try (BrokerCluster cluster = twoNodes(true, false);
             FailoverTraffic traffic = FailoverTraffic.start("replica-killed-designated", cluster.connectionFactory())) {
            BrokerNode master = cluster.node(1);
            BrokerNode replica = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            replica.kill();

            traffic.awaitProgress(200, DEADLINE);
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);

            replica.restart();

            replica.awaitLoggedRole("REPLICA (master " + master.name() + ")", DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            replica.awaitCaughtUpWith(master, DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
            assertThat(report.failedSends()).as("failed sends: %s", report).isZero();
            assertThat(traffic.producer().connection().interruptions()).as("producer: %s", traffic.state()).isZero();
            assertThat(traffic.consumer().connection().interruptions()).as("consumer: %s", traffic.state()).isZero();
        }
    }

    @Test
    void replicaKilledAnUndesignatedMasterStopsServingUntilAnOperatorDesignatesIt() {
        ContainerEnvironment.requireBrokerJmx();
        try (BrokerCluster cluster = twoNodes(false, true);
             FailoverTraffic traffic = FailoverTraffic.start("replica-killed-undesignated", cluster.connectionFactory())) {
            BrokerNode master = cluster.node(1);
            BrokerNode replica = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            replica.kill();

            await("master stops serving").atMost(DEADLINE).pollInterval(Duration.ofMillis(500))
                    .until(() -> cluster.nodesAcceptingClients().isEmpty());
            assertThat(master.logs()).contains("HA-1005 : Quorum : node " + master.name());
            assertThat(master.isDesignatedPrimary()).isFalse();
            long settledWhileUnavailable = traffic.checker().settledCount();
            assertThat(cluster.nodesAcceptingClients()).as("nodes accepting clients while undesignated").isEmpty();
            assertThat(traffic.checker().settledCount()).as("sends settled while undesignated")
                    .isEqualTo(settledWhileUnavailable);

            master.designatePrimary();

            assertThat(master.isDesignatedPrimary()).isTrue();
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            LOG.info("undesignated master: {} sends failed while it did not serve", report.failedSends());
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
        }
    }

    /** node1 (the master) and node2, with JMX when {@code jmx}. */
    static BrokerCluster twoNodes(boolean node1DesignatedPrimary, boolean jmx) {
        return BrokerCluster.builder().nodes(2)
                .store((node, group) -> StoreSection.replicated(node, group)
                        .set("designatedPrimary", String.valueOf(node.index() == 1 && node1DesignatedPrimary))
                        .quickFailureDetection().immediatePrimaryActivation().xml())
                .eachNode(node -> {
                    if (jmx) {
                        node.jmx();
                    }
                })
                .start();
    }
}
