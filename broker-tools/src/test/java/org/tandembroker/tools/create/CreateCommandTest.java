package org.tandembroker.tools.create;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.security.ManagementRole;
import org.tandembroker.core.security.UsersFile;
import org.tandembroker.tools.ToolFailure;

/** {@code tandem create}: files the broker loads, one clear error and nothing written for bad options. */
class CreateCommandTest {
    @TempDir
    Path dir;

    private record Run(int exitCode, String out, String err) {
    }

    private static Run create(String stdin, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] all = new String[args.length + 1];
        all[0] = "create";
        System.arraycopy(args, 0, all, 1, args.length);
        int code = Tandem.run(new PrintWriter(out, true), new PrintWriter(err, true),
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), all);
        return new Run(code, out.toString(), err.toString());
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file);
    }

    private static Path repositoryEtc() {
        return Path.of(System.getProperty("user.dir")).getParent().resolve("etc");
    }

    @Test
    void withDefaultOptionsTheFilesAreExactlyTheShippedOnes() throws IOException {
        Run run = create("", dir.resolve("node").toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        for (String file : NodeFiles.ALL) {
            assertThat(read(dir.resolve("node/etc").resolve(file))).as(file)
                    .isEqualTo(read(repositoryEtc().resolve(file)));
        }
        assertThat(run.out()).contains("standalone broker node").contains("(validated)");
    }

    @Test
    void aReplicatedNodesFilesLoadWithEveryOptionInPlace() throws IOException, ConfigException {
        Path node = dir.resolve("b");
        Run run = create("s3cret\n", node.toString(), "--group-name", "orders", "--node-name", "node-b",
                "--amqp", "127.0.0.1:5673", "--jmx", "127.0.0.1:9002", "--metrics", "127.0.0.1:9405",
                "--advertised-address", "broker-b.example.com:5673", "--node-host-port", "127.0.0.1:5001",
                "--helper-host-port", "127.0.0.1:5000,127.0.0.1:5001", "--durability", "WRITE_NO_SYNC,NO_SYNC,ALL",
                "--designated-primary", "--admin-user", "ops");

        assertThat(run.exitCode()).as(run.err()).isZero();
        BrokerConfig config = BrokerConfigLoader.load(node.resolve("etc/broker.xml"));
        assertThat(config.listeners().get(0).port()).isEqualTo(5673);
        assertThat(config.advertisedClientAddress()).isEqualTo("broker-b.example.com:5673");
        assertThat(config.management().jmx().port()).isEqualTo(9002);
        assertThat(config.management().metrics().port()).isEqualTo(9405);
        var store = config.virtualHosts().get(0).store();
        assertThat(store.type()).isEqualTo("bdb-ha");
        assertThat(store.elements()).containsEntry("groupName", "orders").containsEntry("nodeName", "node-b")
                .containsEntry("nodeHostPort", "127.0.0.1:5001")
                .containsEntry("helperHostPort", "127.0.0.1:5000,127.0.0.1:5001")
                .containsEntry("durability", "WRITE_NO_SYNC,NO_SYNC,ALL").containsEntry("designatedPrimary", "true");
        UsersFile users = UsersFile.load(config.usersFile());
        assertThat(users.user("ops")).hasValueSatisfying(u -> {
            assertThat(u.managementRole()).isEqualTo(ManagementRole.ADMIN);
            assertThat(u.passwordHash().matches("s3cret".toCharArray())).isTrue();
        });
        assertThat(read(node.resolve("etc/vhosts/default.xml"))).contains("<!-- Relative to the broker's WORK");
        assertThat(read(node.resolve("run"))).contains("--config \"$here/etc/broker.xml\"");
        assertThat(Files.isExecutable(node.resolve("run"))).isTrue();
    }

    @Test
    void theAdminPasswordMayComeFromAFile() throws IOException, ConfigException {
        Path secret = Files.writeString(dir.resolve("secret"), "from-file\nignored\n");
        Path node = dir.resolve("n");

        Run run = create("", node.toString(), "--admin-user", "ops", "--admin-password-file", secret.toString(),
                "--no-guest");

        assertThat(run.exitCode()).as(run.err()).isZero();
        UsersFile users = UsersFile.load(node.resolve("etc/users"));
        assertThat(users.user("ops").orElseThrow().passwordHash().matches("from-file".toCharArray())).isTrue();
        assertThat(users.user("guest")).isEmpty();
    }

    @Test
    void anInvalidResultingConfigurationIsOneLineNamingFileElementAndValueAndNothingIsWritten() {
        Path node = dir.resolve("bad");

        Run run = create("", node.toString(), "--node-host-port", "127.0.0.1:5000", "--durability", "FAST,NO_SYNC,ALL");

        assertThat(run.exitCode()).isEqualTo(ToolFailure.USAGE);
        assertThat(run.err().lines()).hasSize(1);
        assertThat(run.err()).contains("default.xml").contains("<store/durability>").contains("'FAST,NO_SYNC,ALL'")
                .contains("allowed:");
        assertThat(node).doesNotExist();
    }

    @Test
    void badOptionsAreRefusedWithOneLineAndNothingWritten() throws IOException {
        Files.createDirectories(dir.resolve("empty"));
        String[][] cases = {
            {"--amqp", "localhost"},
            {"--amqp", "0.0.0.0:70000"},
            {"--jmx", "0.0.0.0:5672"},
            {"--group-name", "g"},
            {"--node-host-port", "127.0.0.1:5000", "--node-name", "has space"},
            {"--group", "0"},
            {"--group", "3", "--arbiter"},
            {"--group", "3", "--amqp", "127.0.0.1:5000"},
            {"--arbiter", "--node-host-port", "127.0.0.1:5000"},
            {"--no-jmx", "--jmx", "127.0.0.1:9001"},
            {"--admin-user", "ops"},
        };
        for (String[] options : cases) {
            String[] args = Stream.concat(Stream.of(dir.resolve("empty").toString()), Stream.of(options))
                    .toArray(String[]::new);

            Run run = create("", args);

            assertThat(run.exitCode()).as(String.join(" ", options) + ": " + run.err()).isEqualTo(ToolFailure.USAGE);
            assertThat(run.err().strip().lines()).as(String.join(" ", options)).hasSize(1);
            try (Stream<Path> left = Files.list(dir.resolve("empty"))) {
                assertThat(left).as(String.join(" ", options)).isEmpty();
            }
        }
    }

    @Test
    void aDirectoryWithFilesIsNeverOverwritten() throws IOException {
        Path node = Files.createDirectories(dir.resolve("existing"));
        Files.writeString(node.resolve("keep"), "mine");

        Run run = create("", node.toString());

        assertThat(run.exitCode()).isEqualTo(ToolFailure.USAGE);
        assertThat(run.err()).contains("a new or empty directory");
        assertThat(read(node.resolve("keep"))).isEqualTo("mine");
    }

    @Test
    void aLoopbackGroupHasValidNodesOnDistinctPortsAndItsScripts() throws IOException, ConfigException {
        Path group = dir.resolve("group");

        Run run = create("pw\n", group.toString(), "--group", "3", "--admin-user", "admin");

        assertThat(run.exitCode()).as(run.err()).isZero();
        java.util.Set<Integer> ports = new java.util.HashSet<>();
        for (String name : new String[] {"node-a", "node-b", "node-c"}) {
            BrokerConfig config = BrokerConfigLoader.load(group.resolve(name).resolve("etc/broker.xml"));
            var store = config.virtualHosts().get(0).store();
            assertThat(store.elements()).containsEntry("nodeName", name).containsEntry("helperHostPort",
                    BrokerConfigLoader.load(group.resolve("node-a/etc/broker.xml")).virtualHosts().get(0).store()
                            .elements().get("nodeHostPort"));
            ports.add(config.listeners().get(0).port());
            ports.add(config.management().jmx().port());
            ports.add(config.management().metrics().port());
            ports.add(Integer.parseInt(store.elements().get("nodeHostPort").split(":")[1]));
            assertThat(config.listeners().get(0).host()).isEqualTo("127.0.0.1");
            assertThat(run.out()).contains(name).contains("amqp://127.0.0.1:" + config.listeners().get(0).port());
        }
        assertThat(ports).hasSize(12);
        for (String script : new String[] {"start", "stop", "status"}) {
            assertThat(Files.isExecutable(group.resolve(script))).as(script).isTrue();
        }
        assertThat(run.out()).contains("Start:").contains("Stop:").contains("Status:").contains("Watch:")
                .contains("bin/ha-admin status");
    }

    @Test
    void aPairWithAnArbiterGetsAnArbiterDirectoryNamingBothBrokers() throws IOException, ConfigException {
        Path group = dir.resolve("pair");

        Run run = create("", group.toString(), "--group", "2", "--arbiter");

        assertThat(run.exitCode()).as(run.err()).isZero();
        String a = BrokerConfigLoader.load(group.resolve("node-a/etc/broker.xml")).virtualHosts().get(0).store()
                .elements().get("nodeHostPort");
        String b = BrokerConfigLoader.load(group.resolve("node-b/etc/broker.xml")).virtualHosts().get(0).store()
                .elements().get("nodeHostPort");
        assertThat(read(group.resolve("arbiter/run"))).contains("bin/arbiter\" --group-name tandem --node-name arbiter")
                .contains("--helper-host-port " + a + "," + b);
        assertThat(read(group.resolve("start"))).contains("members=(node-a node-b arbiter)");
    }

    @Test
    void anArbiterDirectoryAlone() throws IOException {
        Run run = create("", dir.resolve("arb").toString(), "--arbiter", "--group-name", "orders", "--node-host-port",
                "127.0.0.1:5002", "--helper-host-port", "127.0.0.1:5000,127.0.0.1:5001");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(read(dir.resolve("arb/run"))).contains("--group-name orders --node-name arb --node-host-port "
                + "127.0.0.1:5002 --helper-host-port 127.0.0.1:5000,127.0.0.1:5001");
        assertThat(dir.resolve("arb/etc")).doesNotExist();
    }
}
