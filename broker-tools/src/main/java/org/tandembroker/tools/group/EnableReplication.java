package org.tandembroker.tools.group;

import com.sleepycat.je.rep.util.DbEnableReplication;
import java.io.PrintWriter;
import java.util.List;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine.Command;

/**
 * {@code bin/enable-replication}: converts a standalone store ({@code <store type="bdb">}) into the first node of
 * a replication group (JE's {@link DbEnableReplication}; spec 1.6.14). Both stores keep the same databases
 * ({@code StoreDatabases}), so after the conversion the virtual host's store becomes {@code type="bdb-ha"} with the
 * same {@code storePath} and the broker recovers everything: queues, exchanges, bindings, messages. Nodes added
 * later start with empty store directories and are restored over the network.
 */
@Command(name = "enable-replication", sortOptions = false, usageHelpAutoWidth = true,
        customSynopsis = {"enable-replication --store-path=DIR --group-name=GROUP --node-name=NODE",
                "                   --node-host-port=HOST:PORT"},
        description = {"Converts a standalone (bdb) store into the first node of a replication group "
                + "(JE DbEnableReplication).", "Run it on the host of --node-host-port, with the broker stopped."},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class EnableReplication extends ReplicationGroupCommand {
    private EnableReplication() {
        super("enable replication", (store, group, node, hostPort) ->
                new DbEnableReplication(store, group, node, hostPort).convert());
    }

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the command line and returns its exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(new EnableReplication(), out, err, args);
    }

    @Override
    List<String> report(ReplicationGroupOptions done) {
        return List.of("The store at " + done.storePath.toAbsolutePath().normalize() + " is now replicated: node "
                        + done.nodeName + " at " + done.nodeHostPort + " of group " + done.groupName + ".",
                "Next: in its virtual host file replace <store type=\"bdb\"> by this (keep the other elements), "
                        + "start the broker (it becomes master and recovers every message), then add nodes with empty "
                        + "store directories and helperHostPort " + done.nodeHostPort + ":");
    }
}
