package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 6 of issue 3: a group of three, master killed. The spec (1.6.4) calls groups of three "not yet
 * ready"; Tandem makes them ready: JE elects a new master by majority, no operator involved.
 *
 * <p>Sequence: three nodes ({@code je.rep.replicaTimeout}/{@code feederTimeout} 5 s, see
 * {@link StoreSection#quickFailureDetection()}); a producer and a consumer on the failover URL; the master is
 * killed with {@code docker kill}; the two others elect one of them; the clients continue on it; the killed node
 * is started again, rejoins as a replica of the new master and catches up (JE's {@code DbPing}: its log reaches
 * the master's last transaction); every settled message is consumed, in each producer's order apart from
 * redeliveries.
 */
class ThreeNodeMasterFailureIT {
    private static final Logger LOG = LoggerFactory.getLogger(ThreeNodeMasterFailureIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    @BeforeAll
    static void requireDocker() {
        ContainerEnvironment.requireDocker();
    }

    @Test
    void masterKilledGroupElectsNewMasterClientsContinueKilledNodeRejoins() {
        try (BrokerCluster cluster = BrokerCluster.builder().nodes(3)
                .store((node, group) -> StoreSection.replicated(node, group).quickFailureDetection().xml())
                .start();
             FailoverTraffic traffic = FailoverTraffic.start("three-master-killed", cluster.connectionFactory())) {
            BrokerNode oldMaster = cluster.awaitSingleActiveNode(DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            oldMaster.kill();
            long killedAt = System.nanoTime();

            BrokerNode newMaster = cluster.awaitSingleActiveNode(DEADLINE);
            LOG.info("observed: {} accepted clients {} ms after {} was killed", newMaster.name(),
                    (System.nanoTime() - killedAt) / 1_000_000, oldMaster.name());
            assertThat(newMaster).isNotSameAs(oldMaster);
            traffic.awaitProgress(100, DEADLINE);
            assertThat(traffic.producer().connection().isOn(newMaster.amqpUri()))
                    .as("producer on the new master: %s", traffic.producer().connection()).isTrue();

            oldMaster.restart();

            oldMaster.awaitLoggedRole("REPLICA (master " + newMaster.name() + ")", DEADLINE);
            cluster.awaitOnlyNodeAcceptingClients(newMaster, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            oldMaster.awaitCaughtUpWith(newMaster, DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
            assertThat(report.settled()).isGreaterThanOrEqualTo(200);
        }
    }
}
