package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.options;

import com.sleepycat.je.rep.ReplicationNetworkConfig;
import com.sleepycat.je.rep.arbiter.Arbiter;
import com.sleepycat.je.rep.arbiter.ArbiterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.store.replication.MemberState;
import org.tandembroker.core.store.replication.PingAnswer;
import org.tandembroker.store.bdbha.HaGroup.Node;
import org.tandembroker.store.bdbha.channel.ChannelRefusals;
import org.tandembroker.store.bdbha.channel.ReplicationTls;

/**
 * The replication channel over TLS, with real JE nodes in this JVM: a TLS group forms and replicates (DbPing and
 * group administration included), and a node with an untrusted certificate, a certificate name outside the
 * allow-list, or the other kind of channel cannot join, each side saying why in one HA-1008 line.
 */
class TlsReplicationTest {
    static final String ALLOWED = "CN=node-[0-9]+, O=Tandem Test";

    @TempDir
    static Path certificates;
    static Path groupTrust;
    static Path rogueTrust;
    static Path password;
    static Path node1;
    static Path node2;
    static Path outsider;
    static Path rogue;
    static Path bothTrust;
    static Path newTrust;
    static Path node1New;
    static Path node2New;

    @TempDir
    Path work;
    private HaGroup group;

    @BeforeAll
    static void makeCertificates() {
        TestCertificates made = new TestCertificates(certificates);
        Path groupAuthority = made.authority("group-ca");
        Path rogueAuthority = made.authority("rogue-ca");
        groupTrust = made.trustStore("group-trust", groupAuthority);
        rogueTrust = made.trustStore("rogue-trust", groupAuthority, rogueAuthority);
        password = made.passwordFile();
        node1 = made.nodeKeyStore("node-1", "group-ca");
        node2 = made.nodeKeyStore("node-2", "group-ca");
        outsider = made.nodeKeyStore("outsider", "group-ca");
        rogue = made.nodeKeyStore("node-9", "rogue-ca"); // a name the allow-list accepts, from an unknown authority
        Path newAuthority = made.authority("new-ca");
        bothTrust = made.trustStore("both-trust", groupAuthority, newAuthority);
        newTrust = made.trustStore("new-trust", newAuthority);
        node1New = made.nodeKeyStore("node-1-new", "node-1", "new-ca");
        node2New = made.nodeKeyStore("node-2-new", "node-2", "new-ca");
    }

    @AfterEach
    void close() {
        if (group != null) {
            group.close();
        }
    }

    private static HaGroup.Options tls(Path keyStore, Path trustStore) {
        HaGroup.Options options = options();
        TestCertificates.replicationTls(keyStore, trustStore, password, ALLOWED).forEach(options::element);
        return options;
    }

    @Test
    void aTlsGroupFormsReplicatesAnswersPingsAndTransfersTheMaster() {
        group = new HaGroup(work, "tls");
        Node first = group.start("node-1", tls(node1, groupTrust)).awaitActive();
        Node second = group.start("node-2", tls(node2, groupTrust)).awaitRedirectTo(first);
        assertThat(first.store.groupMembers()).extracting(GroupMember::name).containsExactly("node-1", "node-2");

        // SIMPLE_MAJORITY of two: each commit completes only once node-2 acknowledged it over the TLS channel.
        first.publishAll("over-tls-", 20);

        ReplicatedStoreControl control = new ReplicatedStoreControl(first.store);
        org.tandembroker.core.store.replication.GroupMember member = control.groupMembers().stream()
                .filter(m -> m.name().equals("node-2")).findFirst().orElseThrow();
        PingAnswer answer = await().atMost(ROLE_DEADLINE).until(() -> {
            try {
                return control.ping(member, 5000);
            } catch (java.io.IOException e) {
                return null;
            }
        }, a -> a != null);
        assertThat(answer.state()).isEqualTo(MemberState.REPLICA);

        assertThat(first.store.transferMaster("node-2", 60)).succeedsWithin(ROLE_DEADLINE).isEqualTo("node-2");
        second.awaitActive();
        assertThat(second.recover().messages).hasSize(20);
        assertThat(first.logLines).noneMatch(line -> line.startsWith("HA-1008"));
        assertThat(second.logLines).noneMatch(line -> line.startsWith("HA-1008"));
    }

    @Test
    void aNodeWhoseCertificateIsNotSignedByTheGroupsAuthorityCannotJoinAndBothSidesSayWhy() {
        group = new HaGroup(work, "tls");
        Node first = group.start("node-1", tls(node1, groupTrust)).awaitActive();
        Node intruder = group.start("node-9", tls(rogue, rogueTrust));

        awaitLine(first, "from 127.0.0.1 : its certificate is not trusted here: it presented none, or one not signed "
                + "by an authority in this node's trust store");
        awaitLine(intruder, "to " + first.hostPort() + " : it refused this node's certificate: not signed by an "
                + "authority in its trust store, or a name its <allowedNodes> does not allow");
        assertNeverJoined(first, intruder);
    }

