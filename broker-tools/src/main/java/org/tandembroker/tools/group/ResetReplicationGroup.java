package org.tandembroker.tools.group;

import com.sleepycat.je.rep.util.DbResetRepGroup;
import java.io.PrintWriter;
import java.util.List;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine.Command;

/**
 * {@code bin/reset-group}: makes a restored copy of a replicated store the only node of a new group (JE's
 * {@link DbResetRepGroup}; spec 1.6.15, disaster recovery). The store forgets its old group's members (their
 * addresses are of machines that may be gone) and gets a new group identity, so that nodes of the old group
 * cannot mix with it. Started as a {@code bdb-ha} node with the same group, node and address, it becomes master;
 * nodes started with empty store directories and this node as helper join and are restored over the network.
 */
@Command(name = "reset-group", sortOptions = false, usageHelpAutoWidth = true,
        customSynopsis = {"reset-group --store-path=DIR --group-name=GROUP --node-name=NODE",
                "            --node-host-port=HOST:PORT"},
        description = {"Resets a (restored) replicated store to a new group with this one node (JE DbResetRepGroup).",
                "Run it on the host of --node-host-port, with the broker stopped."},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class ResetReplicationGroup extends ReplicationGroupCommand {
    private ResetReplicationGroup() {
        super("reset its replication group", (store, group, node, hostPort) ->
                new DbResetRepGroup(store, group, node, hostPort).reset());
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the command line and returns its exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(new ResetReplicationGroup(), out, err, args);
    }

    @Override
    List<String> report(ReplicationGroupOptions done) {
        return List.of("The store at " + done.storePath.toAbsolutePath().normalize() + " is now the only node, "
                        + done.nodeName + " at " + done.nodeHostPort + ", of the new group " + done.groupName + ".",
                "Next: give its virtual host this store element, start the broker (it becomes master), then start "
                        + "the other nodes with empty store directories and helperHostPort " + done.nodeHostPort
                        + " (they are restored over the network: HA-1006):");
    }
}
