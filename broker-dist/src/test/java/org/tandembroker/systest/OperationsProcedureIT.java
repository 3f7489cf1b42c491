package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/operations.md run as written: the two-node set-up of section 1 (node-a's files from the document, node-b's
 * made from them as its prose says), the recovery of figure 1.3, and a stopped node's backup restored as a new
 * group (sections 6 and 7: copy, reset-group, start), each command taken from the block the document marks, with the document's installation ({@code /opt/tandem}) and ports mapped to this test's. Brokers are
 * {@code bin/broker} processes; the master is killed with {@code kill -9}.
 */
class OperationsProcedureIT {
    private static final Duration START = Duration.ofSeconds(120);
    private static final String ADMIN_PASSWORD = "procedure-admin";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path installation;
    private final Map<Integer, Integer> ports = new LinkedHashMap<>();
    private final List<ScriptProcess> brokers = new ArrayList<>();
    private Map<String, String> environment;

    @AfterEach
    void stop() throws Exception {
        for (ScriptProcess broker : brokers) {
            broker.close();
        }
    }

    @Test
    void figure13ThenBackupAndRestoreAsWritten()
            throws Exception {
        OperationsProcedures document = OperationsProcedures.read();
        for (int port : new int[] {5672, 5673, 9001, 9002, 9404, 9405, 5000, 5001}) {
            ports.put(port, StartupErrorsIT.freePort());
        }
        writeNodes(document);
        environment = Map.of("HOME", installation.toString(),
                "ADMIN_PASSWORD", ADMIN_PASSWORD,
                "TANDEM_JMX_USER", "admin", "TANDEM_JMX_PASSWORD", ADMIN_PASSWORD,
                "A", "--host localhost --port " + ports.get(9001),
                "B", "--host localhost --port " + ports.get(9002));

        // Section 1: the users, both brokers, the password file, the first status. Every line of the block runs.
        ScriptProcess nodeA = null;
        List<String> lines = document.commands("two-nodes-start").stream().map(this::mapped).toList();
        for (String line : lines.subList(0, lines.size() - 1)) {
            if (line.startsWith("bin/tandem-passwd")) {
                run(line, ADMIN_PASSWORD + "\n");
                run(line.replace("/node-a/", "/node-b/"), ADMIN_PASSWORD + "\n");
            } else if (line.startsWith("bin/broker")) {
                ScriptProcess broker = startBroker(line);
                nodeA = nodeA == null ? broker : nodeA;
            } else {
                ScriptProcess step = run(line, "");
                assertThat(step.exitCode()).as(line + ": " + step.text()).isZero();
            }
        }
        // The document's status command (its last line). node-b's broker is ready once it is a replica, but the
        // master lists it as REPLICA only when its replication statistics name it (a few heartbeats later): until
        // then its state is "?". So the command runs until it shows node-b; any other failure ends the wait.
        String statusLine = lines.get(lines.size() - 1);
        assertThat(statusLine).startsWith("bin/ha-admin status");
        List<ScriptProcess> statuses = new ArrayList<>();
        await("node-b REPLICA in the document's ha-admin status").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    ScriptProcess attempt = run(statusLine, "");
                    statuses.add(attempt);
                    assertThat(attempt.exitCode()).as(statusLine + ": " + attempt.text()).isZero();
                    return attempt.text().matches("(?s).*node-b\\s+localhost:\\d+\\s+ELECTABLE\\s+REPLICA.*");
                });
        ScriptProcess status = statuses.get(statuses.size() - 1);
        assertThat(status.exitCode()).as(status.text()).isZero();
        assertThat(status.text()).containsPattern("node-a\\s+localhost:\\d+\\s+ELECTABLE\\s+MASTER")
                .containsPattern("node-b\\s+localhost:\\d+\\s+ELECTABLE\\s+REPLICA");
        ScriptProcess normal = runBlock(document, "fig-1.3-normal");
        assertThat(normal.exitCode()).as(normal.text()).isZero();
        send("amqp://localhost:" + ports.get(5672), "before the failure");

        // Figure 1.3: node-a fails; the operator designates node-b; clients go on with node-b.
        nodeA.kill9();
        ScriptProcess designate = runBlock(document, "fig-1.3-designate");
        assertThat(designate.exitCode()).as(designate.text()).isZero();
        assertThat(designate.text()).contains("node node-b is designated primary; it is MASTER");
        send("amqp://localhost:" + ports.get(5673), "while node-a is down");

        // Step 5: node-a started as written, its file still designating it, joins node-b as a replica.
        List<String> restart = document.commands("fig-1.3-restart");
        assertThat(restart).hasSize(1);
        ScriptProcess restarted = startBroker(mapped(restart.get(0)));
        restarted.awaitLine("HA-1001 : Role changed : default : node node-a is now REPLICA \\(master node-b\\)",
                START);
        assertThat(restarted.lines()).anyMatch(line -> line.contains("HA-1002 : Designated primary : node node-a : "
                + "not designated primary any more: master node-b is designated primary"));
        assertThat(restarted.lines()).noneMatch(line -> line.contains("both designated primary")
                || line.contains("DETACHED"));
        ScriptProcess rejoined = runBlock(document, "fig-1.3-rejoined");
        assertThat(rejoined.exitCode()).as(rejoined.text()).isZero();
        assertThat(rejoined.text()).containsPattern("node-a\\s+localhost:\\d+\\s+ELECTABLE\\s+REPLICA")
                .containsPattern("node-b\\s+localhost:\\d+\\s+ELECTABLE\\s+MASTER")
                .contains("node-b is designated primary");
        assertThat(receiveAll("amqp://localhost:" + ports.get(5673)))
                .containsExactly("before the failure", "while node-a is down");

        // Sections 6 and 7: node-a (a replica now) stopped and backed up; the backup restored as a new group.
        send("amqp://localhost:" + ports.get(5673), "before the backup");
        // "its lag goes to 0": the master's figures are sampled, so ask until they say so.
        await("node-a's lag 0 in ha-admin status").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofSeconds(1)).until(() -> java.util.regex.Pattern.compile(
                        "node-a\\s+localhost:\\d+\\s+ELECTABLE\\s+REPLICA\\s+0\\s")
                        .matcher(runBlock(document, "fig-1.3-rejoined").text()).find());
        restarted.terminate();
        Path backups = installation.resolve("backup");
        Map<String, String> nodeAPaths = Map.of("/var/lib/tandem", installation.resolve("node-a/work").toString(),
                " /backup/", " " + backups + "/");
        ScriptProcess backup = run(String.join("\n", document.commands("backup-stopped").stream()
                .map(command -> OperationsProcedures.mapped(command, nodeAPaths, Map.of())).toList()), "");
        assertThat(backup.exitCode()).as(backup.text()).isZero();
        assertThat(backups.resolve("2026-11-21/tandem-backup.txt")).exists();

        Path restoredWork = installation.resolve("restored/work");
        Files.createDirectories(restoredWork.resolve("default/store"));
        int restoredReplication = StartupErrorsIT.freePort();
        Map<String, String> restored = Map.of("/var/lib/tandem", restoredWork.toString(),
                " /backup/", " " + backups + "/", "broker-a.repl.example.com:5000", "localhost:" + restoredReplication);
        for (String block : List.of("restore-copy", "restore-reset")) {
            ScriptProcess step = run(String.join("\n", document.commands(block).stream()
                    .map(command -> OperationsProcedures.mapped(command, restored, Map.of())).toList()), "");
            assertThat(step.exitCode()).as(block + ": " + step.text()).isZero();
        }
        // Step 3: that node configured with exactly those values (helperHostPort its own nodeHostPort).
        Path restoredEtc = Files.createDirectories(installation.resolve("restored/etc/vhosts"));
        int restoredAmqp = StartupErrorsIT.freePort();
        Files.writeString(restoredEtc.getParent().resolve("broker.xml"), mapped(document.block("node-a-broker.xml"))
                .replace(String.valueOf(ports.get(5672)), String.valueOf(restoredAmqp))
                .replace(String.valueOf(ports.get(9001)), String.valueOf(StartupErrorsIT.freePort()))
                .replace(String.valueOf(ports.get(9404)), String.valueOf(StartupErrorsIT.freePort())));
        Files.writeString(restoredEtc.resolve("default.xml"), mapped(document.block("node-a-default.xml"))
                .replace("localhost:" + ports.get(5000), "localhost:" + restoredReplication));
        Files.copy(ScriptProcess.HOME.resolve("etc/users"), restoredEtc.getParent().resolve("users"));
        ScriptProcess restoredNode = startBroker("bin/broker --config " + restoredEtc.getParent().resolve("broker.xml")
                + " --work " + restoredWork);
        assertThat(restoredNode.lines()).anyMatch(line -> line.contains("MST-1006"));
        assertThat(receiveAll("amqp://localhost:" + restoredAmqp)).containsExactly("before the backup");
    }

    private void writeNodes(OperationsProcedures document) throws Exception {
        Path etcA = Files.createDirectories(installation.resolve("node-a/etc/vhosts"));
        Path etcB = Files.createDirectories(installation.resolve("node-b/etc/vhosts"));
        String brokerA = mapped(document.block("node-a-broker.xml"));
        String hostA = mapped(document.block("node-a-default.xml"));
        Files.writeString(etcA.getParent().resolve("broker.xml"), brokerA);
        Files.writeString(etcA.resolve("default.xml"), hostA);
        // node-b: "the same files with port=5673 and advertisedAddress=localhost:5673, JMX 9002, metrics 9405, and in
        // its virtual host file nodeName node-b, nodeHostPort localhost:5001, helperHostPort localhost:5000,
        // designatedPrimary false"
        Files.writeString(etcB.getParent().resolve("broker.xml"), brokerA
                .replace("port=\"" + ports.get(5672) + "\"", "port=\"" + ports.get(5673) + "\"")
                .replace("localhost:" + ports.get(5672), "localhost:" + ports.get(5673))
                .replace("port=\"" + ports.get(9001) + "\"", "port=\"" + ports.get(9002) + "\"")
                .replace("port=\"" + ports.get(9404) + "\"", "port=\"" + ports.get(9405) + "\""));
        Files.writeString(etcB.resolve("default.xml"), hostA
                .replace("<nodeName>node-a</nodeName>", "<nodeName>node-b</nodeName>")
                .replace("<nodeHostPort>localhost:" + ports.get(5000), "<nodeHostPort>localhost:" + ports.get(5001))
                .replace("<designatedPrimary>true</designatedPrimary>", "<designatedPrimary>false</designatedPrimary>"));
        for (Path etc : List.of(etcA.getParent(), etcB.getParent())) {
            Files.copy(ScriptProcess.HOME.resolve("etc/users"), etc.resolve("users"));
        }
    }

    private String mapped(String text) {
        return OperationsProcedures.mapped(text, installation, ports);
    }

    private ScriptProcess runBlock(OperationsProcedures document, String name) throws Exception {
        return run(String.join("\n", document.commands(name).stream().map(this::mapped).toList()), "");
    }

    private ScriptProcess run(String command, String input) throws Exception {
        ScriptProcess run = ScriptProcess.start(command, environment, input);
        run.awaitExit(Duration.ofSeconds(120));
        return run;
    }

    /** A {@code bin/broker ... &} line of the document, started and watched by the test instead of the shell. */
    private ScriptProcess startBroker(String line) throws Exception {
        String command = "exec " + line.replaceAll("\\s*&\\s*$", "");
        ScriptProcess broker = ScriptProcess.start(command, environment);
        brokers.add(broker);
        broker.awaitLine("^Tandem broker ready", START);
        return broker;
    }

    private static void send(String url, String text) throws Exception {
        try (Connection connection = new JmsConnectionFactory("guest", "guest", url).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("procedure"));
            producer.send(session.createTextMessage(text));
        }
    }

    private static List<String> receiveAll(String url) throws Exception {
        List<String> texts = new ArrayList<>();
        try (Connection connection = new JmsConnectionFactory("guest", "guest", url).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            var consumer = session.createConsumer(session.createQueue("procedure"));
            TextMessage message;
            while ((message = (TextMessage) consumer.receive(5000)) != null) {
                texts.add(message.getText());
            }
        }
        return texts;
    }
}
