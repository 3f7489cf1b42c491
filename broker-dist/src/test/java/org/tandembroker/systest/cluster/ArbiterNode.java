package org.tandembroker.systest.cluster;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.LogUtils;

/**
 * A JE arbiter for a two-node {@link BrokerCluster}, in a container of its own from the same base image and
 * the same read-only {@code /tandem/lib} as the brokers, run as {@code bin/arbiter} runs it:
 * <pre>
 * java -cp '/tandem/lib/*' org.tandembroker.tools.arbiter.ArbiterMain --group tandem --node arbiter
 *      --host-port arbiter:5000 --helpers node1:5000,node2:5000 --dir /tandem/work/arbiter
 * </pre>
 * It gets the next fixed address of the cluster's network after the brokers, its name as network alias (the
 * brokers find it through Docker's DNS) and every broker in its {@code /etc/hosts}. {@link #start} returns once
 * ArbiterMain reported its state, i.e. once it found the group's master or gave up waiting for one (JE keeps
 * trying in the background): {@link #awaitFollowingMaster} waits for the former.
 */
public final class ArbiterNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ArbiterNode.class);
    private static final int PORT = BrokerNode.REPLICATION_PORT;
    private static final Pattern STATE_CHANGE = Pattern.compile("state change from \\w+ to (\\w+)");

    /**
     * The arbiter's half of quick failure detection ({@link StoreSection#quickFailureDetection()} is the brokers'):
     * the arbiter gives up a silent master after 5 s without a heartbeat ({@code je.rep.replicaTimeout}, the
     * timeout of its channel from the master; JE: 30 s), so that it follows the new master as soon as the
     * surviving broker, which gives the old one up after the same 5 s, is elected.
     */
    public static final Map<String, String> QUICK_FAILURE_DETECTION = Map.of("je.rep.replicaTimeout", "5 s");

    private final String name;
    private final String containerName;
    private final GenericContainer<?> container;

    private ArbiterNode(String name, String containerName, GenericContainer<?> container) {
        this.name = name;
        this.containerName = containerName;
        this.container = container;
    }

    /** Starts an arbiter named {@code name} for {@code cluster}'s group {@value StoreSection#DEFAULT_GROUP}. */
    public static ArbiterNode start(BrokerCluster cluster, String name) {
        return start(cluster, name, Map.of());
    }

    /**
     * Starts an arbiter as {@link #start(BrokerCluster, String)} does, with the JE replication parameters
     * {@code repConfig} given as {@code --rep-config NAME=VALUE} (e.g. {@link #QUICK_FAILURE_DETECTION}).
     */
    @SuppressWarnings("resource") // closed by close()
    public static ArbiterNode start(BrokerCluster cluster, String name, Map<String, String> repConfig) {
        String helpers = cluster.identities().stream().map(NodeIdentity::replicationAddress)
                .collect(Collectors.joining(","));
        String ip = cluster.network().address(10 + cluster.nodes().size() + 1);
        String containerName = cluster.node(1).containerName().replaceFirst("-node1$", "-" + name);
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(ContainerEnvironment.baseImage()))
                .withNetwork(cluster.network().network())
                .withNetworkAliases(name)
                .withFileSystemBind(ContainerEnvironment.brokerLib().toString(), BrokerNode.HOME + "/lib",
                        BindMode.READ_ONLY)
                .withWorkingDirectory(BrokerNode.HOME)
                .withLabel("org.tandembroker.systest", "cluster")
                .withCommand(command(name, helpers, repConfig))
                .waitingFor(Wait.forLogMessage("(?s).*arbiter " + name + " of group .* is .*", 1)
                        .withStartupTimeout(Duration.ofMinutes(2)))
                .withCreateContainerCmdModifier(cmd -> cmd.withName(containerName).withHostName(name)
                        .withIpv4Address(ip));
        for (NodeIdentity broker : cluster.identities()) {
            c.withExtraHost(broker.name(), broker.ipAddress());
        }
        ArbiterNode arbiter = new ArbiterNode(name, containerName, c);
        try {
            c.start();
        } catch (RuntimeException e) {
            arbiter.close();
            throw new IllegalStateException("arbiter " + name + " did not start: " + e.getMessage(), e);
        }
        LOG.info("arbiter {} started at {}:{} (ip {}): {}", name, name, PORT, ip, arbiter.logs().trim());
        return arbiter;
    }

    private static String[] command(String name, String helpers, Map<String, String> repConfig) {
        List<String> command = new ArrayList<>(List.of("java", "-Xmx64m", "-Djava.net.preferIPv4Stack=true", "-cp",
                BrokerNode.HOME + "/lib/*", "org.tandembroker.tools.arbiter.ArbiterMain",
                "--group", StoreSection.DEFAULT_GROUP, "--node", name, "--host-port", name + ":" + PORT,
                "--helpers", helpers, "--dir", BrokerNode.WORK + "/arbiter"));
        repConfig.forEach((parameter, value) -> command.addAll(List.of("--rep-config", parameter + "=" + value)));
        return command.toArray(String[]::new);
    }

    public String name() {
        return name;
    }

    /** Everything the arbiter printed. */
    public String logs() {
        return container.getContainerId() == null ? ""
                : LogUtils.getOutput(DockerClientFactory.lazyClient(), container.getContainerId());
    }

    /** JE's log of the arbiter ({@code je.info.0} in its directory): its state changes and connections. */
    public String jeLog() {
        try {
            return container.execInContainer("cat", BrokerNode.WORK + "/arbiter/je.info.0").getStdout();
        } catch (IOException e) {
            throw new IllegalStateException("arbiter " + name + ": cannot read its JE log", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The arbiter's state as its last JE state change says (REPLICA once it follows a master), or UNKNOWN. */
    public String state() {
        Matcher m = STATE_CHANGE.matcher(jeLog());
        String state = "UNKNOWN";
        while (m.find()) {
            state = m.group(1);
        }
        return state;
    }

    /**
     * Waits until the arbiter follows a master (state REPLICA): only then does it vote and acknowledge. JE keeps
     * looking for the master after {@link #start} returned with UNKNOWN (a busy machine, a master not yet up).
     */
    public ArbiterNode awaitFollowingMaster(Duration timeout) {
        try {
            await("arbiter " + name + " following a master").atMost(timeout).pollInterval(Duration.ofMillis(500))
                    .until(() -> state().equals("REPLICA"));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("arbiter " + name + " did not follow a master within " + timeout
                    + "; its JE log:\n" + BrokerNode.tail(jeLog(), 30), e);
        }
        return this;
    }

    /** {@code docker kill}. */
    public void kill() {
        DockerClientFactory.lazyClient().killContainerCmd(container.getContainerId()).exec();
        LOG.info("arbiter {} killed", name);
    }

    /** Saves the output to {@code target/container-logs} and removes the container. */
    @Override
    public void close() {
        try {
            Path file = ContainerEnvironment.moduleDirectory().resolve("target/container-logs")
                    .resolve(containerName + ".log");
            Files.createDirectories(file.getParent());
            Files.writeString(file, logs());
            if (container.getContainerId() != null) {
                container.copyFileFromContainer(BrokerNode.WORK + "/arbiter/je.info.0", in -> Files.copy(in,
                        file.resolveSibling(containerName + ".log.je.info"),
                        StandardCopyOption.REPLACE_EXISTING));
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("arbiter {}: could not save the container output: {}", name, e.toString());
        } finally {
            container.stop();
        }
    }
}
