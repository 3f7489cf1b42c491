package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import jakarta.jms.Connection;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.qpid.jms.JmsConnectionFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up failures of real {@code bin/broker} processes, as an operator meets them: each is one line on the
 * terminal and in {@code work/log/broker.log} ({@code BRK-1007}), without a stack trace, found before any store
 * opens where it can be, and a broker that cannot serve never says {@code Ready}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StartupErrorsIT {
    private static final Duration START = Duration.ofSeconds(90);

    private Path directory;
    /** node-a: a standalone broker with its own logback.xml, running for every test; the others clash with it. */
    private ScriptProcess first;
    private Path firstWork;
    private Path firstStore;
    private int firstPort;
    private final List<ScriptProcess> others = new ArrayList<>();

    @BeforeAll
    void startFirstBroker(@TempDir Path temporary) throws Exception {
        directory = temporary;
        firstPort = freePort();
        firstStore = directory.resolve("shared-store");
        Path nodeA = node("a", firstPort, "bdb", firstStore.toString(), "");
        Files.writeString(nodeA.resolve("logback.xml"), """
                <configuration>
                  <appender name="CONSOLE" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>node-a-own-logback %msg%n</pattern></encoder>
                  </appender>
                  <root level="INFO"><appender-ref ref="CONSOLE"/></root>
                </configuration>
                """);
        firstWork = directory.resolve("work-a");
        first = startBroker(nodeA, firstWork);
        first.awaitLine("^Tandem broker ready", START);
    }

    @AfterAll
    void stopFirstBroker() throws Exception {
        if (first != null) {
            first.close();
        }
    }

    @AfterEach
    void stopOthers() throws Exception {
        for (ScriptProcess other : others) {
            other.close();
        }
        others.clear();
    }

    @Test
    void aSecondBrokerOnTheSameWorkDirectorySaysAnotherBrokerUsesItAndTheNodesOwnLogbackIsUsed() throws Exception {
        assertThat(first.lines()).anyMatch(line -> line.startsWith("node-a-own-logback BRK-1004 : Ready"));

        ScriptProcess second = ScriptProcess.run(brokerCommand(node("b1", freePort(), "bdb", "default/store", ""),
                firstWork), Map.of(), START);

        assertThat(second.exitCode()).isEqualTo(1);
        assertThat(second.lines()).anyMatch(line -> line.equals("tandem: start-up failed: work directory " + firstWork
                + " is in use by another broker (pid " + first.pid() + "): stop it, or give this broker a work "
                + "directory of its own (--work DIR)"));
        assertNoStackTrace(second);
    }

    @Test
    void aPortInUseIsNamedBeforeAnyStoreOpensAndLogged() throws Exception {
        Path work = directory.resolve("work-b2");

        ScriptProcess second = ScriptProcess.run(brokerCommand(node("b2", firstPort, "bdb", "default/store", ""),
                work), Map.of(), START);

        assertThat(second.exitCode()).isEqualTo(1);
        String line = "start-up failed: port " + firstPort + " on 127.0.0.1 for AMQP listener 'amqp' "
                + "(<listener port>)";
        assertThat(second.lines()).anyMatch(l -> l.startsWith("tandem: " + line));
        assertThat(second.lines()).noneMatch(l -> l.contains("MST-1001") || l.contains("MST-1004"));
        assertThat(Files.readString(work.resolve("log/broker.log"))).contains("BRK-1007 : Startup failed : port "
                + firstPort + " on 127.0.0.1").doesNotContain("\tat ");
        assertNoStackTrace(second);
    }

    @Test
    void aStandaloneStoreHeldByAnotherBrokerStopsTheBrokerWithOneLineAndNeverSaysReady() throws Exception {
        Path work = directory.resolve("work-b3");

        ScriptProcess second = ScriptProcess.run(brokerCommand(node("b3", freePort(), "bdb", firstStore.toString(),
                ""), work), Map.of(), START);

        assertThat(second.exitCode()).isEqualTo(1);
        String expected = "virtual host 'default' cannot serve on this node: store directory " + firstStore
                + " is in use by another broker";
        assertThat(second.lines()).anyMatch(l -> l.startsWith("tandem: start-up failed: " + expected));
        assertThat(second.lines()).noneMatch(l -> l.contains("BRK-1004") || l.contains("EnvironmentLockedException"));
        assertThat(Files.readString(work.resolve("log/broker.log"))).contains("BRK-1007 : Startup failed : "
                + expected);
        assertNoStackTrace(second);
    }

    @Test
    void configuredToStayUpABrokerWithAFailedStoreReportsNotReadyAndTellsClientsWhyWithoutAnotherNode()
            throws Exception {
        int amqp = freePort();
        int metrics = freePort();
        Path etc = node("b4", amqp, "bdb", firstStore.toString(), "<metrics port=\"" + metrics + "\"/>");
        Files.writeString(etc.resolve("broker.xml"), Files.readString(etc.resolve("broker.xml"))
                .replace("<virtualHosts default=\"default\">", "<virtualHosts default=\"default\" "
                        + "onStoreFailure=\"stay-up\">"));
        ScriptProcess second = startBroker(etc, directory.resolve("work-b4"));
        others.add(second);
        second.awaitLine("BRK-1008 : Not ready : virtual host 'default' is FAILED \\(store directory", START);
        HttpClient http = HttpClient.newHttpClient();

        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics
                + "/health/ready")).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics
                + "/health")).build(), HttpResponse.BodyHandlers.ofString());
        Throwable refused = catchThrowable(() -> {
            try (Connection connection = new JmsConnectionFactory("guest", "guest",
                    "amqp://127.0.0.1:" + amqp).createConnection()) {
                connection.start();
            }
        });

        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat(health.statusCode()).isEqualTo(503);
        assertThat(health.body()).contains("\"standing\" : \"FAILED\"", "is in use by another broker");
        assertThat(refused).isNotNull();
        assertThat(refused.getMessage()).contains("cannot serve: its store failed").doesNotContain("another node");
        assertThat(second.lines()).noneMatch(l -> l.contains("BRK-1004"));
    }

    @Test
    void anErrorInAVirtualHostFileIsOneLineOnTheTerminalAndInTheLogFile() throws Exception {
        Path etc = node("c", freePort(), "bdb", "default/store", "");
        Files.writeString(etc.resolve("vhosts/default.xml"), Files.readString(etc.resolve("vhosts/default.xml"))
                .replace("<coalescingSync>true</coalescingSync>", "<coalescingSync>sometimes</coalescingSync>"));
        Path work = directory.resolve("work-c");

        ScriptProcess broker = ScriptProcess.run(brokerCommand(etc, work), Map.of(), START);

        assertThat(broker.exitCode()).isEqualTo(2);
        assertThat(broker.lines()).anyMatch(l -> l.startsWith("tandem: configuration error: ")
                && l.contains("default.xml") && l.contains("sometimes"));
        assertThat(Files.readString(work.resolve("log/broker.log"))).contains("BRK-1007 : Startup failed : "
                + "configuration error: " + etc.resolve("vhosts/default.xml") + ": <store/coalescingSync> has invalid "
                + "value 'sometimes'; allowed: true, false");
        assertNoStackTrace(broker);
    }

    @Test
    void aNodeGivenAnotherMembersNodeHostPortNamesThatMember() throws Exception {
        int replication = freePort();
        ScriptProcess nodeA = startBroker(haNode("ha-a", freePort(), "node-a", replication, replication),
                directory.resolve("work-ha-a"));
        others.add(nodeA);
        nodeA.awaitLine("^Tandem broker ready", START);
        Path work = directory.resolve("work-ha-b");

        ScriptProcess second = ScriptProcess.run(brokerCommand(haNode("ha-b", freePort(), "node-b", replication,
                replication), work), Map.of(), START);

        assertThat(second.exitCode()).isEqualTo(1);
        assertThat(second.lines()).anyMatch(l -> l.startsWith("tandem: start-up failed: virtual host 'default' "
                + "cannot serve on this node: <nodeHostPort> localhost:" + replication + " of node node-b")
                && l.contains("belongs to member node-a of group tandem-startup"));
        assertThat(Files.readString(work.resolve("log/broker.log"))).contains("belongs to member node-a");
        assertNoStackTrace(second);
    }

    // ---- files and commands ----

    private static void assertNoStackTrace(ScriptProcess process) {
        assertThat(process.lines()).noneMatch(line -> line.startsWith("\tat ") || line.startsWith("Caused by"));
    }

    private ScriptProcess startBroker(Path etc, Path work) throws Exception {
        return ScriptProcess.start(brokerCommand(etc, work), Map.of());
    }

    private static String brokerCommand(Path etc, Path work) {
        return "exec bin/broker --config " + etc.resolve("broker.xml") + " --work " + work;
    }

    /** A node's etc/: the installation's files with its own listener port, store and management. */
    private Path node(String name, int amqpPort, String storeType, String storePath, String management)
            throws Exception {
        Path etc = Files.createDirectories(directory.resolve("node-" + name).resolve("etc"));
        Files.createDirectories(etc.resolve("vhosts"));
        Files.copy(ScriptProcess.HOME.resolve("etc/users"), etc.resolve("users"));
        Files.writeString(etc.resolve("broker.xml"), """
                <broker>
                  <listeners><listener name="amqp" host="127.0.0.1" port="%d"/></listeners>
                  <security usersFile="users"/>
                  <virtualHosts default="default">
                    <virtualHost name="default" file="vhosts/default.xml"/>
                  </virtualHosts>
                  <management>%s</management>
                </broker>
                """.formatted(amqpPort, management));
        Files.writeString(etc.resolve("vhosts/default.xml"), """
                <virtualHost name="default">
                  <store type="%s">
                    <storePath>%s</storePath>
                    <coalescingSync>true</coalescingSync>
                  </store>
                  <queues autoCreate="true"><defaults durable="true"/></queues>
                </virtualHost>
                """.formatted(storeType, storePath));
        return etc;
    }

    private Path haNode(String name, int amqpPort, String nodeName, int replicationPort, int helperPort)
            throws Exception {
        Path etc = node(name, amqpPort, "bdb-ha", "default/store", "");
        Files.writeString(etc.resolve("vhosts/default.xml"), """
                <virtualHost name="default">
                  <store type="bdb-ha">
                    <storePath>default/store</storePath>
                    <groupName>tandem-startup</groupName>
                    <nodeName>%s</nodeName>
                    <nodeHostPort>localhost:%d</nodeHostPort>
                    <helperHostPort>localhost:%d</helperHostPort>
                    <designatedPrimary>true</designatedPrimary>
                  </store>
                  <queues autoCreate="true"><defaults durable="true"/></queues>
                </virtualHost>
                """.formatted(nodeName, replicationPort, helperPort));
        return etc;
    }

    /**
     * A port free now, below the kernel's ephemeral range (from which every outgoing connection draws its local
     * port), and never handed out before in this JVM. A port from {@code new ServerSocket(0)} lies inside that range,
     * so a connection opened before a broker binds it could take it: OperationsProcedureIT's restored node-c, started
     * a minute after its ports were chosen, failed once with "Address already in use".
     */
    static int freePort() throws Exception {
        int ephemeralStart = ephemeralRangeStart();
        int lowest = 10_000;
        for (int attempt = 0; ephemeralStart - lowest > 1_000 && attempt < 500; attempt++) {
            int port = lowest + PORTS.nextInt(ephemeralStart - lowest);
            if (HANDED_OUT.add(port)) {
                try (ServerSocket socket = new ServerSocket(port)) {
                    return socket.getLocalPort();
                } catch (IOException taken) {
                    // in use: try another
                }
            }
        }
        try (ServerSocket socket = new ServerSocket(0)) { // no room below the ephemeral range
            HANDED_OUT.add(socket.getLocalPort());
            return socket.getLocalPort();
        }
    }

    private static final Random PORTS = new Random();
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    /** The first port of /proc/sys/net/ipv4/ip_local_port_range, or Linux's default 32768. */
    private static int ephemeralRangeStart() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
            return Integer.parseInt(lines.get(0).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

}
