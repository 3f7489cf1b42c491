package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 1 of issue 3: master failure and recovery in a two-node group (spec 1.6.3, figure 1.3).
 *
 * <ol>
 *   <li>Normal operation: node1 master, node2 replica, a producer and a consumer on the failover URL. Neither node
 *       is configured {@code designatedPrimary}: the designation is the operator's act. While node1 answers as
 *       master, designating node2 is refused (it would make two masters).</li>
 *   <li>node1 is killed ({@code docker kill}). node2 loses its master and stays passive (UNKNOWN): no node
 *       accepts clients; the clients keep trying.</li>
 *   <li>The operator, having made sure node1 is down, designates node2 primary over JMX
 *       ({@code DesignatedPrimary} = true on the {@code BDBHAMessageStore} MBean).</li>
 *   <li>node2 becomes master, recovers every settled message, and the clients continue on it.</li>
 *   <li>node1 is started again: it rejoins as node2's replica and catches up. The operator then takes the
 *       designation back (docs/ha.md: exactly one designated node, or none, once both run); node2 keeps
 *       serving, now with its replica.</li>
 * </ol>
 * JE settings: {@link StoreSection#quickFailureDetection()} and {@link StoreSection#immediatePrimaryActivation()}
 * ({@code je.rep.electionsPrimaryRetries} 0: the designated node takes over at its first election).
 */
class TwoNodeMasterFailureIT {
    private static final Logger LOG = LoggerFactory.getLogger(TwoNodeMasterFailureIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    @BeforeAll
    static void requireDockerAndJmx() {
        ContainerEnvironment.requireDocker();
        ContainerEnvironment.requireBrokerJmx();
    }

    @Test
    void masterKilledReplicaDesignatedClientsContinueOldMasterRejoins() {
        try (BrokerCluster cluster = TwoNodeReplicaFailureIT.twoNodes(false, true);
             FailoverTraffic traffic = FailoverTraffic.start("two-master-killed", cluster.connectionFactory())) {
            BrokerNode oldMaster = cluster.node(1);
            BrokerNode replica = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(oldMaster, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            assertThat(replica.nodeState()).isEqualTo("REPLICA");
            assertThatThrownBy(replica::designatePrimary).as("designation while the master answers")
                    .hasMessageContaining("still answers as MASTER");

            oldMaster.kill();

            replica.awaitLoggedRole("UNKNOWN", DEADLINE);
            assertThat(cluster.nodesAcceptingClients()).as("nodes accepting clients before the designation").isEmpty();
            long settledBeforeDesignation = traffic.checker().settledCount();

            replica.designatePrimary();
            long designatedAt = System.nanoTime();

            cluster.awaitOnlyNodeAcceptingClients(replica, DEADLINE);
            LOG.info("observed: {} accepted clients {} ms after its designation", replica.name(),
                    (System.nanoTime() - designatedAt) / 1_000_000);
            assertThat(replica.nodeState()).isEqualTo("MASTER");
            traffic.awaitProgress(100, DEADLINE);
            assertThat(traffic.checker().settledCount()).isGreaterThan(settledBeforeDesignation);

            oldMaster.restart();

            oldMaster.awaitLoggedRole("REPLICA (master " + replica.name() + ")", DEADLINE);
            oldMaster.awaitCaughtUpWith(replica, DEADLINE);
            replica.setDesignatedPrimary(false);
            cluster.awaitOnlyNodeAcceptingClients(replica, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
            assertThat(oldMaster.nodeState()).isEqualTo("REPLICA");
        }
    }
}