    @Test
    void aNodeWhoseCertificateNameIsOutsideTheAllowListCannotJoinAndBothSidesSayWhy() {
        group = new HaGroup(work, "tls");
        Node first = group.start("node-1", tls(node1, groupTrust)).awaitActive();
        Node stranger = group.start("stranger", tls(outsider, groupTrust));

        awaitLine(first, "from 127.0.0.1 : its certificate name 'CN=outsider, O=Tandem Test' is not allowed by "
                + "<allowedNodes> '" + ALLOWED + "'");
        // The stranger's own allow-list accepts node-1, so node-1's refusal is what it sees.
        awaitLine(stranger, "to " + first.hostPort() + " : it refused this node's certificate");
        assertNeverJoined(first, stranger);
    }

    @Test
    void aPlainNodeCannotJoinATlsGroupAndBothSidesSayWhy() {
        group = new HaGroup(work, "tls");
        Node first = group.start("node-1", tls(node1, groupTrust)).awaitActive();
        Node plain = group.start("node-3", options());

        awaitLine(first, "from 127.0.0.1 : it speaks plain TCP but this node's replication channel requires TLS");
        awaitLine(plain, "to " + first.hostPort() + " : it closed 3 or more connections in a row before answering: "
                + "it probably requires TLS");
        assertNeverJoined(first, plain);
    }

    @Test
    void aTlsNodeCannotJoinAPlainGroupAndBothSidesSayWhy() {
        group = new HaGroup(work, "plain");
        Node first = group.start("node-1", options()).awaitActive();
        Node encrypted = group.start("node-2", tls(node2, groupTrust));

        awaitLine(first, "from 127.0.0.1 : it speaks TLS but this node's replication channel is plain TCP");
        awaitLine(encrypted, "to " + first.hostPort() + " : it ");
        assertThat(encrypted.linesWith("HA-1008")).allMatch(line -> line.contains("plain TCP"));
        assertNeverJoined(first, encrypted);
    }

    @Test
    void anArbiterWithTheGroupsTlsSettingsJoinsAndFailsTheGroupOverWhileAPlainOneIsRefused() throws Exception {
        group = new HaGroup(work, "tls");
        Node first = group.start("node-1", tls(node1, groupTrust)).awaitActive();
        Node second = group.start("node-2", tls(node2, groupTrust)).awaitRedirectTo(first);
        // The arbiter is configured as bin/arbiter --replication-tls configures it (broker-tools' ArbiterMain).
        ReplicationTls arbiterTls = ReplicationTls.from(Path.of("arbiter-tls.properties"), "replicationTls",
                Map.of("keyStore", node2.toString(), "keyStorePasswordFile", password.toString(),
                        "trustStore", groupTrust.toString(), "trustStoreType", "JKS", "allowedNodes", ALLOWED),
                work, System::getenv);
        List<String> arbiterLines = new CopyOnWriteArrayList<>();
        try (ChannelRefusals plainRefusals = ChannelRefusals.register("plain-arbiter", (peer, reason) -> { });
             ChannelRefusals refusals = ChannelRefusals.register("arbiter", (peer, reason) ->
                     arbiterLines.add(peer + " : " + reason))) {
            Arbiter plain = startArbiter("plain-arbiter", first, second,
                    ReplicationTls.plainNetworkConfig(plainRefusals.token()), 1);
            try {
                awaitLine(first, "from 127.0.0.1 : it speaks plain TCP");
                assertThat(first.store.groupMembers()).extracting(m -> m.name()).doesNotContain("plain-arbiter");
            } finally {
                plain.shutdown();
            }
            Arbiter arbiter = startArbiter("arbiter", first, second, arbiterTls.networkConfig(refusals.token()), 5);
            try {
                await().atMost(ROLE_DEADLINE).until(() -> first.store.groupMembers().stream()
                        .anyMatch(member -> member.name().equals("arbiter") && member.type().equals("ARBITER")));
                first.publishAll("m", 5);
                assertThat(arbiterLines).isEmpty();
                first.close();
                // node-2 and the arbiter are a majority of three: no designation needed, once the arbiter follows
                second.awaitActive().awaitQuorum();
                assertThat(second.recover().messages).hasSize(5);
                assertThat(second.publishAll("acknowledged-by-the-arbiter", 2)).hasSize(2);
                // node-1 may be reported while it shuts down (its port accepts, then closes mid-handshake): only
                // the node the arbiter serves with must never refuse it
                assertThat(arbiterLines).noneMatch(line -> line.contains(second.hostPort()));
                second.close(); // while the arbiter still acknowledges: its hand-over completes at once
            } finally {
                arbiter.shutdown();
            }
        }
    }

