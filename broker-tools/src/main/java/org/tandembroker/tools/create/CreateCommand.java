package org.tandembroker.tools.create;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.tandembroker.tools.ToolFailure;
import org.tandembroker.tools.create.NodeSettings.HostPort;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code tandem create DIR}: writes a node's {@code etc/} (broker.xml, vhosts/default.xml, users, permissions, logback.xml) from
 * options, or with {@code --group N} a whole group on this machine (loopback ports picked) with the scripts to start,
 * stop and watch it, or with {@code --arbiter} an arbiter's directory. Every file is validated by the broker's own
 * loader and store factories before the command returns; on any error it removes what it wrote and prints one line
 * (exit code 2 for a bad option or an invalid resulting configuration).
 *
 * <p>Each created directory gets a {@code run} script (the broker or arbiter in the foreground, as a supervisor
 * wants it); a group directory also {@code start}, {@code stop} and {@code status}. docs/operations.md, "Creating
 * nodes", is the operator's guide.
 *
 * <p><b>Threads.</b> The tool's main thread.
 */
@Command(name = "create", sortOptions = false, usageHelpAutoWidth = true,
        customSynopsis = {"tandem create DIR [--node-host-port HOST:PORT --helper-host-port LIST [--group-name NAME]]",
                "                  [--node-name NAME] [--amqp HOST:PORT] [--jmx HOST:PORT | --no-jmx]",
                "                  [--metrics HOST:PORT] [--advertised-address HOST:PORT] [--durability D]",
                "                  [--designated-primary] [--admin-user NAME [--admin-password-file FILE]] [--no-guest]",
                "tandem create DIR --group N [--arbiter] [--designated-primary] [--admin-user NAME ...]",
                "tandem create DIR --arbiter --node-host-port HOST:PORT --helper-host-port LIST [--group-name NAME]",
                "                  [--node-name NAME]"},
        description = {"Writes a node's etc/ (or a group's, or an arbiter's directory), validated by the broker's own "
                + "loader. DIR must be new or empty. The admin user's password is read from --admin-password-file, "
                + "else from the terminal, else as the first line of standard input."})
public final class CreateCommand implements Callable<Integer> {
    static final String DEFAULT_GROUP_NAME = "tandem";
    static final int MAX_GROUP = 9;

