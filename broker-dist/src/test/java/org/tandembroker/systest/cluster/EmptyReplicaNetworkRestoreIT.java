package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 5 of issue 3: a replica whose volume was wiped starts with an empty store, is seeded by a network
 * restore from the master, and can then take over with every message.
 *
 * <p>A node that only lagged catches up from the master's log; an empty one needs the log from the group's very
 * first transaction, and a master keeps that only until JE's cleaner deletes old log files. The test makes
 * that happen within seconds: small log files ({@code je.log.fileMax} 1 MB), at most 1 MB of cleaned files kept
 * for absent replicas ({@code je.reservedDisk}; the broker's {@code maxDisk} would do the same on a full
 * volume), frequent checkpoints ({@code je.checkpointer.bytesInterval} 1 MB, so cleaned files can go), and
 * 32 KiB messages that the consumer takes at once (so old files hold nothing live).
 *
 * <p>Sequence: three nodes, node2 with {@code je.rep.node.priority} 0 (it never becomes master, so the node that
 * takes over at the end can only be the restored one); producer and consumer on the failover URL throughout.
 * node3 is killed; traffic goes on until the master (node1) has deleted its first log file; node3 comes back as
 * a new container with the same identity and an empty work directory; it logs {@code HA-1006} (network restore
 * started, complete), becomes a replica of node1 and catches up. Then node1 is killed: node3 is elected,
 * the clients continue on it, and every settled message is consumed.
 */
class EmptyReplicaNetworkRestoreIT {
    private static final Logger LOG = LoggerFactory.getLogger(EmptyReplicaNetworkRestoreIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final String FIRST_LOG_FILE = "00000000.jdb";

    @BeforeAll
    static void requireDocker() {
        ContainerEnvironment.requireDocker();
    }

    @Test
    void wipedReplicaIsRestoredOverTheNetworkAndTakesOverWithEveryMessage() throws Exception {
        try (BrokerCluster cluster = BrokerCluster.builder().nodes(3)
                .store((node, group) -> {
                    StoreSection store = StoreSection.replicated(node, group).quickFailureDetection()
                            .envConfig("je.log.fileMax", "1000000")
                            .envConfig("je.reservedDisk", "1000000")
                            .envConfig("je.checkpointer.bytesInterval", "1000000");
                    if (node.name().equals("node2")) {
                        store.repConfig("je.rep.node.priority", "0");
                    }
                    return store.xml();
                })
                .start();
             FailoverTraffic traffic = FailoverTraffic.start("network-restore", cluster.connectionFactory(),
                     32 * 1024)) {
            BrokerNode master = cluster.node(1);
            BrokerNode wiped = cluster.node(3);
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);
            traffic.awaitProgress(50, DEADLINE);

            wiped.kill();
            await(master.name() + " deleting its first log file").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                    .until(() -> !storeFiles(master).contains(FIRST_LOG_FILE));
            LOG.info("{}'s store after cleaning: {}", master.name(), storeFiles(master).replace('\n', ' '));

            wiped.recreateWithEmptyStore();

            wiped.awaitLoggedRole("REPLICA (master " + master.name() + ")", DEADLINE);
            assertThat(wiped.currentRunLogs()).as("the wiped node's log")
                    .contains("HA-1006 : Network restore : node " + wiped.name() + " : started")
                    .contains("HA-1006 : Network restore : node " + wiped.name() + " : complete");
            wiped.awaitCaughtUpWith(master, DEADLINE);
            traffic.awaitProgress(50, DEADLINE);

            master.kill();

            cluster.awaitOnlyNodeAcceptingClients(wiped, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
        }
    }

    /** The file names in {@code node}'s store directory, one a line. */
    private static String storeFiles(BrokerNode node) throws Exception {
        return node.container().execInContainer("ls", BrokerNode.WORK + "/" + StoreSection.STORE_PATH).getStdout();
    }
}
