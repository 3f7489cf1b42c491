package org.tandembroker.tools.create;

import com.sleepycat.je.rep.ReplicationConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.ConfigVariables;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.UsersFile;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.tools.ToolFailure;

/**
 * One directory {@code tandem create} makes: a broker node ({@code etc/} and a {@code run} script) or an arbiter
 * (a {@code run} script). Written, then validated the way the broker (or the arbiter) would read it.
 *
 * @param dir     the directory
 * @param node    the broker node's settings, or null for an arbiter
 * @param arbiter the arbiter's settings, or null for a broker node
 */
record CreatedDirectory(Path dir, NodeSettings node, ArbiterSettings arbiter) {
    static final String RUN = "run";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    static CreatedDirectory broker(Path dir, NodeSettings node) {
        return new CreatedDirectory(dir, node, null);
    }

    static CreatedDirectory arbiter(Path dir, ArbiterSettings arbiter) {
        return new CreatedDirectory(dir, null, arbiter);
    }

    String name() {
        return node != null ? node.nodeName() : arbiter.nodeName();
    }

    Path etc() {
        return dir.resolve("etc");
    }

    Path work() {
        return dir.resolve("work");
    }

    void write(Path tandemHome) {
        try {
            Files.createDirectories(dir);
            if (node != null) {
                for (Map.Entry<String, String> file : NodeFiles.render(node).entrySet()) {
                    Path target = etc().resolve(file.getKey());
                    Files.createDirectories(target.getParent());
                    Files.writeString(target, file.getValue(), StandardCharsets.UTF_8);
                }
                if (node.adminUser().isPresent()) {
                    // The users file holds password hashes: readable by its owner only.
                    restrict(etc().resolve(NodeFiles.USERS), "rw-------");
                }
            }
            writeScript(dir.resolve(RUN), runScript(tandemHome));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir, e);
        }
    }

    /** Loads what was written as the broker would; a problem is a usage failure naming the file and element. */
    void validate() {
        if (node == null) {
            validateArbiter();
            return;
        }
        try {
            BrokerConfig config = BrokerConfigLoader.load(etc().resolve(NodeFiles.BROKER), Map.of(),
                    ConfigVariables.NONE);
            UsersFile.load(config.usersFile());
            for (VirtualHostConfig host : config.virtualHosts()) {
                MessageStoreFactory factory = ServiceLoader.load(MessageStoreFactory.class).stream()
                        .map(ServiceLoader.Provider::get).filter(f -> f.type().equals(host.store().type()))
                        .findFirst().orElseThrow(() -> new IllegalStateException("no store factory for "
                                + host.store().type() + " on the class path"));
                StoreContext context = new StoreContext(host.name(), work(), config.advertisedClientAddress(),
                        new OperationalLog());
                MessageStore store;
                try {
                    store = factory.create(host.store(), context);
                } catch (ConfigException e) {
                    throw host.store().namingSources(e);
                }
                store.close();
            }
        } catch (ConfigException e) {
            throw ToolFailure.usage("the options give an invalid configuration (nothing was written): "
                    + e.getMessage());
        }
    }

    private void validateArbiter() {
        for (String[] name : new String[][] {{"--group-name", arbiter.groupName()}, {"--node-name", arbiter.nodeName()}}) {
            if (!NAME.matcher(name[1]).matches()) {
                throw CreateFailure.badOption(name[0], name[1], "1-64 letters, digits, '.', '_' or '-'");
            }
        }
        try {
            new ReplicationConfig(arbiter.groupName(), arbiter.nodeName(), arbiter.nodeHostPort().toString())
                    .setHelperHosts(arbiter.helperHostPort());
        } catch (IllegalArgumentException e) {
            throw CreateFailure.badOption("--node-host-port", arbiter.nodeHostPort().toString(),
                    "HOST:PORT whose host resolves on this machine, helpers HOST:PORT[,HOST:PORT]; JE says: "
                            + ToolFailure.firstLine(e));
        }
    }

    private String runScript(Path tandemHome) {
        String header = """
                #!/usr/bin/env bash
                # Written by tandem create. Runs %s in the foreground (as a supervisor wants it); SIGTERM or
                # Ctrl-C stops it. TANDEM_HOME (default: the installation that created it) and JAVA_OPTS are honoured.
                set -euo pipefail
                here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
                created_by=%s
                TANDEM_HOME="${TANDEM_HOME:-$created_by}"
                """.formatted(node != null ? "broker node " + name() : "the arbiter " + name(),
                shellQuoted(tandemHome.toString()));
        if (node != null) {
            return header + "exec \"$TANDEM_HOME/bin/broker\" --config \"$here/etc/broker.xml\" --work \"$here/work\"\n";
        }
        return header + "exec \"$TANDEM_HOME/bin/arbiter\" --group-name " + arbiter.groupName() + " --node-name "
                + arbiter.nodeName() + " --node-host-port " + arbiter.nodeHostPort() + " --helper-host-port "
                + arbiter.helperHostPort() + " --dir \"$here/work\"\n";
    }

    /** What was created, for the operator. */
    void describe(PrintWriter out) {
        if (node == null) {
            out.println("Created arbiter " + name() + " of group " + arbiter.groupName() + " in " + dir);
            out.println("  listens on " + arbiter.nodeHostPort() + "; brokers " + arbiter.helperHostPort());
            out.println("Run it:   " + dir.resolve(RUN));
            return;
        }
        out.println("Created " + (node.replicated() ? "node " + name() + " of group " + node.groupName()
                : "standalone broker " + name()) + " in " + dir);
        out.println("  etc/broker.xml, etc/vhosts/default.xml, etc/users, etc/permissions, etc/logback.xml (validated)");
        out.println("  AMQP " + node.amqp() + node.jmx().map(j -> ", JMX " + j).orElse(", no JMX")
                + node.metrics().map(m -> ", metrics http://" + m + "/metrics").orElse(""));
        node.nodeHostPort().ifPresent(r -> out.println("  replicates on " + r + ", helpers " + node.helperHostPort()
                + ", durability " + node.durability() + (node.designatedPrimary() ? ", designated primary" : "")));
        node.adminUser().ifPresent(u -> out.println("  admin user " + u + " (JMX role admin)"));
        out.println("Run it:   " + dir.resolve(RUN) + "   (bin/broker --config " + etc().resolve(NodeFiles.BROKER)
                + " --work " + work() + ")");
    }

    static void writeScript(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
        restrict(file, "rwxr-xr-x");
    }

    private static void restrict(Path file, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the platform's defaults apply
        }
    }

    static String shellQuoted(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
