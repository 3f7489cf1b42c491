package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick start of a group, as a user runs it: {@code bin/tandem create DIR --group 3}, then {@code DIR/start}.
 * Three real broker processes on loopback ports elect a master, which serves a client on the printed failover URL;
 * {@code DIR/status} shows each node's role and {@code DIR/stop} stops them all.
 */
class CreatedGroupIT {
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final Pattern ROLE = Pattern.compile("HA-1001 : Role changed : \\S+ : node (\\S+) is now (\\S+)");
    private static final Pattern CLIENTS = Pattern.compile("Clients: (failover:\\(\\S+\\))");
    private static final String[] NODES = {"node-a", "node-b", "node-c"};

    @TempDir
    Path dir;

    @Test
    void createdThreeNodeGroupStartsElectsOneMasterServesClientsAndStops() throws Exception {
        Path group = dir.resolve("group");
        Result created = script(List.of(home().resolve("bin/tandem").toString(), "create", group.toString(),
                "--group", "3", "--admin-user", "admin"), "admin\n", Duration.ofMinutes(1));
        assertThat(created.exitCode()).as(created.output()).isZero();
        Matcher clients = CLIENTS.matcher(created.output());
        assertThat(clients.find()).as(created.output()).isTrue();
        try {
            Result started = script(List.of(group.resolve("start").toString()), "", Duration.ofMinutes(1));
            assertThat(started.exitCode()).as(started.output()).isZero();

            await("one master and two replicas logged").atMost(DEADLINE).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        Map<String, String> roles = lastRoles(group);
                        return roles.size() == 3 && roles.values().stream().filter("MASTER"::equals).count() == 1
                                && roles.values().stream().filter("REPLICA"::equals).count() == 2;
                    });

            JmsConnectionFactory factory = new JmsConnectionFactory("guest", "guest",
                    clients.group(1) + "?failover.maxReconnectAttempts=60");
            try (Connection connection = factory.createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("created.group");
                session.createProducer(queue).send(session.createTextMessage("hello group"));
                MessageConsumer consumer = session.createConsumer(queue);
                TextMessage received = (TextMessage) consumer.receive(30_000);
                assertThat(received).isNotNull();
                assertThat(received.getText()).isEqualTo("hello group");
            }

            Result status = script(List.of(group.resolve("status").toString()), "", Duration.ofSeconds(30));
            assertThat(status.output()).contains("node-a: running").contains("node-b: running")
                    .contains("node-c: running").contains("is now MASTER");

            Result stopped = script(List.of(group.resolve("stop").toString()), "", Duration.ofMinutes(4));
            assertThat(stopped.exitCode()).as(stopped.output()).isZero();
            for (String node : NODES) {
                assertThat(stopped.output()).contains(node + ": stopped");
                assertThat(group.resolve(node).resolve("pid")).doesNotExist();
            }
        } finally {
            killLeftovers(group);
        }
    }

    private static Map<String, String> lastRoles(Path group) throws IOException {
        Map<String, String> roles = new LinkedHashMap<>();
        for (String node : NODES) {
            Path log = group.resolve(node).resolve("work/log/broker.log");
            if (!Files.exists(log)) {
                continue;
            }
            Matcher m = ROLE.matcher(Files.readString(log, StandardCharsets.UTF_8));
            while (m.find()) {
                if (m.group(1).equals(node)) {
                    roles.put(node, m.group(2));
                }
            }
        }
        return roles;
    }

    private static void killLeftovers(Path group) throws IOException {
        for (String node : NODES) {
            Path pid = group.resolve(node).resolve("pid");
            if (Files.exists(pid)) {
                ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    private static Path home() {
        return Path.of(System.getProperty("tandem.home", "..")).toAbsolutePath().normalize();
    }

    private record Result(int exitCode, String output) {
    }

    /** Runs a script with the assembled libraries as they are (no build) and this JVM's Java. */
    private static Result script(List<String> command, String stdin, Duration timeout) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true);
        builder.environment().put("TANDEM_NO_BUILD", "1");
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("JAVA_OPTS", "-Xmx256m");
        Process process = builder.start();
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        // The scripts' children keep no handle on this pipe (start redirects their output), so it ends with them.
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish within " + timeout + ":\n" + output);
        }
        return new Result(process.exitValue(), output);
    }
}
