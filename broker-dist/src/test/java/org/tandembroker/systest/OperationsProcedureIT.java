package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/operations.md run as written: each command is taken from the block the document marks
 * ({@code <!-- procedure: NAME -->}), with the document's installation ({@code /opt/tandem}), store directory
 * ({@code /var/lib/tandem}), backup directory, replication host names and ports mapped to this test's. Brokers are
 * {@code bin/broker} processes; a failed node is killed with {@code kill -9}; a partition between two nodes of one
 * machine is a frozen node ({@code kill -STOP}, later {@code kill -CONT}), which the others see as a partition does:
 * silence, no reset. Two groups, each carrying several procedures in sequence to keep the run short:
 * <ol>
 *   <li>the section 1 pair: figures 1.4 (designated and undesignated master), 1.5, the running broker's backup,
 *       figure 1.3; then the stopped node's backup restored as a new group (section 7) with an empty node-b joined
 *       to it; figure 1.6's recovery on that pair; a third node, the master killed, and {@code remove-node};</li>
 *   <li>a standalone broker migrated to a replicated store (section 8), an empty node-b and an arbiter added, node-a
 *       killed: node-b takes over without an operator.</li>
 * </ol>
 * The split brain itself (figure 1.6 made, {@code fig-1.6-detect}, the healed network) is {@link SplitBrainIT}'s:
 * it needs packets dropped between two nodes, which containers give (a frozen process here would still be master
 * when thawed, and {@code docker network disconnect} removes the interface, after which JE refuses to designate
 * the node: {@code je.rep.nodeHostPort Invalid hostname}).
 */
class OperationsProcedureIT {
    private static final Duration START = Duration.ofSeconds(120);
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final String ADMIN_PASSWORD = "procedure-admin";
    private static final int[] DOCUMENT_PORTS =
            {5672, 5673, 5674, 9001, 9002, 9003, 9404, 9405, 9406, 5000, 5001, 5002};

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path installation;
    private final Map<Integer, Integer> ports = new LinkedHashMap<>();
    private final List<ScriptProcess> processes = new ArrayList<>();
    private Map<String, String> environment;
    private OperationsProcedures document;

    @AfterEach
    void stop() throws Exception {
        for (ScriptProcess process : processes) {
            if (process.isAlive()) {
                ScriptProcess.run("kill -CONT " + process.pid(), Map.of(), Duration.ofSeconds(10));
            }
            process.close();
        }
    }

