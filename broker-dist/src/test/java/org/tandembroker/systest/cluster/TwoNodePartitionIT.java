package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scenario 3 of issue 3: a network partition between the two nodes of a group and its repair (spec 1.6.3,
 * figure 1.5), {@code designatedPrimary} true on the master.
 *
 * <p>The partition is {@code docker network disconnect} of the replica: no packet reaches it or leaves it, and
 * nothing is reset, so each side only notices by silence (JE's heartbeat timeouts, 5 s here:
 * {@link StoreSection#quickFailureDetection()}). The master carries on alone and its clients notice nothing (no
 * failed send, no interrupted connection); the replica loses its master (UNKNOWN) and stays passive. After
 * {@code docker network connect} the replica rejoins the same master and catches up with what it missed.
 */
class TwoNodePartitionIT {
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    @BeforeAll
    static void requireDocker() {
        ContainerEnvironment.requireDocker();
    }

    @Test
    void partitionedFromItsReplicaTheDesignatedMasterCarriesOnAloneAndTheReplicaCatchesUpAfterRepair() {
        try (BrokerCluster cluster = TwoNodeReplicaFailureIT.twoNodes(true, false);
             FailoverTraffic traffic = FailoverTraffic.start("partition-designated", cluster.connectionFactory())) {
            BrokerNode master = cluster.node(1);
            BrokerNode replica = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            replica.disconnect();

            replica.awaitLoggedRole("UNKNOWN", DEADLINE);
            traffic.awaitProgress(200, DEADLINE);
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);

            replica.reconnect();

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
}
