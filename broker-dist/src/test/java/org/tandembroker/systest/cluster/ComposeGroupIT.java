package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The documented compose files as a user runs them: {@code docs/deploy/compose-three-nodes.yaml} (three brokers) and
 * {@code docs/deploy/compose-pair-arbiter.yaml} (two brokers and a JE arbiter). The broker image is built with the
 * README's {@code docker build} command, each file is brought up with the Docker compose plugin or Debian's
 * {@code docker-compose}, {@code ha-admin status} is run inside the master's container (the image's own Java runtime
 * and tools), a producer and a consumer run on the failover URL, the master's container is killed
 * ({@code docker kill}), the surviving brokers (with the arbiter's vote in the pair) elect a new master without an
 * operator and the clients continue; every settled message is consumed. Project, image tag and published ports are
 * unique to the run; everything is removed at the end ({@code down -v}, {@code docker rmi}).
 */
class ComposeGroupIT {
    private static final Logger LOG = LoggerFactory.getLogger(ComposeGroupIT.class);
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final Pattern ROLE = Pattern.compile("HA-1001 : Role changed : \\S+ : node (\\S+) is now (\\S+)");

    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static final String IMAGE = "tandem-compose-it:" + RUN;
    private static final String ADMIN_PASSWORD = "compose-" + RUN;
    private static List<String> compose;

    /** A compose file of docs/deploy, its broker services, and the run's project name and published ports. */
    record ComposeFile(String file, List<String> brokers, String project, Map<String, String> environment,
            Map<String, Integer> amqpPorts) {
        static ComposeFile of(String file, String... brokers) {
            return new ComposeFile(file, List.of(brokers), "tandem-compose-it-" + RUN + "-"
                    + file.replaceAll(".*compose-|\\.yaml$", ""), new HashMap<>(), new HashMap<>());
        }

        @Override
        public String toString() {
            return file;
        }
    }

    static List<ComposeFile> files() {
        return List.of(ComposeFile.of("docs/deploy/compose-three-nodes.yaml", "node-a", "node-b", "node-c"),
                ComposeFile.of("docs/deploy/compose-pair-arbiter.yaml", "node-a", "node-b"));
    }

    @BeforeAll
    static void buildImage() throws Exception {
        ContainerEnvironment.requireDocker();
        compose = composeCommand().orElse(null);
        if (compose == null && ContainerEnvironment.isCi()) {
            throw new AssertionError("CI is set but neither 'docker compose' nor 'docker-compose' runs (.ci/run "
                    + "installs Debian's docker-compose)");
        }
        assumeTrue(compose != null, "neither 'docker compose' nor 'docker-compose' is installed: skipped outside CI");
        String base = ContainerEnvironment.baseImage();
        ContainerEnvironment.brokerLib();
        Result built = run(List.of("docker", "build", "-q", "--build-arg", "BASE_IMAGE=" + base, "-t", IMAGE, "-f",
                "broker-dist/src/main/docker/Dockerfile", "."), Map.of("DOCKER_BUILDKIT", "0"), Duration.ofMinutes(5));
        assertThat(built.exitCode()).as("docker build: %s", built.output()).isZero();
    }

    @AfterAll
    static void removeImage() throws Exception {
        if (compose != null) {
            run(List.of("docker", "rmi", "-f", IMAGE), Map.of(), Duration.ofMinutes(1));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("files")
    void composeGroupLosesItsMasterContainerElectsAnotherAndLosesNoSettledMessage(ComposeFile group)
            throws Exception {
        group.environment().put("TANDEM_IMAGE", IMAGE);
        group.environment().put("TANDEM_ADMIN_PASSWORD", ADMIN_PASSWORD);
        group.environment().put("TANDEM_JAVA_OPTS", "-Xmx256m");
        for (String node : group.brokers()) {
            String prefix = node.toUpperCase().replace('-', '_');
            int port = BrokerNode.FreePorts.pick();
            group.amqpPorts().put(node, port);
            group.environment().put(prefix + "_AMQP_PORT", String.valueOf(port));
            group.environment().put(prefix + "_METRICS_PORT", String.valueOf(BrokerNode.FreePorts.pick()));
        }
        try {
            Result up = compose(group, Duration.ofMinutes(3), "up", "-d");
            assertThat(up.exitCode()).as("up: %s", up.output()).isZero();
            String master = awaitSingleMaster(group, null);
            assertHaAdminStatusInside(group, master);

            String url = "failover:(" + String.join(",", group.amqpPorts().values().stream()
                    .map(p -> "amqp://127.0.0.1:" + p).toList()) + ")?" + BrokerCluster.DEFAULT_FAILOVER_OPTIONS;
            JmsConnectionFactory factory = new JmsConnectionFactory("admin", ADMIN_PASSWORD, url);
            try (FailoverTraffic traffic = FailoverTraffic.start("compose-" + RUN, factory)) {
                traffic.awaitProgress(100, DEADLINE);

                Result killed = run(List.of("docker", "kill", container(group, master)), Map.of(),
                        Duration.ofMinutes(1));
                assertThat(killed.exitCode()).as("docker kill: %s", killed.output()).isZero();
                LOG.info("{}: killed the master {}", group.file(), master);

                String newMaster = awaitSingleMaster(group, master);
                assertThat(newMaster).isNotEqualTo(master);
                traffic.awaitProgress(100, DEADLINE);
                ZeroLossChecker.Report report = traffic.finish(DEADLINE);
                report.assertZeroLoss();
                assertThat(report.settled()).isGreaterThanOrEqualTo(200);
            }
        } finally {
            Path logs = ContainerEnvironment.moduleDirectory().resolve("target/container-logs/" + group.project()
                    + ".log");
            Files.createDirectories(logs.getParent());
            Files.writeString(logs, compose(group, Duration.ofMinutes(1), "logs", "--no-color").output());
            compose(group, Duration.ofMinutes(3), "down", "-v", "--remove-orphans");
        }
    }

    /**
     * {@code ha-admin status} run inside the master's container with the image's Java runtime (its JMX client needs
     * the JNDI RMI provider): it lists every broker of the group and names the master.
     */
    private static void assertHaAdminStatusInside(ComposeFile group, String master) throws Exception {
        List<String> command = List.of("docker", "exec", "-e", "TANDEM_JMX_USER=admin", "-e",
                "TANDEM_JMX_PASSWORD=" + ADMIN_PASSWORD, container(group, master), "/tandem/bin/docker-entrypoint",
                "ha-admin", "status");
        String[] last = new String[1];
        // The master lists a replica as REPLICA once its replication statistics name it: ask until they do.
        await("ha-admin status inside " + master + " lists every broker").atMost(DEADLINE)
                .pollInterval(Duration.ofSeconds(1)).until(() -> {
                    Result status = run(command, Map.of(), Duration.ofMinutes(1));
                    last[0] = status.output();
                    assertThat(status.exitCode()).as("%s: %s", command, status.output()).isZero();
                    return group.brokers().stream().filter(node -> !node.equals(master)).allMatch(node -> Pattern
                            .compile(node + "\\s+\\S+:5000\\s+ELECTABLE\\s+REPLICA").matcher(status.output()).find());
                });
        assertThat(last[0]).contains("asked node " + master + " (MASTER)")
                .containsPattern(master + "\\s+\\S+:5000\\s+ELECTABLE\\s+MASTER");
        if (group.brokers().size() == 2) {
            assertThat(last[0]).containsPattern("arbiter\\s+\\S+:5000\\s+ARBITER");
        }
    }

    /** The one broker (not {@code excluded}) whose last logged role is MASTER while the others' is REPLICA. */
    private static String awaitSingleMaster(ComposeFile group, String excluded) {
        String[] found = new String[1];
        await(group.file() + ": one master among the running brokers").atMost(DEADLINE)
                .pollInterval(Duration.ofSeconds(1)).until(() -> {
                    List<String> masters = new ArrayList<>();
                    int replicas = 0;
                    for (String node : group.brokers()) {
                        if (node.equals(excluded)) {
                            continue;
                        }
                        String role = lastRole(group, node);
                        if ("MASTER".equals(role)) {
                            masters.add(node);
                        } else if ("REPLICA".equals(role)) {
                            replicas++;
                        }
                    }
                    if (masters.size() == 1 && masters.size() + replicas
                            == group.brokers().size() - (excluded == null ? 0 : 1)) {
                        found[0] = masters.get(0);
                        return true;
                    }
                    return false;
                });
        return found[0];
    }

    private static String lastRole(ComposeFile group, String node) throws Exception {
        Result logs = run(List.of("docker", "logs", container(group, node)), Map.of(), Duration.ofSeconds(30));
        String role = null;
        Matcher m = ROLE.matcher(logs.output());
        while (m.find()) {
            if (m.group(1).equals(node)) {
                role = m.group(2);
            }
        }
        return role;
    }

    private static String container(ComposeFile group, String service) throws Exception {
        Result id = compose(group, Duration.ofSeconds(30), "ps", "-q", service);
        String value = id.output().strip();
        assertThat(value).as("container of %s: %s", service, id.output()).isNotEmpty();
        return value.lines().reduce((a, b) -> b).orElseThrow();
    }

    private static Optional<List<String>> composeCommand() throws Exception {
        if (run(List.of("docker", "compose", "version"), Map.of(), Duration.ofSeconds(30)).exitCode() == 0) {
            return Optional.of(List.of("docker", "compose"));
        }
        try {
            if (run(List.of("docker-compose", "version"), Map.of(), Duration.ofSeconds(30)).exitCode() == 0) {
                return Optional.of(List.of("docker-compose"));
            }
        } catch (IOException e) {
            // not installed
        }
        return Optional.empty();
    }

    private static Result compose(ComposeFile group, Duration timeout, String... args) throws Exception {
        List<String> command = new ArrayList<>(compose);
        command.addAll(List.of("-p", group.project(), "-f", group.file()));
        command.addAll(List.of(args));
        return run(command, group.environment(), timeout);
    }

    private record Result(int exitCode, String output) {
    }

    /** Runs a command in the repository's root (the compose file's and the image build's directory). */
    private static Result run(List<String> command, Map<String, String> env, Duration timeout) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .directory(ContainerEnvironment.moduleDirectory().getParent().toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        byte[][] output = new byte[1][];
        Thread reader = new Thread(() -> {
            try {
                output[0] = process.getInputStream().readAllBytes();
            } catch (IOException e) {
                output[0] = new byte[0];
            }
        }, "compose-output");
        reader.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            reader.join(5_000);
            throw new AssertionError(command + " did not finish within " + timeout);
        }
        reader.join(10_000);
        return new Result(process.exitValue(), new String(output[0] == null ? new byte[0] : output[0],
                StandardCharsets.UTF_8));
    }
}
