package org.tandembroker.systest.cluster;

import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import jakarta.jms.ConnectionFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.security.PasswordHash;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.LogUtils;

/**
 * One broker in a Docker container from the local base image, started the way {@code bin/broker} starts it
 * ({@code java -cp 'lib/*' BrokerMain --config etc/broker.xml --work work}) from the assembled distribution,
 * which is bind-mounted read-only at {@code /tandem/lib}.
 *
 * <h2>Addresses</h2>
 * The node has a name (its host name and network alias), a fixed IP on its {@link NodeNetwork}, the replication
 * port {@value #REPLICATION_PORT} inside that network, and a client port P chosen free on the host (below the
 * ephemeral port range) before the container starts. The broker listens on P inside the container, Docker publishes {@code 127.0.0.1:P} on the
 * host to it, and the broker advertises {@code 127.0.0.1:P}. Advertising the host-side address is what makes
 * redirects work: a replica redirects clients to the master's advertised address, and only the host-side
 * address is reachable from the test JVM (the alias is not, and the container IP is not on every Docker host).
 * Using the same number inside and outside keeps one address per node valid for both sides of the mapping.
 *
 * <h2>Lifecycle</h2>
 * {@link #kill()} (SIGKILL), {@link #stop()} (SIGTERM, graceful) and {@link #restart()} keep the container, so
 * a restarted node has the same work directory ({@code /tandem/work}: store and logs), IP, ports and
 * configuration. {@link #pause()} freezes every process (connections stay open, nothing answers);
 * {@link #disconnect()} takes the node off the network: peers <em>and</em> clients lose it (the published port
 * goes through that network), names still resolve, as in a partition; a node restarted while disconnected stays
 * disconnected. {@link #close()} saves the container's
 * output to {@code target/container-logs/<container>.log} and removes the container.
 *
 * <h2>Configuration</h2>
 * Generated per node under {@code /tandem/etc}: broker.xml, users (guest/guest, from any address),
 * vhosts/default.xml (the store section from the test, queues auto-created and durable) and a console-only
 * logback.xml, so that {@link #logs()} ({@code docker logs}) has everything.
 */
public final class BrokerNode implements AutoCloseable {
    public static final int REPLICATION_PORT = 5000;
    public static final String USER = "guest";
    public static final String PASSWORD = "guest";
    public static final String HOME = "/tandem";
    public static final String WORK = HOME + "/work";

    private static final Logger LOG = LoggerFactory.getLogger(BrokerNode.class);
    private static final Pattern LISTENING = Pattern.compile("(?m)^\\s*listening on amqp://");
    private static final int START_ATTEMPTS = 3;
    private static final String DEFAULT_QUEUES = "<queues autoCreate=\"true\"><defaults durable=\"true\"/></queues>";

    private final Builder settings;
    private final NodeNetwork network;
    private final boolean ownsNetwork;
    private final String containerName;
    private final String guestHash;
    private volatile NodeIdentity identity;
    private volatile NodeContainer container;
    private volatile boolean paused;
    private volatile boolean disconnected;

    private BrokerNode(Builder settings) {
        this.settings = settings;
        this.ownsNetwork = settings.network == null;
        this.network = ownsNetwork ? NodeNetwork.create() : settings.network;
        this.containerName = "tandem-" + settings.runId + "-" + settings.name;
        this.guestHash = PasswordHash.create(PASSWORD.toCharArray()).encode();
        this.identity = new NodeIdentity(settings.index, settings.name, network.address(10 + settings.index),
                FreePorts.pick(), REPLICATION_PORT);
    }