    @ParentCommand
    Tandem parent;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "The node's directory (new or empty).")
    Path directory;

    @Option(names = "--group", paramLabel = "N",
            description = "Create N nodes on this machine (DIR/node-a, ...), loopback ports picked and printed, "
                    + "with DIR/start, DIR/stop and DIR/status.")
    Integer group;

    @Option(names = "--group-name", paramLabel = "NAME", description = "The replication group (default tandem).")
    String groupName;

    @Option(names = "--node-name", paramLabel = "NAME", description = "This node's name (default: DIR's name).")
    String nodeName;

    @Option(names = "--amqp", paramLabel = "HOST:PORT", description = "The AMQP listener (default 0.0.0.0:5672).")
    String amqp;

    @Option(names = "--advertised-address", paramLabel = "HOST:PORT",
            description = "The address other nodes redirect clients to (default: this machine's name and the AMQP port).")
    String advertisedAddress;

    @Option(names = "--jmx", paramLabel = "HOST:PORT", description = "The JMX connector (default 0.0.0.0:9001).")
    String jmx;

    @Option(names = "--no-jmx", description = "No JMX connector.")
    boolean noJmx;

    @Option(names = "--metrics", paramLabel = "HOST:PORT", description = "The Prometheus endpoint (default: none).")
    String metrics;

    @Option(names = "--node-host-port", paramLabel = "HOST:PORT",
            description = "Where this node replicates: makes it a node of a replicated group (store type bdb-ha).")
    String nodeHostPort;

    @Option(names = "--helper-host-port", paramLabel = "HOST:PORT[,HOST:PORT]",
            description = "The nodes a new node contacts to join (default: --node-host-port, for the first node).")
    String helperHostPort;

    @Option(names = "--durability", paramLabel = "D",
            description = "bdb-ha: SYNC_POLICY,SYNC_POLICY,ACK_POLICY (default NO_SYNC,NO_SYNC,SIMPLE_MAJORITY); "
                    + "standalone: NO_SYNC, WRITE_NO_SYNC or SYNC (default NO_SYNC).")
    String durability;

    @Option(names = "--designated-primary",
            description = "Two-node groups: this node (with --group 2: node-a) may be master alone.")
    boolean designatedPrimary;

    @Option(names = "--arbiter",
            description = "Create an arbiter's directory (with --group 2: add one to the pair).")
    boolean arbiter;

    @Option(names = "--admin-user", paramLabel = "NAME", description = "Add an operator with JMX role admin.")
    String adminUser;

    @Option(names = "--admin-password-file", paramLabel = "FILE",
            description = "The admin user's password: the file's first line.")
    Path adminPasswordFile;

    @Option(names = "--no-guest", description = "Leave out the shipped loopback-only guest user.")
    boolean noGuest;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Path dir = directory.toAbsolutePath().normalize();
        checkDirectory(dir);
        char[] password = adminUser == null ? null : readPassword();
        List<CreatedDirectory> plan;
        if (group != null) {
            plan = groupPlan(dir, password);
        } else if (arbiter) {
            plan = List.of(arbiterPlan(dir));
        } else {
            plan = List.of(CreatedDirectory.broker(dir, singleNode(dir, password)));
        }
        boolean existed = Files.isDirectory(dir);
        try {
            for (CreatedDirectory created : plan) {
                created.write(tandemHome());
            }
            for (CreatedDirectory created : plan) {
                created.validate();
            }
            if (group != null) {
                GroupScripts.write(dir, plan, tandemHome());
            }
        } catch (RuntimeException e) {
            removeWritten(dir, existed);
            throw e;
        } finally {
            if (password != null) {
                Arrays.fill(password, '\0');
            }
        }
        if (group != null) {
            GroupScripts.describe(out, dir, plan, adminUser);
        } else {
            plan.get(0).describe(out);
        }
        return ToolFailure.OK;
    }

    private NodeSettings singleNode(Path dir, char[] password) {
        Optional<HostPort> replication = Optional.ofNullable(nodeHostPort).map(v -> HostPort.parse("--node-host-port", v));
        if (replication.isEmpty()) {
            refuseWithout("--node-host-port", "a replicated node", groupName != null, "--group-name");
            refuseWithout("--node-host-port", "a replicated node", helperHostPort != null, "--helper-host-port");
            refuseWithout("--node-host-port", "a replicated node", designatedPrimary, "--designated-primary");
            refuseWithout("--node-host-port", "a replicated node", nodeName != null, "--node-name");
        }
        HostPort amqpAddress = HostPort.parse("--amqp", amqp == null ? "0.0.0.0:5672" : amqp);
        Optional<HostPort> jmxAddress = jmxAddress();
        Optional<HostPort> metricsAddress = Optional.ofNullable(metrics).map(v -> HostPort.parse("--metrics", v));
        Optional<String> advertised = Optional.ofNullable(advertisedAddress)
                .map(v -> HostPort.parse("--advertised-address", v).toString());
        String helpers = helperHostPort == null ? replication.map(HostPort::toString).orElse("")
                : helpers(helperHostPort);
        NodeSettings node = new NodeSettings(groupName == null ? DEFAULT_GROUP_NAME : groupName,
                nodeName == null ? String.valueOf(dir.getFileName()) : nodeName, amqpAddress, advertised, jmxAddress,
                metricsAddress, replication, helpers,
                durability != null ? durability
                        : replication.isPresent() ? NodeSettings.HA_DURABILITY : NodeSettings.STANDALONE_DURABILITY,
                designatedPrimary, Optional.ofNullable(adminUser), password, !noGuest);
        checkDistinctSockets(node);
        return node;
    }

    private Optional<HostPort> jmxAddress() {
        if (noJmx && jmx != null) {
            throw ToolFailure.usage("--no-jmx and --jmx " + jmx + " contradict each other; allowed: one of them");
        }
        return noJmx ? Optional.empty() : Optional.of(HostPort.parse("--jmx", jmx == null ? "0.0.0.0:9001" : jmx));
    }

    private CreatedDirectory arbiterPlan(Path dir) {
        for (String[] option : new String[][] {{"--amqp", amqp}, {"--jmx", jmx}, {"--metrics", metrics},
                {"--advertised-address", advertisedAddress}, {"--durability", durability}, {"--admin-user", adminUser}}) {
            if (option[1] != null) {
                throw ToolFailure.usage(option[0] + " cannot be used with --arbiter; allowed with it: --node-name, "
                        + "--group-name, --node-host-port, --helper-host-port (an arbiter serves no clients)");
            }
        }
        if (designatedPrimary || noJmx || noGuest) {
            throw ToolFailure.usage("--designated-primary, --no-jmx and --no-guest cannot be used with --arbiter");
        }
        if (nodeHostPort == null || helperHostPort == null) {
            throw ToolFailure.usage("--arbiter needs --node-host-port (where it listens) and --helper-host-port (the "
                    + "two brokers' --node-host-port)");
        }
        HostPort listen = HostPort.parse("--node-host-port", nodeHostPort);
        return CreatedDirectory.arbiter(dir, new ArbiterSettings(groupName == null ? DEFAULT_GROUP_NAME : groupName,
                nodeName == null ? String.valueOf(dir.getFileName()) : nodeName, listen, helpers(helperHostPort)));
    }

    private List<CreatedDirectory> groupPlan(Path dir, char[] password) {
        if (group < 1 || group > MAX_GROUP) {
            throw CreateFailure.badOption("--group", String.valueOf(group), "1 to " + MAX_GROUP + " nodes");
        }
        for (String[] option : new String[][] {{"--amqp", amqp}, {"--jmx", jmx}, {"--metrics", metrics},
                {"--node-host-port", nodeHostPort}, {"--helper-host-port", helperHostPort}, {"--node-name", nodeName},
                {"--advertised-address", advertisedAddress}}) {
            if (option[1] != null) {
                throw ToolFailure.usage(option[0] + " cannot be used with --group (it picks every node's loopback "
                        + "ports and names the nodes node-a, node-b, ...)");
            }
        }
        if (noJmx) {
            throw ToolFailure.usage("--no-jmx cannot be used with --group (status and ha-admin use JMX)");
        }
        if (arbiter && group != 2) {
            throw ToolFailure.usage("--arbiter with --group is for a pair: --group 2 --arbiter (a group of "
                    + group + " needs none)");
        }
        if (designatedPrimary && (group != 2 || arbiter)) {
            throw ToolFailure.usage("--designated-primary with --group is for a pair without an arbiter: "
                    + "--group 2 --designated-primary");
        }
        int portsPerNode = 4;
        List<Integer> ports = freeLoopbackPorts(group * portsPerNode + (arbiter ? 1 : 0));
        String loopback = "127.0.0.1";
        HostPort firstReplication = new HostPort(loopback, ports.get(3));
        List<CreatedDirectory> plan = new ArrayList<>();
        for (int i = 0; i < group; i++) {
            String name = "node-" + (char) ('a' + i);
            int base = i * portsPerNode;
            HostPort amqpAddress = new HostPort(loopback, ports.get(base));
            NodeSettings node = new NodeSettings(groupName == null ? DEFAULT_GROUP_NAME : groupName, name, amqpAddress,
                    Optional.of(amqpAddress.toString()), Optional.of(new HostPort(loopback, ports.get(base + 1))),
                    Optional.of(new HostPort(loopback, ports.get(base + 2))),
                    Optional.of(new HostPort(loopback, ports.get(base + 3))), firstReplication.toString(),
                    durability == null ? NodeSettings.HA_DURABILITY : durability, designatedPrimary && i == 0,
                    Optional.ofNullable(adminUser), password, !noGuest);
            plan.add(CreatedDirectory.broker(dir.resolve(name), node));
        }
        if (arbiter) {
            String helpers = plan.stream().map(c -> c.node().nodeHostPort().orElseThrow().toString())
                    .reduce((a, b) -> a + "," + b).orElseThrow();
            plan.add(CreatedDirectory.arbiter(dir.resolve("arbiter"), new ArbiterSettings(
                    groupName == null ? DEFAULT_GROUP_NAME : groupName, "arbiter",
                    new HostPort(loopback, ports.get(ports.size() - 1)), helpers)));
        }
        return plan;
    }

    private static void refuseWithout(String needed, String what, boolean given, String option) {
        if (given) {
            throw ToolFailure.usage(option + " is for " + what + ": give " + needed + " too (or leave " + option
                    + " out for a standalone broker)");
        }
    }

    private static String helpers(String list) {
        List<String> parsed = new ArrayList<>();
        for (String part : list.split(",", -1)) {
            parsed.add(HostPort.parse("--helper-host-port", part).toString());
        }
        return String.join(",", parsed);
    }

    /** A node's listeners and its replication port must not share a socket: the second bind would fail. */
    private static void checkDistinctSockets(NodeSettings node) {
        List<String[]> sockets = new ArrayList<>();
        sockets.add(new String[] {"--amqp", node.amqp().toString()});
        node.jmx().ifPresent(j -> sockets.add(new String[] {"--jmx", j.toString()}));
        node.metrics().ifPresent(m -> sockets.add(new String[] {"--metrics", m.toString()}));
        node.nodeHostPort().ifPresent(r -> sockets.add(new String[] {"--node-host-port", r.toString()}));
        for (int i = 0; i < sockets.size(); i++) {
            for (int j = i + 1; j < sockets.size(); j++) {
                HostPort a = HostPort.parse(sockets.get(i)[0], sockets.get(i)[1]);
                HostPort b = HostPort.parse(sockets.get(j)[0], sockets.get(j)[1]);
                if (a.sameSocketAs(b)) {
                    throw CreateFailure.badOption(sockets.get(j)[0], sockets.get(j)[1], "a port not used by "
                            + sockets.get(i)[0] + " " + sockets.get(i)[1] + " on the same address");
                }
            }
        }
    }

    private void checkDirectory(Path dir) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw CreateFailure.badOption("DIR", directory.toString(), "a new or empty directory (" + dir
                    + " is a file)");
        }
        if (Files.isDirectory(dir)) {
            try (Stream<Path> entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    throw CreateFailure.badOption("DIR", directory.toString(), "a new or empty directory (tandem "
                            + "create never overwrites a node's files)");
                }
            } catch (IOException e) {
                throw ToolFailure.refused("cannot read " + dir + ": " + e.getMessage());
            }
        }
    }

    private char[] readPassword() {
        if (!org.tandembroker.core.security.UserAccount.isValidName(adminUser)) {
            throw CreateFailure.badOption("--admin-user", adminUser,
                    org.tandembroker.core.security.UserAccount.NAME_RULE);
        }
        char[] password;
        try {
            if (adminPasswordFile != null) {
                List<String> lines = Files.readAllLines(adminPasswordFile, StandardCharsets.UTF_8);
                password = lines.isEmpty() ? new char[0] : lines.get(0).toCharArray();
            } else if (System.console() != null && parent.standardInput() == System.in) {
                Console console = System.console();
                password = console.readPassword("Password for %s: ", adminUser);
                char[] again = password == null ? null : console.readPassword("Repeat the password: ");
                if (password == null || again == null || !Arrays.equals(password, again)) {
                    throw ToolFailure.usage("the passwords for " + adminUser + " differ (or none was given)");
                }
            } else {
                String line = new BufferedReader(new InputStreamReader(parent.standardInput(), StandardCharsets.UTF_8))
                        .readLine();
                password = line == null ? new char[0] : line.toCharArray();
            }
        } catch (IOException e) {
            throw ToolFailure.usage("cannot read the password of " + adminUser + ": " + e.getMessage());
        }
        if (password.length == 0) {
            throw ToolFailure.usage("no password for --admin-user " + adminUser + "; allowed: a non-empty first line "
                    + "of --admin-password-file or of standard input");
        }
        return password;
    }

    /** Loopback ports free now, all different (each kept bound until every one is picked). */
    private static List<Integer> freeLoopbackPorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            }
            return sockets.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find free loopback ports", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // nothing bound to release
                }
            }
        }
    }

    private static void removeWritten(Path dir, boolean existed) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> paths = walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList();
            for (Path p : paths) {
                if (!existed || !p.equals(dir)) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove what was written in " + dir, e);
        }
    }

    static Path tandemHome() {
        return Path.of(System.getProperty("tandem.home", ".")).toAbsolutePath().normalize();
    }
}
