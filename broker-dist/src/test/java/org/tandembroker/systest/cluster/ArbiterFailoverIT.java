package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 8 of issue 3: a two-node group with a JE arbiter ({@code bin/arbiter}, i.e. {@code ArbiterMain}, in a
 * container of its own), master killed: the replica and the arbiter are a majority of three, so the replica is
 * elected without any operator (no designation: {@code designatedPrimary} false on both nodes, and no
 * {@code HA-1002} anywhere), the clients continue on it (the arbiter acknowledges its commits in place of the
 * absent node), and the old master, restarted, rejoins as its replica and catches up.
 *
 * <p>JE settings: the defaults of the broker and of {@code bin/arbiter} (both elect with 2 s election timeouts;
 * before, the arbiter kept JE's 10 s and took about 30 s to follow the new master after a kill, three ~10 s waits
 * for the dead node's address). The brokers' {@code je.rep.feederTimeout} keeps JE's 30 s default.
 */
class ArbiterFailoverIT {
    private static final Logger LOG = LoggerFactory.getLogger(ArbiterFailoverIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    @BeforeAll
    static void requireDocker() {
        ContainerEnvironment.requireDocker();
    }

    @Test
    void masterOfAPairWithAnArbiterKilledTheReplicaTakesOverWithoutAnOperatorAndTheOldMasterRejoins() {
        try (BrokerCluster cluster = BrokerCluster.builder().nodes(2)
                .store((node, group) -> StoreSection.replicated(node, group).xml())
                .start();
             ArbiterNode arbiter = ArbiterNode.start(cluster, "arbiter");
             FailoverTraffic traffic = FailoverTraffic.start("arbiter-master-killed", cluster.connectionFactory())) {
            BrokerNode oldMaster = cluster.node(1);
            BrokerNode replica = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(oldMaster, DEADLINE);
            arbiter.awaitFollowingMaster(DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            oldMaster.kill();
            long killedAt = System.nanoTime();

            cluster.awaitOnlyNodeAcceptingClients(replica, DEADLINE);
            LOG.info("observed: {} accepted clients {} ms after {} was killed", replica.name(),
                    (System.nanoTime() - killedAt) / 1_000_000, oldMaster.name());
            traffic.awaitProgress(100, DEADLINE);

            oldMaster.restart();

            oldMaster.awaitLoggedRole("REPLICA (master " + replica.name() + ")", DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            oldMaster.awaitCaughtUpWith(replica, DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
            assertThat(replica.logs() + oldMaster.logs()).as("designations").doesNotContain("HA-1002");
        }
    }

    /**
     * A silent master (frozen with {@code docker pause}: connections open, nothing answers) is noticed only by
     * heartbeat timeouts. With JE's 30 s the pair took 33-67 s to serve again in the chaos soak (docs/reliability.md,
     * finding 5). With quick failure detection on both brokers ({@code je.rep.replicaTimeout} and
     * {@code feederTimeout} 5 s) and on the arbiter ({@code --rep-config je.rep.replicaTimeout=5 s}), the replica
     * and the arbiter give the master up after 5 s, elect the replica, and the arbiter acknowledges its commits:
     * the replica serves while the old master is still frozen, well before JE's 30 s would even have noticed it.
     * Resumed, the old master serves nobody and rejoins as a replica; nothing is lost.
     */
    @Test
    void silentMasterOfAPairWithAnArbiterIsReplacedWithinSecondsWithQuickFailureDetection() {
        try (BrokerCluster cluster = BrokerCluster.builder().nodes(2)
                .store((node, group) -> StoreSection.replicated(node, group).quickFailureDetection().xml())
                .start();
             ArbiterNode arbiter = ArbiterNode.start(cluster, "arbiter", ArbiterNode.QUICK_FAILURE_DETECTION);
             FailoverTraffic traffic = FailoverTraffic.start("arbiter-master-paused", cluster.connectionFactory())) {
            BrokerNode oldMaster = cluster.node(1);
            BrokerNode replica = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(oldMaster, DEADLINE);
            arbiter.awaitFollowingMaster(DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            oldMaster.pause();
            long pausedAt = System.nanoTime();

            cluster.awaitOnlyNodeAcceptingClients(replica, DEADLINE);
            long acceptingMillis = (System.nanoTime() - pausedAt) / 1_000_000;
            traffic.awaitProgress(100, DEADLINE);
            long progressMillis = (System.nanoTime() - pausedAt) / 1_000_000;
            LOG.info("observed: {} accepted clients {} ms and the clients made progress {} ms after {} was paused",
                    replica.name(), acceptingMillis, progressMillis, oldMaster.name());
            assertThat(acceptingMillis).as("ms from the pause to the replica accepting clients (JE's default "
                    + "timeouts alone would take 30 s to notice the silent master)").isLessThan(20_000);
            assertThat(oldMaster.isPaused()).as("the old master is still frozen").isTrue();

            oldMaster.unpause();

            oldMaster.awaitLoggedRole("REPLICA (master " + replica.name() + ")", DEADLINE);
            cluster.awaitOnlyNodeAcceptingClients(replica, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            oldMaster.awaitCaughtUpWith(replica, DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
        }
    }
}
