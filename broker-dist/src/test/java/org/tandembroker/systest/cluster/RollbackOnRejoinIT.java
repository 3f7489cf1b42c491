package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 7 of issue 3: an old master that must roll back when it rejoins, because it committed what the new
 * master never received. JE then requires it to discard those commits (its {@code RollbackException}); the node
 * must reopen its environment by itself, say in its operational log what was rolled back ({@code HA-1004}) and
 * serve as a replica. Two ways to get there, both in two-node groups with the new master designated over JMX:
 *
 * <p><b>Weak durability, old master killed and restarted.</b> Durability {@code NO_SYNC,NO_SYNC,NONE} (spec table
 * 1.2, row 3): the master settles a publish once the message is on its own disk (coalescing sync), without
 * waiting for the replica.
 * <ol>
 *   <li>Producer {@code replicated} publishes 100 messages; JE's DbPing shows they reached node2.</li>
 *   <li>The network cuts node2 off. node1, still reachable by clients, keeps settling producer {@code through}'s
 *       messages under NONE, on its disk only, until its quorum heartbeat (always majority-acknowledged) finds
 *       no replica and it stops serving ({@code HA-1005}).</li>
 *   <li>node1 is killed (the master failed); node2, back on the network, is designated primary by the operator,
 *       becomes master with the history it has, and {@code through} continues on it.</li>
 *   <li>node1 is started again and rolls back everything after the last point it shares with node2.</li>
 * </ol>
 * <b>Zero loss here covers only what the policy promises</b>: the {@code replicated} messages (shown to be on
 * both nodes) and every {@code through} message attempted after node1 stopped serving (settled by node2 alone,
 * on its disk). {@code through} messages settled by node1 while it was alone were never durable beyond node1:
 * the rollback discards them unless the consumer got them in time; the test counts and reports them and excuses
 * nothing else. The acknowledgement policy NONE makes none of the rolled-back transactions durable, so
 * {@code je.rep.txnRollbackLimit} (10 durable transactions) does not stop the node.
 *
 * <p><b>Durable policy, old master cut off and healed.</b> Default durability. node1 (master) is cut off from
 * node2 and from the clients; what it commits then (a publish in flight, its quorum heartbeats) is written to its
 * log but never acknowledged ({@code InsufficientAcksException}: in doubt, never settled), and it stops serving.
 * The operator designates node2 (node1 does not answer, so the broker allows it); the clients continue there.
 * When the network heals, node1 learns of the new master (its election rebroadcast, every 5 s here), must roll
 * back those unacknowledged commits while it runs, and becomes node2's replica. Every settled message survives.
 *
 * <p>JE settings: {@link StoreSection#quickFailureDetection()}, {@link StoreSection#immediatePrimaryActivation()}.
 */
class RollbackOnRejoinIT {
    private static final Logger LOG = LoggerFactory.getLogger(RollbackOnRejoinIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final String QUEUE = "ha.rollback-on-rejoin";

    @BeforeAll
    static void requireDockerAndJmx() {
        ContainerEnvironment.requireDocker();
        ContainerEnvironment.requireBrokerJmx();
    }

    @Test
    void oldMasterWithCommitsTheNewMasterNeverGotRollsThemBackOnRejoinAndServesAsReplica() throws Exception {
        try (BrokerCluster cluster = BrokerCluster.builder().nodes(2)
                .store((node, group) -> StoreSection.replicated(node, group)
                        .set("durability", "NO_SYNC,NO_SYNC,NONE")
                        .quickFailureDetection().immediatePrimaryActivation().xml())
                .eachNode(BrokerNode.Builder::jmx)
                .start()) {
            BrokerNode oldMaster = cluster.node(1);
            BrokerNode newMaster = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(oldMaster, DEADLINE);
            ZeroLossChecker checker = new ZeroLossChecker();
            try (CountingConsumer consumer = new CountingConsumer("c", cluster.connectionFactory(), QUEUE, checker)
                    .carryOnAfterFailures().start()) {
                new CountingProducer("replicated", cluster.connectionFactory(), QUEUE, checker).sendNow(100);
                newMaster.awaitCaughtUpWith(oldMaster, DEADLINE);

                newMaster.disconnect();

                CountingProducer through = new CountingProducer("through", cluster.connectionFactory(), QUEUE,
                        checker).interval(FailoverTraffic.SEND_INTERVAL).carryOnAfterFailures().start();
                through.awaitSettled(10, DEADLINE);
                awaitLogLine(oldMaster, "HA-1005 : Quorum : node " + oldMaster.name() + " : lost");
                await("no node accepting clients").atMost(DEADLINE).pollInterval(Duration.ofMillis(250))
                        .until(() -> cluster.nodesAcceptingClients().isEmpty());
                long settledByTheOldMasterAlone = through.settled();
                long firstAttemptAfterItStopped = through.attempts();

                oldMaster.kill();
                newMaster.reconnect();
                newMaster.designatePrimary();

                cluster.awaitOnlyNodeAcceptingClients(newMaster, DEADLINE);
                through.awaitSettled(settledByTheOldMasterAlone + 100, DEADLINE);

                oldMaster.restart();

                oldMaster.awaitLoggedRole("REPLICA (master " + newMaster.name() + ")", DEADLINE);
                cluster.awaitOnlyNodeAcceptingClients(newMaster, DEADLINE);
                through.stop();
                BiPredicate<String, Long> settledUnderNoneByTheOldMasterAlone =
                        (producer, sequence) -> producer.equals("through") && sequence < firstAttemptAfterItStopped;
                ZeroLossChecker.Report report = checker.awaitZeroLossExcept(DEADLINE,
                        settledUnderNoneByTheOldMasterAlone, consumer);
                oldMaster.awaitCaughtUpWith(newMaster, DEADLINE);

                LOG.info("rollback on rejoin: {}; the old master settled {} 'through' messages alone, {} of them "
                        + "rolled back and never consumed; consumer {}", report.summary(), settledByTheOldMasterAlone,
                        report.lost().containsKey("through") ? report.lost().get("through").size() : 0, consumer.connection());
                report.assertZeroLossExcept(settledUnderNoneByTheOldMasterAlone);
                assertThat(oldMaster.nodeState()).isEqualTo("REPLICA");
                assertRollbackLogged(oldMaster);
            }
        }
    }

    @Test
    void isolatedOldMasterMeetingTheDesignatedNewMasterRollsBackItsUnacknowledgedCommitsAndServesAsReplica() {
        try (BrokerCluster cluster = TwoNodeReplicaFailureIT.twoNodes(false, true);
             FailoverTraffic traffic = FailoverTraffic.start("rollback-after-partition", cluster.connectionFactory())) {
            BrokerNode oldMaster = cluster.node(1);
            BrokerNode newMaster = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(oldMaster, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            oldMaster.disconnect();

            newMaster.awaitLoggedRole("UNKNOWN", DEADLINE);
            newMaster.designatePrimary();
            cluster.awaitOnlyNodeAcceptingClients(newMaster, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            awaitLogLine(oldMaster, "HA-1005 : Quorum : node " + oldMaster.name() + " : lost");

            oldMaster.reconnect();

            oldMaster.awaitLoggedRole("REPLICA (master " + newMaster.name() + ")", DEADLINE);
            cluster.awaitOnlyNodeAcceptingClients(newMaster, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            oldMaster.awaitCaughtUpWith(newMaster, DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
            assertThat(oldMaster.nodeState()).isEqualTo("REPLICA");
            assertRollbackLogged(oldMaster);
        }
    }

    /**
     * The node's current run logged {@code HA-1004 : Rolled back}, saying what it rolled back: from which
     * transaction on (JE's "earliest point indicated by transaction id=-233", or "from transaction -233 on").
     */
    private static void assertRollbackLogged(BrokerNode node) {
        String prefix = "HA-1004 : Rolled back : node " + node.name();
        List<String> lines = node.currentRunLogs().lines().filter(line -> line.contains(prefix)).toList();
        assertThat(lines).as("%s lines in %s's log since it started", prefix, node.name()).isNotEmpty();
        assertThat(lines).as("what %s rolled back", node.name())
                .anySatisfy(line -> assertThat(line).containsPattern("transaction (id=)?-?\\d+"));
    }

    private static void awaitLogLine(BrokerNode node, String text) {
        await(node.name() + " logging " + text).atMost(DEADLINE)
                .pollInterval(Duration.ofMillis(250)).until(() -> node.currentRunLogs().contains(text));
    }
}