    /** A node named {@code name} (also its host name and network alias). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * Creates and starts the container; returns once the broker prints {@code listening on}. A client port
     * taken meanwhile by another process is replaced by a new free one (up to {@value #START_ATTEMPTS} tries).
     */
    public BrokerNode start() {
        if (container != null) {
            throw new IllegalStateException(name() + " was started already; use restart()");
        }
        String image = ContainerEnvironment.baseImage();
        Path lib = ContainerEnvironment.brokerLib();
        long began = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
            NodeContainer candidate = newContainer(image, lib);
            try {
                candidate.start();
                container = candidate;
                LOG.info("{} started in {} ms: {} (container {}, ip {})", name(), (System.nanoTime() - began) / 1_000_000,
                        amqpUri(), containerName, identity.ipAddress());
                return this;
            } catch (RuntimeException e) {
                String logs = safeLogs(candidate);
                candidate.stop();
                if (attempt < START_ATTEMPTS && portTaken(e)) {
                    LOG.warn("{}: client port {} was taken, trying another", name(), identity.clientPort());
                    identity = new NodeIdentity(identity.index(), identity.name(), identity.ipAddress(),
                            FreePorts.pick(), identity.replicationPort());
                    continue;
                }
                throw new IllegalStateException(name() + " did not start: " + e.getMessage()
                        + "\n--- container output ---\n" + tail(logs, 80), e);
            }
        }
    }

    public NodeIdentity identity() {
        return identity;
    }

    public String name() {
        return settings.name;
    }

    public String containerName() {
        return containerName;
    }

    /** {@code amqp://127.0.0.1:P}, reachable from the test JVM. */
    public String amqpUri() {
        return identity.amqpUri();
    }

    /** A Qpid JMS factory for this node alone (no failover), as guest. */
    public ConnectionFactory connectionFactory() {
        return new JmsConnectionFactory(USER, PASSWORD, amqpUri());
    }

    /** The generated virtual host file's store section, as given to the broker. */
    public String storeXml() {
        return settings.store.apply(identity);
    }

    /**
     * {@code docker kill} (SIGKILL): no shutdown hook, nothing flushed. Returns once the container is down.
     * A paused node is unpaused first (Docker refuses to kill a paused container).
     */
    public void kill() {
        requireStarted();
        if (paused) {
            unpause(); // Docker refuses to kill a paused container
        }
        docker().killContainerCmd(containerId()).exec();
        awaitDown(Duration.ofSeconds(30));
        LOG.info("{} killed", name());
    }

    /**
     * {@code docker stop}: SIGTERM (graceful shutdown), SIGKILL after 60 s. Returns the broker's exit code: 143
     * (the JVM's 128 + SIGTERM) after a graceful shutdown, 137 if it had to be killed.
     */
    public long stop() {
        requireStarted();
        if (paused) {
            unpause();
        }
        docker().stopContainerCmd(containerId()).withTimeout(60).exec();
        awaitDown(Duration.ofSeconds(90));
        long exitCode = exitCode();
        LOG.info("{} stopped, exit code {}", name(), exitCode);
        return exitCode;
    }

    /**
     * Starts the same container again (same work directory, IP, ports, configuration), stopping it gracefully
     * first if it is running; returns once the broker listens again.
     */
    public BrokerNode restart() {
        requireStarted();
        if (paused) {
            unpause();
        }
        if (isRunning()) {
            stop();
        }
        int before = listeningCount(logs());
        long began = System.nanoTime();
        docker().startContainerCmd(containerId()).exec();
        awaitListening(containerId(), before, settings.startupTimeout);
        LOG.info("{} restarted in {} ms", name(), (System.nanoTime() - began) / 1_000_000);
        return this;
    }

    /** {@code docker pause}: every process in the container frozen. */
    public void pause() {
        requireStarted();
        docker().pauseContainerCmd(containerId()).exec();
        paused = true;
        LOG.info("{} paused", name());
    }

    public void unpause() {
        requireStarted();
        docker().unpauseContainerCmd(containerId()).exec();
        paused = false;
        LOG.info("{} unpaused", name());
    }

    /** Takes the node off its network: no traffic with peers or clients until {@link #reconnect()}. */
    public void disconnect() {
        requireStarted();
        docker().disconnectFromNetworkCmd().withNetworkId(network.id()).withContainerId(containerId())
                .withForce(true).exec();
        disconnected = true;
        LOG.info("{} disconnected from the network", name());
    }

    /** Puts the node back on its network with the same IP and alias. */
    public void reconnect() {
        requireStarted();
        docker().connectToNetworkCmd().withNetworkId(network.id()).withContainerId(containerId())
                .withContainerNetwork(new ContainerNetwork()
                        .withIpamConfig(new ContainerNetwork.Ipam().withIpv4Address(identity.ipAddress()))
                        .withAliases(settings.name))
                .exec();
        disconnected = false;
        LOG.info("{} reconnected to the network", name());
    }

    /** Whether the container runs (a paused container counts as running). */
    public boolean isRunning() {
        return container != null && Boolean.TRUE.equals(inspect().getState().getRunning());
    }

    public boolean isPaused() {
        return paused;
    }

    public boolean isDisconnected() {
        return disconnected;
    }

    /** The broker's exit code after it stopped or was killed (137 after SIGKILL). */
    public long exitCode() {
        Long code = inspect().getState().getExitCodeLong();
        return code == null ? -1 : code;
    }

    /** Everything the broker printed, every run of this container included ({@code docker logs}). */
    public String logs() {
        requireStarted();
        return LogUtils.getOutput(docker(), containerId());
    }

    /** The underlying Testcontainers container, for anything this class does not offer (exec, copy files). */
    public GenericContainer<?> container() {
        requireStarted();
        return container;
    }

    /** Saves the output to {@code target/container-logs} and removes the container (and its own network). */
    @Override
    public void close() {
        NodeContainer c = container;
        if (c != null) {
            try {
                if (paused) {
                    unpause();
                }
                Path file = settings.logDirectory.resolve(containerName + ".log");
                Files.createDirectories(file.getParent());
                Files.writeString(file, safeLogs(c));
                LOG.info("{}: container output saved to {}", name(), file);
            } catch (IOException | RuntimeException e) {
                LOG.warn("{}: could not save the container output: {}", name(), e.toString());
            } finally {
                c.stop();
                container = null;
            }
        }
        if (ownsNetwork) {
            network.close();
        }
    }

    @Override
    public String toString() {
        return name() + " (" + amqpUri() + ", " + identity.ipAddress() + ")";
    }

    // --- configuration files -------------------------------------------------------------------------------

    String brokerXml() {
        return """
                <broker>
                  <listeners advertisedAddress="%s">
                    <listener name="amqp" host="0.0.0.0" port="%d"/>
                  </listeners>
                  <security usersFile="users" anonymous="false"/>
                  %s
                  <virtualHosts default="default">
                    <virtualHost name="default" file="vhosts/default.xml"/>
                  </virtualHosts>
                </broker>
                """.formatted(identity.clientAddress(), identity.clientPort(),
                settings.limits == null ? "" : "<limits " + settings.limits + "/>");
    }

    String virtualHostXml() {
        return """
                <virtualHost name="default">
                  %s
                  %s
                  %s
                </virtualHost>
                """.formatted(storeXml(), settings.queues, settings.virtualHostExtras);
    }

    private static String logbackXml() {
        return """
                <configuration>
                  <appender name="CONSOLE" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
                  </appender>
                  <logger name="tandem.oplog" level="INFO"/>
                  <logger name="io.netty" level="INFO"/>
                  <root level="INFO"><appender-ref ref="CONSOLE"/></root>
                </configuration>
                """;
    }

    private List<String> command() {
        List<String> command = new ArrayList<>(List.of("java", "-Xmx384m", "-XX:+ExitOnOutOfMemoryError",
                "-Djava.net.preferIPv4Stack=true", "-Dfile.encoding=UTF-8", "-Dtandem.home=" + HOME,
                "-Dlogback.configurationFile=" + HOME + "/etc/logback.xml"));
        command.addAll(settings.jvmOptions);
        command.addAll(List.of("-cp", HOME + "/lib/*", "org.tandembroker.core.daemon.BrokerMain",
                "--config", HOME + "/etc/broker.xml", "--work", WORK));
        return command;
    }

    private NodeContainer newContainer(String image, Path lib) {
        NodeIdentity id = identity;
        NodeContainer c = new NodeContainer(DockerImageName.parse(image));
        c.withNetwork(network.network())
                .withNetworkAliases(id.alias())
                .withFileSystemBind(lib.toString(), HOME + "/lib", BindMode.READ_ONLY)
                .withCopyToContainer(Transferable.of(brokerXml()), HOME + "/etc/broker.xml")
                .withCopyToContainer(Transferable.of(virtualHostXml()), HOME + "/etc/vhosts/default.xml")
                .withCopyToContainer(Transferable.of(USER + ":" + guestHash + "\n", 0600), HOME + "/etc/users")
                .withCopyToContainer(Transferable.of(logbackXml()), HOME + "/etc/logback.xml")
                .withWorkingDirectory(HOME)
                .withLabel("org.tandembroker.systest", "cluster")
                .withCommand(command().toArray(String[]::new))
                .waitingFor(new ListeningWait().withStartupTimeout(settings.startupTimeout));
        for (NodeIdentity peer : settings.peers) {
            if (!peer.name().equals(id.name())) {
                c.withExtraHost(peer.name(), peer.ipAddress());
            }
        }
        c.withCreateContainerCmdModifier(cmd -> {
            ExposedPort amqp = ExposedPort.tcp(id.clientPort());
            cmd.withName(containerName)
                    .withHostName(id.name())
                    .withIpv4Address(id.ipAddress())
                    .withExposedPorts(amqp);
            Objects.requireNonNull(cmd.getHostConfig())
                    .withPortBindings(new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", id.clientPort()), amqp));
        });
        return c;
    }

    // --- waiting ---------------------------------------------------------------------------------------------

    /** Waits until the container's output has more than {@code before} "listening on" lines. */
    private static void awaitListening(String containerId, int before, Duration timeout) {
        DockerClient docker = docker();
        String[] last = {""};
        try {
            await("broker listening").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
                last[0] = LogUtils.getOutput(docker, containerId);
                if (listeningCount(last[0]) > before) {
                    return true;
                }
                InspectContainerResponse.ContainerState state = docker.inspectContainerCmd(containerId).exec().getState();
                if (!Boolean.TRUE.equals(state.getRunning())) {
                    last[0] = LogUtils.getOutput(docker, containerId);
                    throw new IllegalStateException("the broker exited (code " + state.getExitCodeLong()
                            + ") before listening:\n" + tail(last[0], 80));
                }
                return false;
            });
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException("the broker did not listen within " + timeout + ":\n" + tail(last[0], 80), e);
        }
    }

    private void awaitDown(Duration timeout) {
        await(name() + " down").atMost(timeout).pollInterval(Duration.ofMillis(100))
                .until(() -> !Boolean.TRUE.equals(inspect().getState().getRunning()));
    }

    static int listeningCount(String output) {
        Matcher m = LISTENING.matcher(output);
        int count = 0;
        while (m.find()) {
            count++;
        }
        return count;
    }

    private static boolean portTaken(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains("port is already allocated") || message.contains("address already in use")) {
                return true;
            }
        }
        return false;
    }

    private static String safeLogs(GenericContainer<?> c) {
        try {
            return c.getContainerId() == null ? "" : LogUtils.getOutput(docker(), c.getContainerId());
        } catch (RuntimeException e) {
            return "(no output: " + e + ")";
        }
    }

    static String tail(String text, int lines) {
        String[] all = text.split("\n", -1);
        int from = Math.max(0, all.length - lines);
        return (from > 0 ? "... (" + from + " lines before)\n" : "") + String.join("\n", List.of(all).subList(from, all.length));
    }

    private InspectContainerResponse inspect() {
        requireStarted();
        return docker().inspectContainerCmd(containerId()).exec();
    }

    private String containerId() {
        return container.getContainerId();
    }

    private void requireStarted() {
        if (container == null) {
            throw new IllegalStateException(name() + " is not started (or was closed)");
        }
    }

    private static DockerClient docker() {
        return DockerClientFactory.lazyClient();
    }

    private static final class NodeContainer extends GenericContainer<NodeContainer> {
        NodeContainer(DockerImageName image) {
            super(image);
        }
    }

    /** Testcontainers' start-up wait: "listening on" in the output, failing at once if the broker exits. */
    private static final class ListeningWait extends AbstractWaitStrategy {
        @Override
        protected void waitUntilReady() {
            awaitListening(waitStrategyTarget.getContainerId(), 0, startupTimeout);
        }
    }

    /** What a node is made of; {@link #build()} gives an unstarted node, {@link #start()} a started one. */
    public static final class Builder {
        private final String name;
        private int index = 1;
        private NodeNetwork network;
        private List<NodeIdentity> peers = List.of();
        private Function<NodeIdentity, String> store = node -> StoreSection.standalone();
        private String queues = DEFAULT_QUEUES;
        private String virtualHostExtras = "";
        private String limits;
        private final List<String> jvmOptions = new ArrayList<>();
        private Duration startupTimeout = Duration.ofMinutes(3);
        private Path logDirectory = ContainerEnvironment.moduleDirectory().resolve("target/container-logs");
        private String runId = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));

        private Builder(String name) {
            if (!name.matches("[a-z][a-z0-9-]{0,30}")) {
                throw new IllegalArgumentException("node name " + name + ": lower-case letters, digits, '-'");
            }
            this.name = name;
        }

        /** The store section, the same for every start: {@code <store type="...">...</store>}. */
        public Builder store(String storeXml) {
            return store(node -> storeXml);
        }

        /** The store section computed from the node's identity (name, replication address). */
        public Builder store(Function<NodeIdentity, String> storeXml) {
            this.store = Objects.requireNonNull(storeXml);
            return this;
        }

        /** Replaces the {@code <queues>} element (default: auto-created durable queues). */
        public Builder queues(String queuesElement) {
            this.queues = queuesElement;
            return this;
        }

        /** Added to the virtual host file after {@code <queues>}: {@code <exchanges>}, {@code <bindings>}. */
        public Builder virtualHostExtras(String xml) {
            this.virtualHostExtras = xml;
            return this;
        }

        /** Attributes of the broker's {@code <limits>} element, e.g. {@code idleTimeout="10s"}. */
        public Builder limits(String attributes) {
            this.limits = attributes;
            return this;
        }

        /** Extra JVM options for the broker (the defaults include {@code -Xmx384m}; a later -Xmx wins). */
        public Builder jvmOptions(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = timeout;
            return this;
        }

        public Builder logDirectory(Path directory) {
            this.logDirectory = directory;
            return this;
        }

        /** Joins {@code network} (default: a network of the node's own, removed with it). */
        public Builder network(NodeNetwork network) {
            this.network = network;
            return this;
        }

        /** Position in a cluster (1-based): decides the node's IP. */
        Builder index(int index) {
            this.index = index;
            return this;
        }

        /** Every node of the cluster, written into this node's /etc/hosts. */
        Builder peers(List<NodeIdentity> peers) {
            this.peers = List.copyOf(peers);
            return this;
        }

        Builder runId(String runId) {
            this.runId = runId;
            return this;
        }

        public BrokerNode build() {
            return new BrokerNode(this);
        }

        public BrokerNode start() {
            BrokerNode node = build();
            try {
                return node.start();
            } catch (RuntimeException | Error e) {
                node.close();
                throw e;
            }
        }
    }

    /**
     * Free TCP ports on the host's loopback, below the kernel's ephemeral range and never the same one twice in
     * this JVM. A port from the ephemeral range (what {@code new ServerSocket(0)} hands out) can be taken as the
     * local port of any outgoing connection between choosing it and Docker binding it: on a machine where
     * something opens many connections that happens often enough to fail starts.
     */
    static final class FreePorts {
        private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private static final int LOWEST = 20000;

        private FreePorts() {
        }

        static int pick() {
            int below = ephemeralRangeStart();
            int span = below - LOWEST;
            int start = ThreadLocalRandom.current().nextInt(span);
            for (int i = 0; i < span; i++) {
                int port = LOWEST + (start + i) % span;
                if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
                    return port;
                }
            }
            throw new IllegalStateException("no free port between " + LOWEST + " and " + below);
        }

        private static boolean bindable(int port) {
            try (java.net.ServerSocket socket = new java.net.ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 1);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        /** The first port of Linux's ephemeral range (32768 unless configured otherwise). */
        private static int ephemeralRangeStart() {
            try {
                String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
                int start = Integer.parseInt(range.split("\\s+")[0]);
                return start > LOWEST + 1000 ? start : 32768;
            } catch (IOException | RuntimeException e) {
                return 32768;
            }
        }
    }
}
