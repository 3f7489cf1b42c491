package org.tandembroker.systest.chaos;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;
import org.tandembroker.systest.cluster.BrokerNode;
import org.tandembroker.systest.cluster.ContainerEnvironment;

/**
 * One size-limited work volume per broker node (a Docker {@code local} volume of type tmpfs with {@code size=}),
 * so that the soak can fill a node's store disk and free it again. Docker unmounts (and so empties) such a volume
 * when no container uses it, which would wipe the store at every kill; a small holder container per volume keeps
 * it mounted for the whole run. The holder also runs what needs the files while the broker is down: the filler,
 * and {@code store-digest} (the broker-tools class, from the same read-only {@code /tandem/lib}).
 *
 * <p>Threads: created and closed by the soak's thread; {@link #fill}/{@link #free}/{@link #digest} from the
 * nemesis (one at a time per volume).
 */
final class StoreVolumes implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StoreVolumes.class);
    static final String FILLER = BrokerNode.WORK + "/chaos-filler";

    private final Map<String, String> volumes = new LinkedHashMap<>();
    private final Map<String, GenericContainer<?>> holders = new LinkedHashMap<>();

    /** Creates a volume of {@code sizeMegabytes} for each of {@code nodes} and starts its holder. */
    @SuppressWarnings("resource") // the holders are stopped by close()
    static StoreVolumes create(String runId, List<String> nodes, int sizeMegabytes) {
        StoreVolumes created = new StoreVolumes();
        DockerClient docker = DockerClientFactory.lazyClient();
        try {
            for (String node : nodes) {
                String volume = "tandem-chaos-" + runId + "-" + node + "-work";
                docker.createVolumeCmd().withName(volume).withDriver("local")
                        .withDriverOpts(Map.of("type", "tmpfs", "device", "tmpfs", "o", "size=" + sizeMegabytes + "m"))
                        .exec();
                created.volumes.put(node, volume);
                GenericContainer<?> holder = new GenericContainer<>(
                        DockerImageName.parse(ContainerEnvironment.baseImage()))
                        .withFileSystemBind(ContainerEnvironment.brokerLib().toString(), BrokerNode.HOME + "/lib",
                                BindMode.READ_ONLY)
                        .withLabel("org.tandembroker.systest", "chaos")
                        .withCommand("sleep", "86400")
                        .withCreateContainerCmdModifier(cmd -> {
                            cmd.withName(volume + "-holder");
                            HostConfig host = Objects.requireNonNull(cmd.getHostConfig());
                            List<Bind> binds = new ArrayList<>(host.getBinds() == null ? List.of()
                                    : List.of(host.getBinds()));
                            binds.add(new Bind(volume, new Volume(BrokerNode.WORK)));
                            host.withBinds(binds);
                        });
                holder.start();
                created.holders.put(node, holder);
            }
            return created;
        } catch (RuntimeException e) {
            created.close();
            throw e;
        }
    }

    String volume(String node) {
        return volumes.get(node);
    }

    /** Fills {@code node}'s volume to the last byte (a file of zeros). */
    void fill(String node) {
        exec(node, "sh", "-c", "cat /dev/zero > " + FILLER + " 2>/dev/null; exit 0");
        LOG.info("{}: work volume filled", node);
    }

    /** Empties the filler again. */
    void free(String node) {
        exec(node, "sh", "-c", ": > " + FILLER);
        LOG.info("{}: work volume freed", node);
    }

    /**
     * {@code store-digest} of {@code node}'s store (the node must be stopped): one line per queue, "name depth
     * sha256".
     */
    String digest(String node) {
        Container.ExecResult result = exec(node, "java", "-Xmx128m", "-XX:TieredStopAtLevel=1",
                "-Dlogback.configurationFile=tandem-tools-logback.xml", "-cp", BrokerNode.HOME + "/lib/*",
                "org.tandembroker.tools.digest.StoreDigest", "--store-path",
                BrokerNode.WORK + "/" + org.tandembroker.systest.cluster.StoreSection.STORE_PATH);
        if (result.getExitCode() != 0) {
            throw new IllegalStateException(node + ": store-digest exited " + result.getExitCode() + ": "
                    + result.getStdout() + result.getStderr());
        }
        return result.getStdout();
    }

    private Container.ExecResult exec(String node, String... command) {
        try {
            return holders.get(node).execInContainer(command);
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Stops the holders and removes the volumes (after the nodes are gone). */
    @Override
    public void close() {
        holders.values().forEach(holder -> {
            try {
                holder.stop();
            } catch (RuntimeException e) {
                LOG.warn("could not stop a volume holder: {}", e.toString());
            }
        });
        DockerClient docker = DockerClientFactory.lazyClient();
        volumes.values().forEach(volume -> {
            try {
                docker.removeVolumeCmd(volume).exec();
            } catch (RuntimeException e) {
                LOG.warn("could not remove volume {}: {}", volume, e.toString());
            }
        });
    }
}
