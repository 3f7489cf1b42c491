package org.tandembroker.store.bdb.tools;

import java.nio.file.Path;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * The options JE's group utilities take ({@code DbResetRepGroup}, {@code DbEnableReplication}), named as the spec's
 * examples name them: the store directory, and the group and the one node the store will belong to.
 */
final class ReplicationGroupOptions {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    @Option(names = {"-storePath", "--store-path", "-h"}, paramLabel = "DIR", required = true,
            description = "The store directory (the virtual host's <storePath>; JE's -h).")
    Path storePath;

    @Option(names = {"-groupName", "--group-name"}, paramLabel = "GROUP", required = true,
            description = "The replication group's name (the nodes' <groupName>).")
    String groupName;

    @Option(names = {"-nodeName", "--node-name"}, paramLabel = "NODE", required = true,
            description = "This node's name (its <nodeName>).")
    String nodeName;

    @Option(names = {"-nodeHostPort", "--node-host-port"}, paramLabel = "HOST:PORT", required = true,
            description = "Where this node replicates (its <nodeHostPort>). Run the command on that host: JE binds "
                    + "the port for a moment.")
    String nodeHostPort;

    /** Checks the values as the broker's configuration would; throws a usage failure naming the bad one. */
    void validate() {
        if (!NAME.matcher(groupName).matches()) {
            throw ToolFailure.usage("-groupName '" + groupName + "': 1-64 letters, digits, '.', '_', '-'");
        }
        if (nodeName.isBlank()) {
            throw ToolFailure.usage("-nodeName is empty");
        }
        int colon = nodeHostPort.lastIndexOf(':');
        int port;
        try {
            port = colon > 0 ? Integer.parseInt(nodeHostPort.substring(colon + 1)) : -1;
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw ToolFailure.usage("-nodeHostPort '" + nodeHostPort + "' is not HOST:PORT with a port 1-65535");
        }
    }

    /** The {@code <store>} element of the node's virtual host file after the command. */
    String storeElement() {
        return String.join(System.lineSeparator(),
                "  <store type=\"bdb-ha\">",
                "    <storePath>" + storePath.toAbsolutePath().normalize() + "</storePath>",
                "    <groupName>" + groupName + "</groupName>",
                "    <nodeName>" + nodeName + "</nodeName>",
                "    <nodeHostPort>" + nodeHostPort + "</nodeHostPort>",
                "    <helperHostPort>" + nodeHostPort + "</helperHostPort>",
                "    <!-- durability, coalescingSync, designatedPrimary, maxDisk ... as before; see docs/ha.md -->",
                "  </store>");
    }
}