    @Test
    void pairFiguresBackupRestoreSplitBrainRecoveryAndThreeNodesAsWritten() throws Exception {
        setUp();
        Path first = installation.resolve("first");
        writeNode(first, "node-a");
        writeNode(first, "node-b");

        // Section 1: the users, both brokers, the password file, the first status.
        ScriptProcess[] pair = startPair(first);
        ScriptProcess nodeA = pair[0];
        ScriptProcess nodeB = pair[1];
        ScriptProcess normal = runBlock("fig-1.3-normal", first);
        assertThat(normal.exitCode()).as(normal.text()).isZero();
        assertThat(normal.text()).containsPattern("node-a\\s+localhost:\\d+\\s+ELECTABLE\\s+MASTER");
        List<String> sent = new ArrayList<>();
        send(5672, "normal operation", sent);

        // Figure 1.4, master designated: node-b fails, node-a carries on alone; node-b restarted catches up.
        nodeB.kill9();
        send(5672, "while node-b is down", sent);
        nodeB = startBroker(startLine(first, "node-b"));
        awaitBlock("fig-1.4-rejoined", first, replicaCaughtUp("node-b"));

        // Figure 1.4, master not designated (node-a undesignated with the document's command): commits fail and it
        // stops serving; designated by the operator, it serves alone.
        assertSucceeds(runBlock("fig-1.4-undesignate", first));
        nodeB.kill9();
        ScriptProcess master = nodeA;
        // A publish is what finds the quorum gone (its commit is not acknowledged): publish until node-a says so.
        await("node-a stops serving without node-b").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    if (master.lines().stream()
                            .anyMatch(line -> line.contains("HA-1005 : Quorum : node node-a : lost"))) {
                        return true;
                    }
                    probe(5672);
                    return false;
                });
        assertThat(probe(5672)).as("a publish to node-a without quorum").isFalse();
        assertSucceeds(runBlock("fig-1.4-designate", first));
        nodeA.awaitLine("HA-1005 : Quorum : node node-a : regained", DEADLINE);
        send(5672, "node-a designated, node-b down", sent);
        nodeB = startBroker(startLine(first, "node-b"));
        awaitBlock("fig-1.4-rejoined", first, replicaCaughtUp("node-b"));

        // Figure 1.5: the network between the nodes fails (node-b frozen); the designated master carries on; when
        // the network is back node-b catches up by itself.
        freeze(nodeB);
        send(5672, "during the partition", sent);
        thaw(nodeB);
        awaitBlock("fig-1.5-healed", first, replicaCaughtUp("node-b"));

        // Section 6: the running master's backup, taken by the broker itself.
        Path backups = Files.createDirectories(installation.resolve("backup"));
        ScriptProcess hot = run(String.join("\n", document.commands("backup-running").stream()
                .map(command -> mapped(command, first, nodePaths(first, "node-a", backups))).toList()), "");
        assertSucceeds(hot);
        assertThat(backups.resolve("2026-11-20/tandem-backup.txt")).content()
                .contains("hot backup (JE DbBackup) of node node-a (MASTER) of group tandem");

        // Figure 1.3: node-a fails; the operator designates node-b; clients go on with node-b; node-a, started as
        // written (its file still designating it), joins node-b as a replica.
        nodeA.kill9();
        ScriptProcess designate = runBlock("fig-1.3-designate", first);
        assertSucceeds(designate);
        assertThat(designate.text()).contains("node node-b is designated primary; it is MASTER");
        send(5673, "while node-a is down", sent);
        List<String> restart = document.commands("fig-1.3-restart");
        assertThat(restart).hasSize(1);
        nodeA = startBroker(mapped(restart.get(0), first));
        nodeA.awaitLine("HA-1001 : Role changed : default : node node-a is now REPLICA \\(master node-b\\)", START);
        assertThat(nodeA.lines()).anyMatch(line -> line.contains("HA-1002 : Designated primary : node node-a : "
                + "not designated primary any more: master node-b is designated primary"));
        assertThat(nodeA.lines()).noneMatch(line -> line.contains("both designated primary")
                || line.contains("DETACHED"));
        ScriptProcess rejoined = awaitBlock("fig-1.3-rejoined", first, replicaCaughtUp("node-a"));
        assertThat(rejoined.text()).containsPattern("node-b\\s+localhost:\\d+\\s+ELECTABLE\\s+MASTER")
                .contains("node-b is designated primary");
        assertThat(receiveAll(5673, sent.size())).containsExactlyElementsOf(sent);

        // Sections 6 and 7: node-a (a replica now) stopped and backed up; the old group stopped; the backup restored
        // as a new group on the document's addresses, node-a first, then node-b with an empty store.
        send(5673, "before the backup", sent);
        awaitBlock("fig-1.3-rejoined", first, replicaCaughtUp("node-a"));
        nodeA.terminate();
        assertSucceeds(run(String.join("\n", document.commands("backup-stopped").stream()
                .map(command -> mapped(command, first, nodePaths(first, "node-a", backups))).toList()), ""));
        assertThat(backups.resolve("2026-11-21/tandem-backup.txt")).exists();
        nodeB.terminate();

        Path second = installation.resolve("restored");
        writeNode(second, "node-a");
        writeNode(second, "node-b");
        addAdmin(second, "node-a");
        addAdmin(second, "node-b");
        Files.createDirectories(second.resolve("node-a/work/default/store"));
        for (String block : List.of("restore-copy", "restore-reset")) {
            assertSucceeds(run(String.join("\n", document.commands(block).stream()
                    .map(command -> mapped(command, second, nodePaths(second, "node-a", backups))).toList()), ""));
        }
        // Step 3: node-a configured with exactly those values (the section 1 file: helperHostPort its own address).
        nodeA = startBroker(startLine(second, "node-a"));
        assertThat(nodeA.lines()).anyMatch(line -> line.contains("MST-1006"));
        // Step 4: node-b with an empty store, helper the new master: restored over the network, a replica.
        nodeB = startBroker(startLine(second, "node-b"));
        nodeB.awaitLine("HA-1001 : Role changed : default : node node-b is now REPLICA \\(master node-a\\)", START);
        // Section 1's status command (it asks node-a, the master: the lag columns are the master's view).
        List<String> start = document.commands("two-nodes-start");
        awaitCommand(mapped(start.get(start.size() - 1), second), replicaCaughtUp("node-b"));
        assertThat(receiveAll(5672, 1)).containsExactly("before the backup");

        // Figure 1.6's recovery, with node-b kept: node-a's history is given up for node-b's. (The split brain itself,
        // two designated masters, is SplitBrainIT's.) node-a stops; node-b is designated.
        nodeA.kill9();
        assertSucceeds(runBlock("fig-1.3-designate", second));
        // node-a backed up, its history moved away; in its file node-b as helper (with its own address it started a
        // group of its own, master alone: the document lacked this) and undesignated; node-b designated in its file;
        // node-a started: it joins node-b as its replica.
        assertSucceeds(run(String.join("\n", document.commands("fig-1.6-backup").stream()
                .map(command -> mapped(command, second, nodePaths(second, "node-a", backups))).toList()), ""));
        assertThat(backups.resolve("node-a-split/tandem-backup.txt")).exists();
        assertSucceeds(run(String.join("\n", document.commands("fig-1.6-discard").stream()
                .map(command -> mapped(command, second, nodePaths(second, "node-a", backups))).toList()), ""));
        designatePrimaryInFile(second, "node-a", false);
        designatePrimaryInFile(second, "node-b", true);
        Path hostA = second.resolve("node-a/etc/vhosts/default.xml");
        Files.writeString(hostA, Files.readString(hostA).replace("<helperHostPort>localhost:" + ports.get(5000),
                "<helperHostPort>localhost:" + ports.get(5001)));
        nodeA = startBroker(startLine(second, "node-a"));
        nodeA.awaitLine("HA-1001 : Role changed : default : node node-a is now REPLICA \\(master node-b\\)", START);
        assertThat(nodeA.lines()).noneMatch(line -> line.contains("both designated primary"));
        awaitBlock("fig-1.3-rejoined", second, replicaCaughtUp("node-a"));

        // Groups of three: node-c joins; the master fails and the two others elect one without an operator; a node
        // that will not come back is removed (refused while it runs).
        writeNode(second, "node-c");
        addAdmin(second, "node-c");
        ScriptProcess nodeC = startBroker(startLine(second, "node-c"));
        nodeC.awaitLine("HA-1001 : Role changed : default : node node-c is now REPLICA", START);
        nodeB.kill9();
        ScriptProcess a = nodeA;
        await("node-a and node-c elect a master").atMost(DEADLINE).pollInterval(Duration.ofMillis(500))
                .until(() -> a.lines().stream().anyMatch(line -> line.matches(".*HA-1001 .* node node-a is now "
                        + "(MASTER|REPLICA \\(master node-c\\))")));
        boolean aElected = a.lines().stream().anyMatch(line -> line.contains("node node-a is now MASTER"));
        send(aElected ? 5672 : 5674, "elected without an operator", new ArrayList<>());
        nodeB = startBroker(startLine(second, "node-b"));
        ScriptProcess refused = runBlock("three-nodes-remove", second);
        assertThat(refused.exitCode()).as(refused.text()).isEqualTo(1);
        assertThat(refused.text()).contains("node-c").contains("running");
        nodeC.terminate();
        assertSucceeds(runBlock("three-nodes-remove", second));
        ScriptProcess group = runBlock("fig-1.3-normal", second);
        assertSucceeds(group);
        assertThat(group.text()).doesNotContain("node-c").contains("node-a").contains("node-b");
    }

    @Test
    void standaloneBrokerMigratedToAPairWithAnArbiterFailsOverWithoutAnOperator() throws Exception {
        setUp();
        Path root = installation.resolve("migrated");
        writeNode(root, "node-a");
        Path vhostFile = root.resolve("node-a/etc/vhosts/default.xml");
        Files.copy(ScriptProcess.HOME.resolve("etc/vhosts/default.xml"), vhostFile,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);

        // A standalone broker (the distribution's virtual host file) with messages.
        ScriptProcess standalone = startBroker(startLine(root, "node-a"));
        List<String> sent = new ArrayList<>();
        send(5672, "stored standalone 1", sent);
        send(5672, "stored standalone 2", sent);
        standalone.terminate();

        // Section 8, step 2: converted; step 3: the <store> element the command printed, with the triplet.
        ScriptProcess converted = run(String.join("\n", document.commands("migrate-enable").stream()
                .map(command -> mapped(command, root, nodePaths(root, "node-a", installation))).toList()), "");
        assertSucceeds(converted);
        String printed = converted.text().substring(converted.text().indexOf("<store type=\"bdb-ha\">"),
                converted.text().indexOf("</store>") + "</store>".length());
        String store = printed.replaceAll("<!--.*-->", "<durability>NO_SYNC,NO_SYNC,SIMPLE_MAJORITY</durability>\n"
                + "    <coalescingSync>true</coalescingSync>");
        String host = Files.readString(vhostFile);
        Files.writeString(vhostFile, host.substring(0, host.indexOf("<store type=\"bdb\">")) + store
                + host.substring(host.indexOf("</store>") + "</store>".length()));

        // Step 4: it becomes master with every message; step 5: node-b joins with an empty store; an arbiter.
        ScriptProcess nodeA = startBroker(startLine(root, "node-a"));
        assertThat(nodeA.lines()).anyMatch(line -> line.contains("HA-1001 : Role changed : default : node node-a "
                + "is now MASTER")).anyMatch(line -> line.contains("MST-1006"));
        Path etcB = Files.createDirectories(root.resolve("node-b/etc/vhosts"));
        Files.writeString(etcB.getParent().resolve("broker.xml"), nodeBroker("node-b"));
        Files.writeString(etcB.resolve("default.xml"), nodeVirtualHost("node-b")
                .replace("<designatedPrimary>true</designatedPrimary>",
                        "<designatedPrimary>false</designatedPrimary>"));
        Files.copy(ScriptProcess.HOME.resolve("etc/users"), etcB.getParent().resolve("users"));
        ScriptProcess nodeB = startBroker(startLine(root, "node-b"));
        nodeB.awaitLine("HA-1001 : Role changed : default : node node-b is now REPLICA \\(master node-a\\)", START);
        List<String> arbiterStart = document.commands("pair-arbiter");
        assertThat(arbiterStart).hasSize(1);
        ScriptProcess arbiter = ScriptProcess.start("exec " + mapped(arbiterStart.get(0), root)
                .replaceAll("\\s*&\\s*$", ""), environment);
        processes.add(arbiter);
        arbiter.awaitLine("^arbiter arbiter of group tandem at .* is ", START);
        send(5672, "with the arbiter", sent);

        // node-a fails: node-b and the arbiter elect node-b, no designation; every message is there.
        nodeA.kill9();
        nodeB.awaitLine("HA-1001 : Role changed : default : node node-b is now MASTER", DEADLINE);
        // Its first commits wait for the arbiter to find the new master (docs/ha.md, "Arbiter"): until then node-b
        // may close a client's connection (quorum); a client reconnects. Nothing is acknowledged before the end.
        await("node-b serves every message").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
                .ignoreExceptionsInstanceOf(JMSException.class)
                .until(() -> receiveAllAcknowledgedAtTheEnd(5673, sent.size()), sent::equals);
    }

    // ---- set-up -------------------------------------------------------------------------------------------------

    private void setUp() throws Exception {
        document = OperationsProcedures.read();
        for (int port : DOCUMENT_PORTS) {
            ports.put(port, StartupErrorsIT.freePort());
        }
        environment = Map.of("HOME", installation.toString(),
                "ADMIN_PASSWORD", ADMIN_PASSWORD,
                "TANDEM_JMX_USER", "admin", "TANDEM_JMX_PASSWORD", ADMIN_PASSWORD,
                "A", "--host localhost --port " + ports.get(9001),
                "B", "--host localhost --port " + ports.get(9002));
    }

    /**
     * A node's etc/ under {@code root} (the document's {@code /opt/tandem}): node-a's files are the document's;
     * node-b's are made from them as its prose says ("the same files with port=5673 ..."); node-c's as the table of
     * "Three nodes" says (5674 / 5002 / 9003, helpers node-a and node-b, designatedPrimary left out).
     */
    private void writeNode(Path root, String node) throws Exception {
        Path etc = Files.createDirectories(root.resolve(node + "/etc/vhosts"));
        Files.writeString(etc.getParent().resolve("broker.xml"), nodeBroker(node));
        Files.writeString(etc.resolve("default.xml"), nodeVirtualHost(node));
        Files.copy(ScriptProcess.HOME.resolve("etc/users"), etc.getParent().resolve("users"));
    }

    private String nodeBroker(String node) {
        int index = node.charAt(node.length() - 1) - 'a';
        String brokerA = mapped(document.block("node-a-broker.xml"), installation);
        return brokerA.replace("port=\"" + ports.get(5672) + "\"", "port=\"" + ports.get(5672 + index) + "\"")
                .replace("localhost:" + ports.get(5672), "localhost:" + ports.get(5672 + index))
                .replace("port=\"" + ports.get(9001) + "\"", "port=\"" + ports.get(9001 + index) + "\"")
                .replace("port=\"" + ports.get(9404) + "\"", "port=\"" + ports.get(9404 + index) + "\"");
    }

    private String nodeVirtualHost(String node) {
        String hostA = mapped(document.block("node-a-default.xml"), installation);
        return switch (node) {
            case "node-a" -> hostA;
            case "node-b" -> hostA.replace("<nodeName>node-a</nodeName>", "<nodeName>node-b</nodeName>")
                    .replace("<nodeHostPort>localhost:" + ports.get(5000), "<nodeHostPort>localhost:" + ports.get(5001))
                    .replace("<designatedPrimary>true</designatedPrimary>",
                            "<designatedPrimary>false</designatedPrimary>");
            case "node-c" -> hostA.replace("<nodeName>node-a</nodeName>", "<nodeName>node-c</nodeName>")
                    .replace("<nodeHostPort>localhost:" + ports.get(5000), "<nodeHostPort>localhost:" + ports.get(5002))
                    .replace("<helperHostPort>localhost:" + ports.get(5000), "<helperHostPort>localhost:"
                            + ports.get(5000) + ",localhost:" + ports.get(5001))
                    .replaceAll("\\s*<designatedPrimary>true</designatedPrimary>", "");
            default -> throw new IllegalArgumentException(node);
        };
    }

    /** The two-nodes-start block's {@code bin/tandem-passwd} line for {@code node}'s users file. */
    private void addAdmin(Path root, String node) throws Exception {
        String line = document.commands("two-nodes-start").stream().filter(l -> l.startsWith("bin/tandem-passwd"))
                .findFirst().orElseThrow();
        assertSucceeds(run(mapped(line, root).replace("/node-a/", "/" + node + "/"), ADMIN_PASSWORD + "\n"));
    }

    private void designatePrimaryInFile(Path root, String node, boolean designated) throws Exception {
        Path file = root.resolve(node + "/etc/vhosts/default.xml");
        Files.writeString(file, Files.readString(file).replaceAll("<designatedPrimary>\\w+</designatedPrimary>",
                "<designatedPrimary>" + designated + "</designatedPrimary>"));
    }

    /** The two-nodes-start block: every line runs (the users, both brokers, the password file), then its status. */
    private ScriptProcess[] startPair(Path root) throws Exception {
        ScriptProcess[] pair = new ScriptProcess[2];
        List<String> lines = document.commands("two-nodes-start").stream().map(line -> mapped(line, root)).toList();
        for (String line : lines.subList(0, lines.size() - 1)) {
            if (line.startsWith("bin/tandem-passwd")) {
                assertSucceeds(run(line, ADMIN_PASSWORD + "\n"));
                assertSucceeds(run(line.replace("/node-a/", "/node-b/"), ADMIN_PASSWORD + "\n"));
            } else if (line.startsWith("bin/broker")) {
                pair[pair[0] == null ? 0 : 1] = startBroker(line);
            } else {
                assertSucceeds(run(line, ""));
            }
        }
        String statusLine = lines.get(lines.size() - 1);
        assertThat(statusLine).startsWith("bin/ha-admin status");
        ScriptProcess status = awaitCommand(statusLine,
                Pattern.compile("node-b\\s+localhost:\\d+\\s+ELECTABLE\\s+REPLICA"));
        assertThat(status.text()).containsPattern("node-a\\s+localhost:\\d+\\s+ELECTABLE\\s+MASTER");
        return pair;
    }

    /** The two-nodes-start line that starts {@code node} (node-a's line, for a node the block does not start). */
    private String startLine(Path root, String node) {
        String line = document.commands("two-nodes-start").stream().filter(l -> l.startsWith("bin/broker"))
                .filter(l -> l.contains("/" + node + "/")).findFirst().orElseGet(() -> document
                        .commands("two-nodes-start").stream().filter(l -> l.startsWith("bin/broker")).findFirst()
                        .orElseThrow().replace("/node-a/", "/" + node + "/"));
        return mapped(line, root);
    }

    // ---- the document's commands ----------------------------------------------------------------------------

    private String mapped(String text, Path root) {
        return OperationsProcedures.mapped(text, root, ports);
    }

    private String mapped(String text, Path root, Map<String, String> paths) {
        Map<String, String> all = new LinkedHashMap<>(paths);
        all.put("/opt/tandem", root.toString());
        return OperationsProcedures.mapped(text, all, ports);
    }

    /** The store and backup paths of a node's section 6-8 commands, and the replication host of the document. */
    private Map<String, String> nodePaths(Path root, String node, Path backups) {
        Map<String, String> paths = new HashMap<>();
        paths.put("/var/lib/tandem", root.resolve(node + "/work").toString());
        paths.put(" /backup/", " " + backups + "/");
        paths.put("broker-a.repl.example.com:5000", "localhost:5000");
        return paths;
    }

    private ScriptProcess runBlock(String name, Path root) throws Exception {
        return run(String.join("\n", document.commands(name).stream().map(line -> mapped(line, root)).toList()), "");
    }

    /** A status block run until its output matches (the master's figures are sampled); a failure ends the wait. */
    private ScriptProcess awaitBlock(String name, Path root, Pattern expected) throws Exception {
        return awaitCommand(String.join("\n", document.commands(name).stream().map(line -> mapped(line, root))
                .toList()), expected);
    }

    private ScriptProcess awaitCommand(String command, Pattern expected) {
        ScriptProcess[] last = new ScriptProcess[1];
        await(command + " shows /" + expected + "/").atMost(DEADLINE).pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    last[0] = run(command, "");
                    assertSucceeds(last[0]);
                    return expected.matcher(last[0].text()).find();
                });
        return last[0];
    }

    /**
     * A replica in a status table with lag 0. The master lists a replica only once its replication statistics name
     * it (a few heartbeats after it joined; until then its state is "?"), and samples the lag.
     */
    private static Pattern replicaCaughtUp(String node) {
        return Pattern.compile(node + "\\s+localhost:\\d+\\s+ELECTABLE\\s+REPLICA\\s+0\\s");
    }

    private ScriptProcess run(String command, String input) throws Exception {
        ScriptProcess run = ScriptProcess.start(command, environment, input);
        run.awaitExit(Duration.ofSeconds(120));
        return run;
    }

    private static void assertSucceeds(ScriptProcess step) {
        assertThat(step.exitCode()).as(step.text()).isZero();
    }

    /** A {@code bin/broker ... &} line of the document, started and watched by the test instead of the shell. */
    private ScriptProcess startBroker(String line) throws Exception {
        String command = "exec " + line.replaceAll("\\s*&\\s*$", "");
        ScriptProcess broker = ScriptProcess.start(command, environment);
        processes.add(broker);
        broker.awaitLine("^Tandem broker ready", START);
        return broker;
    }

    private static void freeze(ScriptProcess process) throws Exception {
        assertThat(ScriptProcess.run("kill -STOP " + process.pid(), Map.of(), Duration.ofSeconds(10)).exitCode())
                .isZero();
    }

    private static void thaw(ScriptProcess process) throws Exception {
        assertThat(ScriptProcess.run("kill -CONT " + process.pid(), Map.of(), Duration.ofSeconds(10)).exitCode())
                .isZero();
    }

    // ---- clients ------------------------------------------------------------------------------------------------

    private void send(int documentPort, String text, List<String> sent) throws Exception {
        send(documentPort, "procedure", text);
        sent.add(text);
    }

    private void send(int documentPort, String queue, String text) throws Exception {
        try (Connection connection = factory(documentPort).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queue));
            producer.send(session.createTextMessage(text));
        }
    }

    /** A publish to the queue "probe" (never consumed): true if the broker accepted it. */
    private boolean probe(int documentPort) {
        try {
            send(documentPort, "probe", "probe");
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** Every message of the queue "procedure": {@code expected} of them awaited, then any more there are. */
    private List<String> receiveAll(int documentPort, int expected) throws JMSException {
        List<String> texts = new ArrayList<>();
        try (Connection connection = factory(documentPort).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            var consumer = session.createConsumer(session.createQueue("procedure"));
            TextMessage message;
            while ((message = (TextMessage) consumer.receive(texts.size() < expected ? 10_000 : 1_000)) != null) {
                texts.add(message.getText());
            }
        }
        return texts;
    }

    /** As {@link #receiveAll}, acknowledged only once all are received: a failed attempt leaves them queued. */
    private List<String> receiveAllAcknowledgedAtTheEnd(int documentPort, int expected) throws JMSException {
        List<String> texts = new ArrayList<>();
        try (Connection connection = factory(documentPort).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            var consumer = session.createConsumer(session.createQueue("procedure"));
            TextMessage message;
            TextMessage last = null;
            while ((message = (TextMessage) consumer.receive(texts.size() < expected ? 10_000 : 1_000)) != null) {
                texts.add(message.getText());
                last = message;
            }
            if (last != null) {
                last.acknowledge();
            }
        }
        return texts;
    }

    private JmsConnectionFactory factory(int documentPort) {
        return new JmsConnectionFactory("guest", "guest", "amqp://localhost:" + ports.get(documentPort)
                + "?amqp.idleTimeout=10000");
    }
}
