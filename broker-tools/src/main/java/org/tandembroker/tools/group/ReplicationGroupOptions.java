package org.tandembroker.tools.group;

import java.nio.file.Path;
import java.util.regex.Pattern;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine.Option;

/**
 * The options JE's group utilities take ({@code DbResetRepGroup}, {@code DbEnableReplication}): the store
 * directory, and the group and the one node the store will belong to. The spec's spellings ({@code -storePath},
 * {@code -groupName}, {@code -nodeName}, {@code -nodeHostPort}) and JE's {@code -h} are accepted too.
 */
final class ReplicationGroupOptions {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    @Option(names = {"--store-path", "-storePath", "-h"}, paramLabel = "DIR", required = true,
            description = "The store directory (the virtual host's <storePath>; JE's -h).")
    Path storePath;

    @Option(names = {"--group-name", "-groupName"}, paramLabel = "GROUP", required = true,
            description = "The replication group's name (the nodes' <groupName>).")
    String groupName;

    @Option(names = {"--node-name", "-nodeName"}, paramLabel = "NODE", required = true,
            description = "This node's name (its <nodeName>).")
    String nodeName;

    @Option(names = {"--node-host-port", "-nodeHostPort"}, paramLabel = "HOST:PORT", required = true,
            description = "Where this node replicates (its <nodeHostPort>). Run the command on that host: JE binds "
                    + "the port for a moment.")
    String nodeHostPort;

    /** Checks the values as the broker's configuration would; throws a usage failure naming the bad one. */
    void validate() {
        if (!NAME.matcher(groupName).matches()) {
            throw ToolFailure.usage("--group-name '" + groupName + "': 1-64 letters, digits, '.', '_', '-'");
        }
        if (nodeName.isBlank()) {
            throw ToolFailure.usage("--node-name is empty");
        }
        int colon = nodeHostPort.lastIndexOf(':');
        int port;
        try {
            port = colon > 0 ? Integer.parseInt(nodeHostPort.substring(colon + 1)) : -1;
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw ToolFailure.usage("--node-host-port '" + nodeHostPort + "' is not HOST:PORT with a port 1-65535");
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
