package org.tandembroker.systest.cluster;

import java.io.ByteArrayOutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * A wiretap on the replication channel: a container on the cluster's network, at its own fixed address, running
 * {@link CapturingProxy} on the replication port and forwarding to one node. A node built with
 * {@link BrokerNode.Builder#hostOverride(String, String) hostOverride(target, tap.address())} reaches the target
 * through the tap, so every byte the two exchange (the replication stream from a master to that replica included)
 * is in {@link #captured()}, as an eavesdropper on the network would see it.
 *
 * <pre>{@code
 * NodeNetwork network = ...;
 * ReplicationTap tap = ReplicationTap.start(network, 200, network.address(11));   // node1's address
 * ... node2 built with .hostOverride("node1", tap.address()) ...
 * byte[] seen = tap.captured();
 * }</pre>
 */
public final class ReplicationTap implements AutoCloseable {
    private static final String CAPTURE = "/tmp/capture.bin";
    private static final String CLASSES = "/tap";

    private final GenericContainer<?> container;
    private final String address;

    private ReplicationTap(GenericContainer<?> container, String address) {
        this.container = container;
        this.address = address;
    }

    /**
     * Starts a tap at host number {@code host} of {@code network}, forwarding its port
     * {@value BrokerNode#REPLICATION_PORT} to {@code targetAddress}:{@value BrokerNode#REPLICATION_PORT}.
     */
    public static ReplicationTap start(NodeNetwork network, int host, String targetAddress) {
        String address = network.address(host);
        String name = "tandem-tap-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        String classFile = CapturingProxy.class.getName().replace('.', '/') + ".class";
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(ContainerEnvironment.baseImage()))
                .withNetwork(network.network())
                .withCopyToContainer(MountableFile.forHostPath(classesDirectory().resolve(classFile)),
                        CLASSES + "/" + classFile)
                .withCommand("java", "-Xmx32m", "-XX:TieredStopAtLevel=1", "-cp", CLASSES,
                        CapturingProxy.class.getName(), String.valueOf(BrokerNode.REPLICATION_PORT), targetAddress,
                        String.valueOf(BrokerNode.REPLICATION_PORT), CAPTURE)
                .withLabel("org.tandembroker.systest", "cluster")
                .withCreateContainerCmdModifier(cmd -> cmd.withName(name).withIpv4Address(address))
                .waitingFor(Wait.forLogMessage(".*capturing proxy listening.*\\n", 1)
                        .withStartupTimeout(Duration.ofMinutes(1)));
        container.start();
        return new ReplicationTap(container, address);
    }

    /** The tap's address on the network (what the overridden peer name resolves to). */
    public String address() {
        return address;
    }

    /** Every byte forwarded so far, both directions, in the order forwarded. */
    public byte[] captured() {
        return container.copyFileFromContainer(CAPTURE, in -> {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            return bytes.toByteArray();
        });
    }

    /** Whether {@code text} (as UTF-8) occurs anywhere in {@code bytes}. */
    public static boolean contains(byte[] bytes, String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (bytes[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** What the proxy printed (connections it could not forward). */
    public String logs() {
        return container.getLogs();
    }

    @Override
    public void close() {
        container.stop();
    }

    private static Path classesDirectory() {
        try {
            return Path.of(CapturingProxy.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
