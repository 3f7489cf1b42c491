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
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.security.PasswordHash;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.Container;
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
 * Generated per node under {@code /tandem/etc}: broker.xml, users (guest/guest, from any address; with
 * {@link Builder#jmx()} also the operator admin/admin with {@code role=admin} and a {@code <management>} element),
 * vhosts/default.xml (the store section from the test, queues auto-created and durable) and a console-only
 * logback.xml, so that {@link #logs()} ({@code docker logs}) has everything.
 */
public final class BrokerNode implements AutoCloseable {
    public static final int REPLICATION_PORT = 5000;
    public static final String USER = "guest";
    public static final String PASSWORD = "guest";
    /** The operator's user of a node with {@link Builder#jmx() JMX}: {@code role=admin} in the users file. */
    public static final String ADMIN_USER = "admin";
    public static final String ADMIN_PASSWORD = "admin";
    /** The replicated store's MBean (spec 1.6.8), for the virtual host {@code default}. */
    public static final String HA_MBEAN = "org.apache.qpid:type=BDBHAMessageStore,name=default";
    public static final String HOME = "/tandem";
    public static final String WORK = HOME + "/work";

    private static final Logger LOG = LoggerFactory.getLogger(BrokerNode.class);
    private static final Pattern LISTENING = Pattern.compile("(?m)^\\s*listening on amqp://");
    private static final Pattern ROLE_CHANGED = Pattern.compile("HA-1001 : Role changed : \\S+ : node (\\S+) is now (.+)$",
            Pattern.MULTILINE);
    private static final Duration JMX_TIMEOUT = Duration.ofSeconds(20);
    private static final int START_ATTEMPTS = 3;
    private static final String DEFAULT_QUEUES = "<queues autoCreate=\"true\"><defaults durable=\"true\"/></queues>";

    private final Builder settings;
    private final NodeNetwork network;
    private final boolean ownsNetwork;
    private final String containerName;
    private final String guestHash;
    private final String adminHash;
    private volatile int jmxPort;
    private int incarnation = 1;
    /** Where the current run's output begins in {@link #logs()} (a restart appends to the same output). */
    private volatile int runOffset;
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
        this.adminHash = settings.jmx ? PasswordHash.create(ADMIN_PASSWORD.toCharArray()).encode() : null;
        this.jmxPort = settings.jmx ? FreePorts.pick() : 0;
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
                runOffset = 0;
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
                    if (jmxPort != 0) {
                        jmxPort = FreePorts.pick();
                    }
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
        String previous = logs();
        int before = listeningCount(previous);
        runOffset = previous.length();
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

    /** What the broker printed since the container was last started or restarted. */
    public String currentRunLogs() {
        String all = logs();
        return all.substring(Math.min(runOffset, all.length()));
    }

    /** How many lines of {@link #logs()} contain {@code text}. */
    public int countLogLines(String text) {
        return (int) logs().lines().filter(line -> line.contains(text)).count();
    }

    /**
     * The JE states this node logged ({@code HA-1001 : Role changed}), oldest first, over every run of this
     * container: {@code MASTER}, {@code REPLICA (master node2)}, {@code UNKNOWN}, {@code DETACHED}. MASTER is JE's
     * view: a master serves clients only once a majority acknowledged it ({@code HA-1005}), so "accepts clients"
     * is {@link BrokerCluster#nodesAcceptingClients}.
     */
    public List<String> loggedRoles() {
        return roles(logs());
    }

    /** {@link #loggedRoles()} of the current run only (since the last start or restart). */
    public List<String> currentRunRoles() {
        return roles(currentRunLogs());
    }

    private List<String> roles(String output) {
        List<String> roles = new ArrayList<>();
        Matcher m = ROLE_CHANGED.matcher(output);
        while (m.find()) {
            if (m.group(1).equals(name())) {
                roles.add(m.group(2).trim());
            }
        }
        return roles;
    }

    /** The last state this node logged with {@code HA-1001} in its current run, or empty before the first. */
    public Optional<String> lastLoggedRole() {
        List<String> roles = currentRunRoles();
        return roles.isEmpty() ? Optional.empty() : Optional.of(roles.get(roles.size() - 1));
    }

    /**
     * Waits until the last state this node logged in its current run is {@code role} (e.g.
     * {@code "REPLICA (master node2)"}, or just {@code "REPLICA"} for any master) and returns it.
     */
    public String awaitLoggedRole(String role, Duration timeout) {
        try {
            await(name() + " logging " + role).atMost(timeout).pollInterval(Duration.ofMillis(250))
                    .until(() -> lastLoggedRole().filter(r -> r.equals(role) || r.startsWith(role + " ")).isPresent());
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(name() + " did not log the role " + role + " within " + timeout
                    + "; its roles this run: " + currentRunRoles() + "\n--- its last lines ---\n" + tail(logs(), 40), e);
        }
        return lastLoggedRole().orElseThrow();
    }

    /**
     * JE's own view of this node, from JE's {@code DbPing} run inside the node's container against its
     * replication port: its state, the master it knows and how far its log goes. Works without JMX, on any
     * running (not paused) node of a {@code bdb-ha} group.
     *
     * @throws IllegalStateException if the node does not answer
     */
    public ReplicationStatus ping() {
        requireStarted();
        String group = storeElement("groupName").orElse(StoreSection.DEFAULT_GROUP);
        String node = storeElement("nodeName").orElse(name());
        String hostPort = storeElement("nodeHostPort").orElse(identity.replicationAddress());
        try {
            List<String> command = new ArrayList<>(List.of("java", "-Xmx48m",
                    "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", HOME + "/lib/*", "com.sleepycat.je.rep.util.DbPing",
                    "-groupName", group, "-nodeName", node, "-nodeHost", hostPort, "-socketTimeout", "5000"));
            if (settings.pingNetProps != null) {
                command.addAll(List.of("-netProps", settings.pingNetProps));
            }
            Container.ExecResult result = container.execInContainer(command.toArray(String[]::new));
            if (result.getExitCode() != 0) {
                throw new IllegalStateException(name() + ": DbPing exited " + result.getExitCode() + ": "
                        + result.getStdout() + result.getStderr());
            }
            return ReplicationStatus.parse(result.getStdout());
        } catch (IOException e) {
            throw new IllegalStateException(name() + ": cannot run DbPing", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name() + ": interrupted while running DbPing", e);
        }
    }

    /**
     * Waits until this node is a replica whose log holds {@code master}'s last transaction as of the call (JE's
     * DbPing on both): it caught up with what it missed. The master keeps committing its quorum heartbeats, so
     * "as of the call" is the honest target.
     */
    public BrokerNode awaitCaughtUpWith(BrokerNode master, Duration timeout) {
        long target = master.ping().txnEndVlsn();
        ReplicationStatus[] last = {null};
        try {
            await(name() + " caught up with " + master.name() + "'s VLSN " + target).atMost(timeout)
                    .pollInterval(Duration.ofSeconds(1))
                    .until(() -> {
                        last[0] = ping();
                        return last[0].isReplica() && last[0].txnEndVlsn() >= target;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(name() + " did not catch up with " + master.name() + " (VLSN " + target
                    + ") within " + timeout + "; last seen: " + last[0], e);
        }
        return this;
    }

    // --- JMX (the broker-jmx module) ----------------------------------------------------------------------

    /** The host-side JMX port, or 0 if the node has no JMX ({@link Builder#jmx()}). */
    public int jmxPort() {
        return jmxPort;
    }

    /** {@code service:jmx:rmi:///jndi/rmi://127.0.0.1:P/jmxrmi}. */
    public String jmxServiceUrl() {
        requireJmx();
        return "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi";
    }

    /** The {@code NodeState} attribute of the HA MBean: MASTER, REPLICA, UNKNOWN, DETACHED ... */
    public String nodeState() {
        Object state = jmx(connection -> connection.getAttribute(haMBean(), "NodeState"));
        return String.valueOf(state);
    }

    /** The {@code DesignatedPrimary} attribute of the HA MBean. */
    public boolean isDesignatedPrimary() {
        return Boolean.TRUE.equals(jmx(connection -> connection.getAttribute(haMBean(), "DesignatedPrimary")));
    }

    /**
     * An operator's designation (spec 1.6.3 step 3): sets the HA MBean's {@code DesignatedPrimary} attribute to
     * true over JMX, as admin. The broker refuses, with its explanation in the exception, while the other node
     * still answers as master.
     */
    public void designatePrimary() {
        setDesignatedPrimary(true);
    }

    /** Sets the {@code DesignatedPrimary} attribute over JMX. */
    public void setDesignatedPrimary(boolean designated) {
        jmx(connection -> {
            connection.setAttribute(haMBean(), new Attribute("DesignatedPrimary", designated));
            return null;
        });
        LOG.info("{}: DesignatedPrimary set to {} over JMX", name(), designated);
    }

    /** Invokes the HA MBean's {@code designatePrimary(boolean force)} operation. */
    public void designatePrimary(boolean force) {
        jmx(connection -> connection.invoke(haMBean(), "designatePrimary", new Object[] {force},
                new String[] {boolean.class.getName()}));
        LOG.info("{}: designatePrimary(force={}) invoked over JMX", name(), force);
    }

    /** What a JMX call does with the connection. */
    @FunctionalInterface
    public interface JmxCall<T> {
        T call(MBeanServerConnection connection) throws Exception;
    }

    /**
     * Connects as admin, runs {@code call}, disconnects; fails after 20 s (a paused or
     * cut-off node would otherwise hang the RMI call). Failures carry the broker's message.
     */
    public <T> T jmx(JmxCall<T> call) {
        requireJmx();
        String url = jmxServiceUrl();
        CompletableFuture<T> result = CompletableFuture.supplyAsync(() -> {
            Map<String, Object> environment = Map.of(
                    JMXConnector.CREDENTIALS, new String[] {ADMIN_USER, ADMIN_PASSWORD});
            try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(url), environment)) {
                return call.call(connector.getMBeanServerConnection());
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
        try {
            return result.get(JMX_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException ce && ce.getCause() != null
                    ? ce.getCause() : e.getCause();
            throw new IllegalStateException(name() + ": JMX call at " + url + " failed: " + describe(cause), cause);
        } catch (TimeoutException e) {
            result.cancel(true);
            throw new IllegalStateException(name() + ": JMX call at " + url + " did not answer within " + JMX_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name() + ": interrupted during a JMX call", e);
        }
    }

    private static ObjectName haMBean() throws MalformedObjectNameException {
        return new ObjectName(HA_MBEAN);
    }

    /** The messages of a JMX failure's causes (an MBean's refusal arrives wrapped in MBeanException et al.). */
    private static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (text.length() > 0) {
                text.append(" <- ");
            }
            text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
            if (t.getCause() == t) {
                break;
            }
        }
        return text.toString();
    }

    private void requireJmx() {
        if (jmxPort == 0) {
            throw new IllegalStateException(name() + " has no JMX: build it with BrokerNode.Builder.jmx()");
        }
    }

    // --- an empty store ---------------------------------------------------------------------------------------

    /**
     * A node whose volume was wiped: saves this container's output, removes the container (killing the broker
     * if it still runs) and starts a new one with the same name, IP, ports and configuration but an empty work
     * directory, so an empty store. Returns once the broker listens. {@link #logs()} then holds the new
     * container's output only; the old one's is in {@code target/container-logs/<container>-<n>.log}.
     */
    public BrokerNode recreateWithEmptyStore() {
        requireStarted();
        if (paused) {
            unpause();
        }
        NodeContainer old = container;
        saveLogs(old, containerName + "-" + incarnation + ".log");
        incarnation++;
        old.stop();
        container = null;
        disconnected = false;
        LOG.info("{}: container removed (store wiped); starting an empty one", name());
        return start();
    }

    private Optional<String> storeElement(String element) {
        Matcher m = Pattern.compile("<" + element + ">([^<]*)</" + element + ">").matcher(storeXml());
        return m.find() ? Optional.of(m.group(1).trim()) : Optional.empty();
    }

    /**
     * Saves the container's output as {@code fileName}, and JE's own log of a replicated store (je.info.0 in the
     * store directory: elections, syncup, rollbacks) next to it as {@code <fileName>.je.info}, if there is one.
     */
    private void saveLogs(GenericContainer<?> c, String fileName) {
        Path file = settings.logDirectory.resolve(fileName);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, safeLogs(c));
            LOG.info("{}: container output saved to {}", name(), file);
        } catch (IOException | RuntimeException e) {
            LOG.warn("{}: could not save the container output: {}", name(), e.toString());
        }
        if (c.getContainerId() != null && storeXml().contains("bdb-ha")) {
            String storePath = storeElement("storePath").orElse(StoreSection.STORE_PATH);
            String jeLog = (storePath.startsWith("/") ? storePath : WORK + "/" + storePath) + "/je.info.0";
            try {
                c.copyFileFromContainer(jeLog, in -> Files.copy(in, file.resolveSibling(fileName + ".je.info"),
                        StandardCopyOption.REPLACE_EXISTING));
            } catch (RuntimeException e) {
                LOG.debug("{}: no JE log saved: {}", name(), e.toString());
            }
        }
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
                saveLogs(c, containerName + (incarnation > 1 ? "-" + incarnation : "") + ".log");
            } catch (RuntimeException e) {
                LOG.warn("{}: could not unpause before saving the output: {}", name(), e.toString());
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
                  %s
                  <virtualHosts default="default">
                    <virtualHost name="default" file="vhosts/default.xml"/>
                  </virtualHosts>
                </broker>
                """.formatted(identity.clientAddress(), identity.clientPort(),
                settings.limits == null ? "" : "<limits " + settings.limits + "/>",
                jmxPort == 0 ? "" : "<management><jmx host=\"0.0.0.0\" port=\"" + jmxPort
                        + "\" rmiHostname=\"127.0.0.1\"/></management>");
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

    private String usersFile() {
        String users = USER + ":" + guestHash + "\n";
        if (adminHash != null) {
            users += ADMIN_USER + ":" + adminHash + ":role=admin\n";
        }
        return users;
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
                .withCopyToContainer(Transferable.of(usersFile(), 0600), HOME + "/etc/users")
                .withCopyToContainer(Transferable.of(logbackXml()), HOME + "/etc/logback.xml")
                .withWorkingDirectory(HOME)
                .withLabel("org.tandembroker.systest", "cluster")
                .withCommand(command().toArray(String[]::new))
                .waitingFor(new ListeningWait(settings.startedWhen).withStartupTimeout(settings.startupTimeout));
        settings.etcFiles.forEach((name, content) ->
                c.withCopyToContainer(Transferable.of(content, 0600), HOME + "/etc/" + name));
        for (NodeIdentity peer : settings.peers) {
            if (!peer.name().equals(id.name())) {
                c.withExtraHost(peer.name(), settings.hostOverrides.getOrDefault(peer.name(), peer.ipAddress()));
            }
        }
        int jmx = jmxPort;
        c.withCreateContainerCmdModifier(cmd -> {
            ExposedPort amqp = ExposedPort.tcp(id.clientPort());
            List<ExposedPort> exposed = new ArrayList<>(List.of(amqp));
            List<PortBinding> bindings = new ArrayList<>(List.of(
                    new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", id.clientPort()), amqp)));
            if (jmx != 0) {
                ExposedPort management = ExposedPort.tcp(jmx);
                exposed.add(management);
                bindings.add(new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", jmx), management));
            }
            if (settings.workVolume != null) {
                com.github.dockerjava.api.model.HostConfig host = Objects.requireNonNull(cmd.getHostConfig());
                List<com.github.dockerjava.api.model.Bind> binds = new ArrayList<>(host.getBinds() == null
                        ? List.of() : List.of(host.getBinds()));
                binds.add(new com.github.dockerjava.api.model.Bind(settings.workVolume,
                        new com.github.dockerjava.api.model.Volume(WORK)));
                host.withBinds(binds);
            }
            cmd.withName(containerName)
                    .withHostName(id.name())
                    .withIpv4Address(id.ipAddress())
                    .withExposedPorts(exposed);
            Objects.requireNonNull(cmd.getHostConfig()).withPortBindings(bindings);
        });
        return c;
    }

    // --- waiting ---------------------------------------------------------------------------------------------

    /** Waits until the container's output has more than {@code before} "listening on" lines. */
    private static void awaitListening(String containerId, int before, Duration timeout) {
        awaitListening(containerId, before, timeout, LISTENING);
    }

    /** Waits until the container's output has more than {@code before} lines matching {@code started}. */
    private static void awaitListening(String containerId, int before, Duration timeout, Pattern started) {
        DockerClient docker = docker();
        String[] last = {""};
        try {
            await("broker listening").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
                last[0] = LogUtils.getOutput(docker, containerId);
                if (count(started, last[0]) > before) {
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
        return count(LISTENING, output);
    }

    private static int count(Pattern pattern, String output) {
        Matcher m = pattern.matcher(output);
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

    /**
     * Testcontainers' start-up wait: "listening on" (or the builder's {@link Builder#startedWhen} pattern) in the
     * output, failing at once if the broker exits.
     */
    private static final class ListeningWait extends AbstractWaitStrategy {
        private final Pattern startedWhen;

        ListeningWait(Pattern startedWhen) {
            this.startedWhen = startedWhen;
        }

        @Override
        protected void waitUntilReady() {
            awaitListening(waitStrategyTarget.getContainerId(), 0, startupTimeout, startedWhen);
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
        private boolean jmx;
        private String workVolume;
        private final Map<String, byte[]> etcFiles = new java.util.LinkedHashMap<>();
        private final Map<String, String> hostOverrides = new java.util.HashMap<>();
        private String pingNetProps;
        private Pattern startedWhen = LISTENING;

        private Builder(String name) {
            if (!name.matches("[a-z][a-z0-9-]{0,30}")) {
                throw new IllegalArgumentException("node name " + name + ": lower-case letters, digits, '-'");
            }
            this.name = name;
        }

        /** The node's name ({@code node1} ...). */
        public String name() {
            return name;
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

        /**
         * Serves JMX (the broker-jmx module): {@code <management><jmx .../></management>} on a free host port P,
         * the same inside, published on {@code 127.0.0.1:P} (registry and RMI server on P, stubs naming
         * 127.0.0.1), and an operator {@value #ADMIN_USER}/{@value #ADMIN_PASSWORD} with {@code role=admin}. Needed
         * for {@link BrokerNode#designatePrimary()} and {@link BrokerNode#nodeState()}.
         */
        public Builder jmx() {
            this.jmx = true;
            return this;
        }

        /**
         * Mounts the Docker volume {@code volumeName} (created by the caller, e.g. a size-limited tmpfs) as the work
         * directory {@value #WORK}: the store and the logs live there, and it outlives the container.
         */
        public Builder workVolume(String volumeName) {
            this.workVolume = volumeName;
            return this;
        }

        /**
         * A file copied to {@code /tandem/etc/<name>} (mode 0600) before the broker starts: key stores, password
         * files. {@code name} may contain directories ({@code tls/node1.p12}).
         */
        public Builder etcFile(String name, byte[] content) {
            etcFiles.put(name, content.clone());
            return this;
        }

        /**
         * Resolves peer {@code peerName} to {@code ipAddress} in this node's {@code /etc/hosts} instead of the
         * peer's own address: what this node sends to that peer goes through whatever listens there (a
         * {@link ReplicationTap}).
         */
        public Builder hostOverride(String peerName, String ipAddress) {
            hostOverrides.put(peerName, ipAddress);
            return this;
        }

        /**
         * A JE network properties file in the container ({@code je.rep.channelType=ssl} and the key and trust
         * stores) that {@link BrokerNode#ping()} gives DbPing ({@code -netProps}), for a group replicating over TLS.
         */
        public Builder pingNetProps(String containerPath) {
            this.pingNetProps = containerPath;
            return this;
        }

        /**
         * The output line (a regular expression) that says the node has started, instead of "listening on": for
         * a node that is not expected to finish starting (one its group refuses).
         */
        public Builder startedWhen(String regex) {
            this.startedWhen = Pattern.compile(regex, Pattern.MULTILINE);
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
