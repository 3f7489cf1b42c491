package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.tools.haadmin.HaAdmin;

/**
 * The spec's figure 1.3 driven with the operator's tool, {@code bin/ha-admin} (its main class, run in the test
 * JVM against each node's published JMX port), in a two-node group in containers, neither node designated:
 * <ol>
 *   <li>While node1 is master and answers, {@code ha-admin designate-primary node2} is refused with exit code 1
 *       and the split-brain explanation; nothing changes.</li>
 *   <li>node1 is killed; node2 stays passive and clients cannot work.</li>
 *   <li>{@code ha-admin designate-primary node2 --wait} makes node2 master (exit code 0), the clients continue
 *       on it, and every settled message is received.</li>
 * </ol>
 */
class HaAdminDesignationIT {
    private static final Logger LOG = LoggerFactory.getLogger(HaAdminDesignationIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    @BeforeAll
    static void requireDockerAndJmx() {
        ContainerEnvironment.requireDocker();
        ContainerEnvironment.requireBrokerJmx();
    }

    @Test
    void designatePrimaryIsRefusedWhileTheMasterAnswersAndMakesTheReplicaMasterOnceTheMasterIsKilled() {
        try (BrokerCluster cluster = TwoNodeReplicaFailureIT.twoNodes(false, true);
             FailoverTraffic traffic = FailoverTraffic.start("ha-admin-designation", cluster.connectionFactory())) {
            BrokerNode master = cluster.node(1);
            BrokerNode replica = cluster.node(2);
            cluster.awaitOnlyNodeAcceptingClients(master, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);

            Run refused = haAdmin(replica, "designate-primary", replica.name());

            assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(1);
            assertThat(refused.err()).contains("refused to designate node " + replica.name() + " primary")
                    .contains("node " + master.name()).contains("still answers as MASTER").contains("split brain")
                    .contains("designate-primary " + replica.name() + " --force");
            assertThat(replica.isDesignatedPrimary()).isFalse();
            assertThat(haAdmin(replica, "status").out()).contains("master: " + master.name());

            master.kill();
            replica.awaitLoggedRole("UNKNOWN", DEADLINE);
            assertThat(cluster.nodesAcceptingClients()).as("nodes accepting clients before the designation").isEmpty();
            long settledBeforeDesignation = traffic.checker().settledCount();

            Run designated = haAdmin(replica, "designate-primary", replica.name(), "--wait", "120");

            assertThat(designated.exitCode()).as(designated.toString()).isZero();
            assertThat(designated.out()).startsWith("node " + replica.name() + " is designated primary; it is MASTER\n")
                    .contains("checked the other nodes first: did not answer within 3 s").contains(master.name());
            cluster.awaitOnlyNodeAcceptingClients(replica, DEADLINE);
            traffic.awaitProgress(100, DEADLINE);
            assertThat(traffic.checker().settledCount()).isGreaterThan(settledBeforeDesignation);
            ZeroLossChecker.Report report = traffic.finish(DEADLINE);
            report.assertZeroLoss().assertInOrderApartFromRedeliveries();
        }
    }

    /** {@code ha-admin ARGS} against {@code node}'s JMX connector, as its admin. */
    private static Run haAdmin(BrokerNode node, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--host", "127.0.0.1", "--port", String.valueOf(node.jmxPort()), "--user",
                BrokerNode.ADMIN_USER, "--password", BrokerNode.ADMIN_PASSWORD, "--vhost", "default"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = HaAdmin.run(new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
        Run run = new Run(exitCode, out.toString(), err.toString());
        LOG.info("ha-admin {} against {}: {}", String.join(" ", args), node.name(), run);
        return run;
    }

    /** One run of ha-admin: its exit code and what it printed. */
    private record Run(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + (out.isEmpty() ? "" : ", out: " + out.strip()) + (err.isEmpty() ? ""
                    : ", err: " + err.strip());
        }
    }
}
