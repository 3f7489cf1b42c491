package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The peer the benchmarks compare Tandem with: Apache ActiveMQ Artemis (a benchmark dependency of perftests only),
 * standalone or as a replicated primary/backup pair (shared-nothing replication), one {@link ArtemisPeer} process
 * per server on loopback, each with its own directory ({@code primary/} or {@code backup/}: {@code broker.xml},
 * {@code logback.xml}, {@code data/}), an AMQP acceptor and, for the pair, a core acceptor for replication.
 *
 * <p>Durability as configured here: persistence on; the active server syncs its journal before a commit completes
 * ({@code journal-sync-transactional} and {@code journal-sync-non-transactional} true); the journal is ASYNCIO
 * (libaio, direct I/O) when libaio loads, else Artemis falls back to NIO (fdatasync), and {@link #journal()} reports
 * which the server used. In the pair the primary also waits for the backup's replication acknowledgement before a
 * commit completes; the backup appends the replicated records without syncing them. Security is off (the benchmark
 * user's credentials are accepted and not checked); queues are created on attach, anycast; the acceptor's options,
 * the dead-letter and expiry addresses are those of the {@code broker.xml} that {@code artemis create} writes, and
 * the journal's buffer settings are Artemis's defaults.
 *
 * <p>Threads: used by one thread.
 */
public final class PeerCluster implements AutoCloseable {
    /** The peer's name and version in tables. */
    public static final String PRODUCT = "Artemis 2.50";
    public static final String USER = "perf";
    public static final String PASSWORD = "perf";
    private static final Pattern JOURNAL = Pattern.compile("^peer: .*, journal (\\w+)$");
    private static final Pattern LISTENING = Pattern.compile("^listening on amqp://\\S+:(\\d+)");
    private static final Pattern BACKUP_SYNCHRONISED = Pattern.compile(
            "^peer backup synchronised with the primary; serves amqp://\\S+:(\\d+)");

    /** The peer set-ups. */
    public enum Shape { STANDALONE, REPLICATED_PAIR }

    private final Shape shape;
    private final List<String> jvmOptions;
    private final List<Node> nodes = new ArrayList<>();
    private final List<BrokerProcess> processes = new ArrayList<>();
    /** The folder holding Artemis's native journal library, or null when this platform has none. */
    private Path nativeLibraries;

    private record Node(String role, Path directory, int amqpPort, int corePort) {
        Path brokerXml() {
            return directory.resolve("broker.xml");
        }
    }

    private PeerCluster(Shape shape, List<String> jvmOptions) {
        this.shape = shape;
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    /** Writes the configuration of {@code shape} under {@code directory}; nothing is started. */
    public static PeerCluster write(Path directory, Shape shape, List<String> jvmOptions) throws IOException {
        PeerCluster cluster = new PeerCluster(shape, jvmOptions);
        cluster.nativeLibraries = extractNativeLibrary(directory.resolve("native"));
        if (shape == Shape.STANDALONE) {
            cluster.nodes.add(new Node("standalone", directory.resolve("standalone"), FreePorts.next(),
                    FreePorts.next()));
        } else {
            cluster.nodes.add(new Node("primary", directory.resolve("primary"), FreePorts.next(), FreePorts.next()));
            cluster.nodes.add(new Node("backup", directory.resolve("backup"), FreePorts.next(), FreePorts.next()));
        }
        for (int i = 0; i < cluster.nodes.size(); i++) {
            Node node = cluster.nodes.get(i);
            Node other = cluster.nodes.size() == 2 ? cluster.nodes.get(1 - i) : null;
            Files.createDirectories(node.directory());
            Files.writeString(node.brokerXml(), brokerXml(node, other));
            Files.writeString(node.directory().resolve("logback.xml"), LOGBACK);
        }
        return cluster;
    }

    /**
     * Starts the server(s): the standalone server or the primary until it listens, then the backup until it has
     * announced itself and finished its initial replication, so that a measurement starts on a replicating pair.
     */
    public void start() throws IOException, InterruptedException {
        for (Node node : nodes) {
            boolean backup = node.role().equals("backup");
            processes.add(BrokerProcess.launch(command(node), backup ? BACKUP_SYNCHRONISED : LISTENING,
                    "the Artemis " + node.role() + " did not become ready"));
        }
    }

    private List<String> command(Node node) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Dlogback.configurationFile=" + node.directory().resolve("logback.xml"));
        if (nativeLibraries != null) {
            command.add("-Djava.library.path=" + nativeLibraries);
        }
        command.addAll(List.of("-cp", classPath(), ArtemisPeer.class.getName(), node.brokerXml().toString(),
                node.role(), Integer.toString(node.amqpPort())));
        return command;
    }

    /**
     * This module's class path (its classes and libraries, Artemis among them): {@code -Dperftests.classpath}, else
     * the running JVM's.
     */
    static String classPath() {
        return System.getProperty("perftests.classpath", System.getProperty("java.class.path"));
    }

    /**
     * The URI the benchmark clients use: the standalone server's, or for the pair a Qpid JMS
     * {@code failover:(primary,backup)} URI with a short constant reconnect delay, bounded. The client keeps its own
     * list of servers: Artemis announces its cluster's servers in the AMQP open frame, by their replication (core
     * protocol) connectors, and a client that took them over would reconnect to a port that speaks no AMQP.
     */
    public String clientUri() {
        if (processes.size() == 1) {
            return processes.get(0).uri();
        }
        return "failover:(" + String.join(",", processes.stream().map(BrokerProcess::uri).toList())
                + ")?failover.reconnectDelay=50&failover.useReconnectBackOff=false"
                + "&failover.maxReconnectAttempts=600&failover.warnAfterReconnectAttempts=0"
                + "&failover.amqpOpenServerListAction=IGNORE";
    }

    /**
     * Stops the processes with SIGTERM, the backup before the primary (so that it does not take over), and writes
     * each console to {@code results/<prefix>-<role>.log}. Returns the exit codes in start order (143 after a
     * graceful stop, -1 when one had to be killed).
     */
    public List<Integer> stopAll(Path results, String prefix) throws IOException, InterruptedException {
        Integer[] exits = new Integer[processes.size()];
        for (int i = processes.size() - 1; i >= 0; i--) {
            BrokerProcess process = processes.get(i);
            exits[i] = process.stop(Duration.ofSeconds(60));
            process.saveOutput(results.resolve(prefix + "-" + nodes.get(i).role() + ".log"));
        }
        return List.of(exits);
    }

    public Shape shape() {
        return shape;
    }

    /** The processes started so far: the standalone server, or the primary then the backup. */
    public List<BrokerProcess> processes() {
        return List.copyOf(processes);
    }

    /** {@code standalone}, or {@code primary} and {@code backup}: the processes' names, in order. */
    public List<String> roles() {
        return nodes.stream().map(Node::role).toList();
    }

    /** The generated {@code broker.xml} of every server, in order. */
    public List<Path> brokerXmls() {
        return nodes.stream().map(Node::brokerXml).toList();
    }

    /** The journal type the first server reported using (ASYNCIO or NIO), or "unknown" before it started. */
    public String journal() {
        for (BrokerProcess process : processes) {
            for (String line : process.output()) {
                Matcher m = JOURNAL.matcher(line);
                if (m.find()) {
                    return m.group(1);
                }
            }
        }
        return "unknown";
    }

    /** Each side's durability in words, for the tables. */
    public static String durability(Shape shape) {
        return shape == Shape.STANDALONE
                ? "journal synced before each commit completes"
                : "primary: journal synced and the backup's replication acknowledgement awaited before each commit"
                        + " completes; backup: appends without syncing";
    }

    /** Kills every process that still runs (the normal end is {@link BrokerProcess#stop} of each). */
    @Override
    public void close() throws InterruptedException {
        for (BrokerProcess process : processes) {
            process.close();
        }
    }

    private static String brokerXml(Node node, Node other) {
        Path data = node.directory().resolve("data");
        StringBuilder core = new StringBuilder();
        core.append("    <name>").append(node.role()).append("</name>\n");
        core.append("    <persistence-enabled>true</persistence-enabled>\n");
        core.append("    <journal-type>ASYNCIO</journal-type>\n");
        core.append("    <journal-sync-transactional>true</journal-sync-transactional>\n");
        core.append("    <journal-sync-non-transactional>true</journal-sync-non-transactional>\n");
        core.append("    <journal-datasync>true</journal-datasync>\n");
        core.append("    <journal-file-size>10M</journal-file-size>\n");
        core.append("    <journal-min-files>2</journal-min-files>\n");
        core.append("    <journal-pool-files>10</journal-pool-files>\n");
        for (String dir : List.of("bindings", "journal", "paging", "large-messages")) {
            core.append("    <").append(dir).append("-directory>").append(data.resolve(dir))
                    .append("</").append(dir).append("-directory>\n");
        }
        core.append("    <security-enabled>false</security-enabled>\n");
        core.append("    <jmx-management-enabled>false</jmx-management-enabled>\n");
        core.append("    <acceptors>\n");
        core.append("      <acceptor name=\"amqp\">tcp://127.0.0.1:").append(node.amqpPort())
                .append("?protocols=AMQP;tcpSendBufferSize=1048576;tcpReceiveBufferSize=1048576;useEpoll=true;"
                        + "amqpCredits=1000;amqpLowCredits=300;amqpMinLargeMessageSize=102400;"
                        + "amqpDuplicateDetection=true</acceptor>\n");
        if (other != null) {
            core.append("      <acceptor name=\"core\">tcp://127.0.0.1:").append(node.corePort())
                    .append("?protocols=CORE</acceptor>\n");
        }
        core.append("    </acceptors>\n");
        if (other != null) {
            core.append("    <cluster-user>perf-cluster</cluster-user>\n");
            core.append("    <cluster-password>perf-cluster</cluster-password>\n");
            core.append("    <connectors>\n");
            core.append("      <connector name=\"self\">tcp://127.0.0.1:").append(node.corePort())
                    .append("</connector>\n");
            core.append("      <connector name=\"other\">tcp://127.0.0.1:").append(other.corePort())
                    .append("</connector>\n");
            core.append("    </connectors>\n");
            core.append("""
                        <cluster-connections>
                          <cluster-connection name="pair">
                            <connector-ref>self</connector-ref>
                            <message-load-balancing>OFF</message-load-balancing>
                            <max-hops>1</max-hops>
                            <static-connectors><connector-ref>other</connector-ref></static-connectors>
                          </cluster-connection>
                        </cluster-connections>
                    """);
            core.append(node.role().equals("primary")
                    ? "    <ha-policy><replication><primary/></replication></ha-policy>\n"
                    : "    <ha-policy><replication><backup><allow-failback>true</allow-failback></backup>"
                            + "</replication></ha-policy>\n");
        }
        core.append("""
                    <address-settings>
                      <address-setting match="#">
                        <auto-create-queues>true</auto-create-queues>
                        <auto-create-addresses>true</auto-create-addresses>
                        <default-address-routing-type>ANYCAST</default-address-routing-type>
                        <default-queue-routing-type>ANYCAST</default-queue-routing-type>
                        <auto-delete-queues>false</auto-delete-queues>
                        <auto-delete-addresses>false</auto-delete-addresses>
                        <dead-letter-address>DLQ</dead-letter-address>
                        <expiry-address>ExpiryQueue</expiry-address>
                      </address-setting>
                    </address-settings>
                    <addresses>
                      <address name="DLQ"><anycast><queue name="DLQ"/></anycast></address>
                      <address name="ExpiryQueue"><anycast><queue name="ExpiryQueue"/></anycast></address>
                    </addresses>
                """);
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<!-- Generated by the perftests harness (PeerCluster) for the Artemis " + node.role() + ". -->\n"
                + "<configuration xmlns=\"urn:activemq\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
                + "               xsi:schemaLocation=\"urn:activemq /schema/artemis-configuration.xsd\">\n"
                + "  <core xmlns=\"urn:activemq:core\">\n" + core + "  </core>\n</configuration>\n";
    }

    /** The peer's console: Artemis's INFO lines (its AMQ codes) in the format the harness reads. */
    private static final String LOGBACK = """
            <?xml version="1.0" encoding="UTF-8"?>
            <configuration scan="false">
              <appender name="CONSOLE" class="ch.qos.logback.core.ConsoleAppender">
                <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
              </appender>
              <logger name="org.apache.activemq" level="INFO"/>
              <logger name="org.apache.activemq.audit" level="WARN"/>
              <root level="WARN"><appender-ref ref="CONSOLE"/></root>
            </configuration>
            """;

    /**
     * Artemis loads its libaio binding ({@code libartemis-native-64.so}, shipped inside
     * {@code activemq-artemis-native}'s jar) only from {@code java.library.path}, as its distribution's start script
     * sets it: copies it out of the jar into {@code folder}. Null where the jar has none for this platform (the
     * server then uses NIO).
     */
    private static Path extractNativeLibrary(Path folder) throws IOException {
        String arch = System.getProperty("os.arch");
        if (!System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux")
                || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return null;
        }
        String name = "libartemis-native-64.so";
        try (var in = PeerCluster.class.getClassLoader().getResourceAsStream("lib/linux-x86_64/" + name)) {
            if (in == null) {
                return null;
            }
            Files.createDirectories(folder);
            Files.copy(in, folder.resolve(name));
        }
        return folder;
    }
}