    @Test
    void theGroupMovesToANewAuthorityByRollingRestartsWithoutLosingItsMaster() {
        group = new HaGroup(work, "tls");
        Node master = group.start("node-1", tls(node1, groupTrust)).awaitActive();
        Node replica = group.start("node-2", tls(node2, groupTrust)).awaitRedirectTo(master);
        int published = 0;
        master.publishAll("before-", 5);
        published += 5;
        // Each pass: restart the replica with its new files, move the master to it, restart the former master.
        Path[][] passes = {
            {node1, bothTrust, node2, bothTrust},       // 1. trust the old and the new authority
            {node1New, bothTrust, node2New, bothTrust}, // 2. certificates from the new authority
            {node1New, newTrust, node2New, newTrust},   // 3. trust the new authority only
        };
        for (Path[] pass : passes) {
            Node[] nodes = rollingRestart(master, replica, pass);
            master = nodes[0];
            replica = nodes[1];
            master.publishAll("pass-" + published + "-", 5);
            published += 5;
        }
        assertThat(master.recover().messages).hasSize(published);
        for (Node node : List.of(master, replica)) {
            assertThat(node.logLines).noneMatch(line -> line.startsWith("HA-1008"));
        }
    }

    /** Restarts the replica, transfers the master to it, restarts the former master; returns {master, replica}. */
    private Node[] rollingRestart(Node master, Node replica, Path[] files) {
        Path masterKeys = files[master.name.equals("node-1") ? 0 : 2];
        Path masterTrust = files[master.name.equals("node-1") ? 1 : 3];
        Path replicaKeys = files[replica.name.equals("node-1") ? 0 : 2];
        Path replicaTrust = files[replica.name.equals("node-1") ? 1 : 3];
        // Two nodes: the master keeps committing alone while its replica restarts only if designated primary.
        assertThat(master.store.setDesignatedPrimary(true)).succeedsWithin(ROLE_DEADLINE);
        replica.close();
        Node restarted = group.start(replica.name, tls(replicaKeys, replicaTrust)).awaitRedirectTo(master);
        assertThat(master.listener.isActive()).isTrue();
        assertThat(master.store.setDesignatedPrimary(false)).succeedsWithin(ROLE_DEADLINE);
        assertThat(master.store.transferMaster(restarted.name, 60)).succeedsWithin(ROLE_DEADLINE)
                .isEqualTo(restarted.name);
        restarted.awaitActive();
        assertThat(restarted.store.setDesignatedPrimary(true)).succeedsWithin(ROLE_DEADLINE);
        master.close();
        Node former = group.start(master.name, tls(masterKeys, masterTrust)).awaitRedirectTo(restarted);
        assertThat(restarted.store.setDesignatedPrimary(false)).succeedsWithin(ROLE_DEADLINE);
        return new Node[] {restarted, former};
    }

    /** Starts an arbiter; its constructor returns once it found the master, or after {@code waitSeconds}. */
    private Arbiter startArbiter(String name, Node first, Node second, ReplicationNetworkConfig network,
                                 int waitSeconds) throws Exception {
        Path home = work.resolve(name);
        Files.createDirectories(home);
        ArbiterConfig config = new ArbiterConfig();
        config.setArbiterHome(home.toString());
        config.setGroupName("tls");
        config.setNodeName(name);
        config.setNodeHostPort("localhost:" + HaGroup.freePort());
        config.setHelperHosts(first.hostPort() + "," + second.hostPort());
        config.setUnknownStateTimeout(waitSeconds, TimeUnit.SECONDS);
        config.setRepNetConfig(network);
        return new Arbiter(config);
    }

    private static void awaitLine(Node node, String text) {
        String prefix = "HA-1008 : Replication connection refused : node " + node.name + " : ";
        await().atMost(ROLE_DEADLINE).untilAsserted(() ->
                assertThat(node.logLines).anyMatch(line -> line.startsWith(prefix + text)));
    }

    /** One line per peer and reason, however often JE retried; the node never joined. */
    private static void assertNeverJoined(Node master, Node refused) {
        for (Node node : List.of(master, refused)) {
            Map<String, Long> counts = node.linesWith("HA-1008").stream().collect(java.util.stream.Collectors
                    .groupingBy(line -> line, java.util.stream.Collectors.counting()));
            assertThat(counts.values()).as(node.name + ": " + counts.keySet()).allMatch(count -> count == 1);
        }
        assertThat(master.store.groupMembers()).extracting(GroupMember::name).containsExactly(master.name);
        assertThat(refused.store.nodeState()).isNotIn("REPLICA", "MASTER");
        assertThat(refused.listener.everActive()).isFalse();
    }
}
