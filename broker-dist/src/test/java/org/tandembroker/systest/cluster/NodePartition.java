package org.tandembroker.systest.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * A network partition between two nodes that leaves every interface up: packets between the two nodes' addresses
 * are dropped (iptables {@code DROP} in {@code INPUT} and {@code OUTPUT} of each node's network namespace), while
 * the clients (the test JVM, through the published ports, whose packets come from the network's gateway) still
 * reach both. So each node sees its peer fall silent (no reset, as when a link or a switch fails), and JE, which
 * checks that a node's {@code nodeHostPort} names an address of its machine, still accepts designating it (it
 * does not after {@link BrokerNode#disconnect()}, which removes the interface: {@code je.rep.nodeHostPort Invalid
 * hostname}).
 *
 * <p>The rules are set from the host ({@code nsenter -t PID -n iptables ...} with the container's process id), so
 * the image needs no iptables and the containers no {@code NET_ADMIN}; the test JVM must run as root on the
 * Docker host, with {@code nsenter} (util-linux) and {@code iptables} installed ({@code .ci/run} installs them):
 * {@link #requireAvailable()} checks that. {@link #heal()} deletes exactly the rules {@link #between} inserted.
 * A container stopped or restarted meanwhile has lost its network namespace and the rules in it (a restarted node
 * is still cut off by its peer's rules until {@link #heal()}).
 *
 * <p>Not thread-safe: one test thread owns a partition.
 */
public final class NodePartition implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodePartition.class);
    private static final long COMMAND_SECONDS = 20;

    private final BrokerNode first;
    private final BrokerNode second;
    private final List<Rule> inserted = new ArrayList<>();

    private NodePartition(BrokerNode first, BrokerNode second) {
        this.first = first;
        this.second = second;
    }

    /**
     * Returns when partitions can be made here: root, {@code nsenter} and {@code iptables} present. Otherwise
     * skips the calling test (JUnit assumption) with the reason outside CI, and fails it when {@code CI} is set
     * ({@code .ci/run} installs both and runs as root), as {@link ContainerEnvironment#requireDocker()} does.
     */
    public static void requireAvailable() {
        Optional<String> missing = missing();
        if (missing.isEmpty()) {
            return;
        }
        String reason = missing.get() + ": a partition that drops packets between two containers cannot be made "
                + "(NodePartition runs nsenter -t PID -n iptables on the Docker host)";
        if (ContainerEnvironment.isCi()) {
            throw new AssertionError("CI is set but " + reason + "; .ci/run installs iptables and util-linux");
        }
        assumeTrue(false, reason + "; test skipped (outside CI only)");
    }

    /** Cuts {@code first} and {@code second} off from each other, in both directions; returns once it holds. */
    public static NodePartition between(BrokerNode first, BrokerNode second) {
        NodePartition partition = new NodePartition(first, second);
        try {
            partition.drop(first, second);
            partition.drop(second, first);
        } catch (RuntimeException e) {
            try {
                partition.heal();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        LOG.info("partition between {} and {}: packets dropped", first.name(), second.name());
        return partition;
    }

    /**
     * Deletes the rules this partition inserted; a second call does nothing. The rules of a node stopped or
     * restarted meanwhile went with its network namespace: nothing to delete there.
     */
    public void heal() {
        RuntimeException failure = null;
        for (Rule rule : List.copyOf(inserted)) {
            try {
                if (rule.namespaceExists()) {
                    iptables(rule, "-D");
                }
                inserted.remove(rule);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        LOG.info("partition between {} and {} healed", first.name(), second.name());
    }

    /** Whether rules of this partition are in place. */
    public boolean isInPlace() {
        return !inserted.isEmpty();
    }

    @Override
    public void close() {
        if (isInPlace()) {
            heal();
        }
    }

    private void drop(BrokerNode node, BrokerNode peer) {
        long pid = processOf(node).orElseThrow(() -> new IllegalStateException(node.name()
                + " is not running: no network namespace to enter"));
        String peerAddress = peer.identity().ipAddress();
        for (Rule rule : List.of(new Rule(node, pid, "INPUT", "-s", peerAddress),
                new Rule(node, pid, "OUTPUT", "-d", peerAddress))) {
            iptables(rule, "-I");
            inserted.add(rule);
        }
    }

    /** {@code nsenter -t PID -n iptables -w ACTION CHAIN -s|-d ADDRESS -j DROP}. */
    private static void iptables(Rule rule, String action) {
        List<String> command = List.of(nsenter().orElseThrow(), "-t", String.valueOf(rule.pid()), "-n",
                iptablesPath().orElseThrow(), "-w", action, rule.chain(), rule.direction(), rule.address(), "-j",
                "DROP");
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within "
                        + COMMAND_SECONDS + " s");
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " (" + rule.node().name() + ") failed "
                        + "(exit " + process.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
    }

    /** One DROP rule in {@code node}'s network namespace, entered through its process {@code pid}. */
    private record Rule(BrokerNode node, long pid, String chain, String direction, String address) {
        /** Whether the namespace the rule was set in still exists: the node runs the same process. */
        boolean namespaceExists() {
            return processOf(node).equals(Optional.of(pid));
        }
    }

    /** The host's process id of the container's first process (its network namespace is the node's), if it runs. */
    private static Optional<Long> processOf(BrokerNode node) {
        var state = DockerClientFactory.lazyClient().inspectContainerCmd(node.container().getContainerId()).exec()
                .getState();
        Long pid = state.getPidLong();
        return Boolean.TRUE.equals(state.getRunning()) && pid != null && pid > 0 ? Optional.of(pid) : Optional.empty();
    }

    private static Optional<String> missing() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("the tests do not run as root (user " + System.getProperty("user.name") + ")");
        }
        if (nsenter().isEmpty()) {
            return Optional.of("no nsenter (util-linux) in /usr/bin, /bin or PATH");
        }
        if (iptablesPath().isEmpty()) {
            return Optional.of("no iptables in /usr/sbin, /sbin or PATH");
        }
        return Optional.empty();
    }

    private static Optional<String> nsenter() {
        return executable("nsenter", "/usr/bin", "/bin");
    }

    private static Optional<String> iptablesPath() {
        return executable("iptables", "/usr/sbin", "/sbin");
    }

    private static Optional<String> executable(String name, String... directories) {
        List<String> candidates = new ArrayList<>(List.of(directories));
        String path = System.getenv("PATH");
        if (path != null) {
            candidates.addAll(List.of(path.split(":")));
        }
        return candidates.stream().filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable).map(Path::toString).findFirst();
    }
}
