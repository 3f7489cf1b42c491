package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import javax.management.Attribute;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A two-node group (spec 1.6.3, figure 1.3) driven over JMX: designating the replica primary while the master still
 * answers is refused as a split-brain risk, unless forced; once the master is down, the same request makes the
 * replica master.
 */
class PrimaryDesignationTest {
    private static final String STORE = "org.apache.qpid:type=BDBHAMessageStore,name=test";
    private static final Duration ROLE_DEADLINE = Duration.ofSeconds(90);

    @TempDir
    Path directory;
    private TestNode first;
    private TestNode second;

    @AfterEach
    void stop() {
        if (first != null) {
            first.close();
        }
        if (second != null) {
            second.close();
        }
    }

    @Test
    void designatingTheReplicaWhileTheMasterAnswersIsRefusedUnlessForcedAndMakesItMasterOnceTheMasterIsDown()
            throws Exception {
        first = TestNode.start(directory, "node-1", TestNode.options().group("pair"));
        second = TestNode.start(directory, "node-2", TestNode.options().group("pair").helper(first));
        await().atMost(ROLE_DEADLINE).until(() -> "REPLICA".equals(second.attribute(STORE, "NodeState")));
        await().atMost(ROLE_DEADLINE).until(() -> replicaRow(first).get("NodeState").equals("REPLICA"));

        // The master's view: each replica's lag, in the table and in the metrics.
        CompositeData replica = replicaRow(first);
        assertThat(replica.get("NodeHostPort")).isEqualTo("localhost:" + second.replicationPort);
        assertThat((Long) replica.get("ReplicationLag")).isNotNegative();
        await().atMost(Duration.ofSeconds(30)).until(() -> scrape(first).contains(
                "tandem_ha_replica_lag_vlsn{replica=\"node-2\",vhost=\"test\"}"));
        assertThat(scrape(first)).contains("tandem_ha_replica_lag_time_seconds{replica=\"node-2\",vhost=\"test\"}");
        assertThat(second.invoke(STORE, "pingNode", new Object[] {"node-1"}, "java.lang.String")).asString()
                .startsWith("node node-1 of group pair: state MASTER, master node-1");

        // A running node's address cannot change, nor can it leave the group.
        Throwable running = catchThrowable(() -> first.invoke(STORE, "updateAddress",
                new Object[] {"node-2", "elsewhere.example.com", 5999}, "java.lang.String", "java.lang.String", "int"));
        assertThat(rootCause(running)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("node node-2 is running (it is REPLICA at localhost:" + second.replicationPort
                        + ")").hasMessageContaining("must be in a STOPPED state");
        assertThat(rootCause(catchThrowable(() -> first.invoke(STORE, "removeNodeFromGroup", new Object[] {"node-2"},
                "java.lang.String")))).hasMessageContaining("node node-2 is running");

        // The master still answers: designating the replica would make two masters.
        Throwable refused = second.asAdmin(mbsc -> catchThrowable(() ->
                mbsc.setAttribute(new ObjectName(STORE), new Attribute("DesignatedPrimary", true))));
        assertThat(rootCause(refused)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refused to designate node node-2 primary")
                .hasMessageContaining("node node-1 (localhost:" + first.replicationPort + ") of group pair still "
                        + "answers as MASTER")
                .hasMessageContaining("split brain")
                .hasMessageContaining("designatePrimary(true)");
        assertThat(second.attribute(STORE, "DesignatedPrimary")).isEqualTo(false);

        // Forced, the operator takes responsibility; then undone.
        second.invoke(STORE, "designatePrimary", new Object[] {true}, "boolean");
        assertThat(second.attribute(STORE, "DesignatedPrimary")).isEqualTo(true);
        assertThat(second.linesWith("HA-1002")).anyMatch(line -> line.contains("node-2 : true"));
        second.asAdmin(mbsc -> {
            mbsc.setAttribute(new ObjectName(STORE), new Attribute("DesignatedPrimary", false));
            return null;
        });
        assertThat(second.attribute(STORE, "DesignatedPrimary")).isEqualTo(false);
        assertThat(second.attribute(STORE, "NodeState")).isEqualTo("REPLICA");

        // Figure 1.3: the master fails; the operator designates the replica, which becomes master. node-1 is hung
        // rather than gone: its port accepts connections (the kernel's doing) but nothing answers, as a process
        // stopped with kill -STOP. The check gives it a few seconds, then lets the designation through and says so.
        first.close();
        await().atMost(ROLE_DEADLINE).until(() -> !"REPLICA".equals(second.attribute(STORE, "NodeState")));
        String account;
        long started = System.nanoTime();
        try (ServerSocket hungNode = new ServerSocket()) {
            hungNode.setReuseAddress(true);
            hungNode.bind(new InetSocketAddress("localhost", first.replicationPort), 50);
            account = (String) second.invoke(STORE, "designatePrimary", new Object[] {false}, "boolean");
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(took).isLessThan(Duration.ofSeconds(20));
        assertThat(account).startsWith("node node-2 is designated primary; checked the other nodes first: did not "
                        + "answer within 3 s")
                .contains("node-1 (localhost:" + first.replicationPort + "): node node-1 (localhost:"
                        + first.replicationPort + ") did not answer within 3000 ms")
                .contains("make sure it is stopped, not merely unreachable");
        assertThat(second.attribute(STORE, "DesignatedPrimary")).isEqualTo(true);
        await().atMost(ROLE_DEADLINE).until(() -> "MASTER".equals(second.attribute(STORE, "NodeState")));
        await().atMost(ROLE_DEADLINE).until(() -> "ACTIVE".equals(second.attribute(
                "org.tandembroker:type=VirtualHost,name=test", "State")));

        // The stopped node's address can change now (spec 1.6.8), and it can leave the group.
        int newPort = TestNode.freePort();
        second.invoke(STORE, "updateAddress", new Object[] {"node-1", "127.0.0.1", newPort}, "java.lang.String",
                "java.lang.String", "int");
        TabularData nodes = (TabularData) second.attribute(STORE, "AllNodesInGroup");
        assertThat(nodes.get(new Object[] {"node-1"}).get("NodeHostPort")).isEqualTo("127.0.0.1:" + newPort);
        second.invoke(STORE, "removeNodeFromGroup", new Object[] {"node-1"}, "java.lang.String");
        TabularData remaining = (TabularData) second.attribute(STORE, "AllNodesInGroup");
        assertThat(remaining.values()).extracting(row -> ((CompositeData) row).get("NodeName"))
                .containsExactly("node-2");
    }

    private static CompositeData replicaRow(TestNode master) throws Exception {
        TabularData nodes = (TabularData) master.attribute(STORE, "AllNodesInGroup");
        return nodes.get(new Object[] {"node-2"});
    }

    private static String scrape(TestNode node) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + node.metricsPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static Throwable rootCause(Throwable thrown) {
        Throwable cause = thrown;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
