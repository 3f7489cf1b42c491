package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.ConnectionFactory;
import java.time.Duration;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 4 of issue 3: a hung master ({@code docker pause}: every thread frozen, connections open, nothing
 * answers, nothing is reset). Unlike a killed node, a hung one comes back, still believing it is master.
 *
 * <p><b>Three nodes.</b> The replicas hear nothing for {@code je.rep.replicaTimeout} (5 s here) and elect a new
 * master; the clients give up the silent node after their AMQP idle timeout (10 s) and move to it. When the old
 * master is unpaused it must not serve: it never confirms a message (a probe producer connected to it alone
 * keeps trying from before the unpause until the node has rejoined; none of its sends may be settled, for
 * whatever it commits alone is rolled back), and it becomes a replica of the new master.
 *
 * <p><b>Two nodes, {@code designatedPrimary} true on the master</b> (what happens, documented here and in
 * docs/ha-testing.md): the replica cannot tell a hung master from a partition and, not designated, must not take
 * over: it goes UNKNOWN and refuses clients. No node serves while the master is frozen; the failover clients'
 * connections time out and they keep trying (their sends stall, none fails). After the unpause the same master
 * serves again, the replica rejoins it, and the clients continue where they stopped, with nothing lost.
 */
class HungMasterIT {
    private static final Logger LOG = LoggerFactory.getLogger(HungMasterIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    @BeforeAll
    static void requireDocker() {
        ContainerEnvironment.requireDocker();
    }

    @Test
    void hungMasterOfThreeIsReplacedAndAfterResumingServesNoClientButRejoinsAsReplica() {
        try (BrokerCluster cluster = BrokerCluster.builder().nodes(3)
                .store((node, group) -> StoreSection.replicated(node, group).quickFailureDetection().xml())
                .start();
             FailoverTraffic traffic = FailoverTraffic.start("hung-master-of-three", cluster.connectionFactory())) {
            BrokerNode oldMaster = cluster.awaitSingleActiveNode(DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            oldMaster.pause();
            long pausedAt = System.nanoTime();

            BrokerNode newMaster = cluster.awaitSingleActiveNode(DEADLINE);
            LOG.info("observed: {} accepted clients {} ms after {} was paused", newMaster.name(),
                    (System.nanoTime() - pausedAt) / 1_000_000, oldMaster.name());
            assertThat(newMaster).isNotSameAs(oldMaster);
            traffic.awaitProgress(100, DEADLINE);
            try (CountingProducer probe = new CountingProducer("probe-" + oldMaster.name(), directTo(oldMaster),
                    "ha.hung-master-of-three", traffic.checker()).interval(Duration.ofMillis(100)).carryOnAfterFailures()
                    .start()) {

                oldMaster.unpause();

                oldMaster.awaitLoggedRole("REPLICA (master " + newMaster.name() + ")", DEADLINE);
                probe.stop();
                LOG.info("probe of the resumed {}: {} sends attempted, {} settled, {} failed connection(s), last: {}",
                        oldMaster.name(), probe.attempts(), probe.settled(), probe.connectionFailures(),
                        probe.lastFailure().map(Throwable::toString).orElse("-"));
                assertThat(probe.settled()).as("sends the resumed old master confirmed").isZero();
            }
            cluster.awaitOnlyNodeAcceptingClients(newMaster, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            oldMaster.awaitCaughtUpWith(newMaster, DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
            LOG.info("old master's logs after resuming: rolled back {} time(s) (HA-1004)",
                    oldMaster.countLogLines("HA-1004"));
        }
    }

    @Test
    void hungDesignatedMasterOfTwoStallsTheClientsUntilItResumesWithoutTheReplicaTakingOver() {
        try (BrokerCluster cluster = TwoNodeReplicaFailureIT.twoNodes(true, false);
             FailoverTraffic traffic = FailoverTraffic.start("hung-master-of-two", cluster.connectionFactory())) {
            BrokerNode master = cluster.node(1);
            BrokerNode replica = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            master.pause();

            replica.awaitLoggedRole("UNKNOWN", DEADLINE);
            await("clients' connections timed out").atMost(DEADLINE).pollInterval(Duration.ofMillis(200))
                    .until(() -> traffic.producer().connection().interruptions() > 0
                            && traffic.consumer().connection().interruptions() > 0);
            long settledWhileHung = traffic.checker().settledCount();
            assertThat(cluster.nodesAcceptingClients()).as("nodes accepting clients while the master is hung").isEmpty();
            assertThat(traffic.checker().settledCount()).as("sends settled while the master is hung")
                    .isEqualTo(settledWhileHung);

            master.unpause();

            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);
            replica.awaitLoggedRole("REPLICA (master " + master.name() + ")", DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            replica.awaitCaughtUpWith(master, DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
            assertThat(replica.currentRunRoles()).as("the replica's roles").doesNotContain("MASTER");
            LOG.info("hung designated master of two: {} failed sends; {}", report.failedSends(), traffic.state());
        }
    }

    /** A factory for {@code node} alone, no failover, giving up a connection attempt after 2 s. */
    private static ConnectionFactory directTo(BrokerNode node) {
        return new JmsConnectionFactory(BrokerNode.USER, BrokerNode.PASSWORD,
                node.amqpUri() + "?jms.connectTimeout=2000&jms.closeTimeout=2000&amqp.idleTimeout=4000");
    }
}
