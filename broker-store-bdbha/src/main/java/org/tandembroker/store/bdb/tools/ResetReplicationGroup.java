package org.tandembroker.store.bdb.tools;

import com.sleepycat.je.rep.util.DbResetRepGroup;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/reset-group}: makes a restored copy of a replicated store the only node of a new group (JE's
 * {@link DbResetRepGroup}; spec 1.6.15, disaster recovery). The store forgets its old group's members (their
 * addresses are of machines that may be gone) and gets a new group identity, so that nodes of the old group
 * cannot mix with it. Started as a {@code bdb-ha} node with the same group, node and address, it becomes master;
 * nodes started with empty store directories and this node as helper join and are restored over the network.
 *
 * <p>Exit codes: 0 done, 1 refused (a broker has the store open, not a replicated store, JE failed), 2 usage.
 */
@Command(name = "reset-group", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Resets a (restored) replicated store to a new group with this one node (JE DbResetRepGroup).",
                "Run it on the host of -nodeHostPort, with the broker stopped."},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class ResetReplicationGroup implements Callable<Integer> {
    @Mixin
    ReplicationGroupOptions options = new ReplicationGroupOptions();

    @Option(names = "--help", usageHelp = true, description = "Show this help and exit.")
    boolean help;

    private PrintWriter out;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the command line and returns its exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        ResetReplicationGroup command = new ResetReplicationGroup();
        command.out = out;
        return ToolCommandLine.create(command, out, err).execute(args);
    }

    @Override
    public Integer call() {
        reset(options.storePath, options.groupName, options.nodeName, options.nodeHostPort);
        out.println("The store at " + options.storePath.toAbsolutePath().normalize() + " is now the only node, "
                + options.nodeName + " at " + options.nodeHostPort + ", of the new group " + options.groupName + ".");
        out.println("Next: give its virtual host this store element, start the broker (it becomes master), then "
                + "start the other nodes with empty store directories and helperHostPort " + options.nodeHostPort
                + " (they are restored over the network: HA-1006):");
        out.println(options.storeElement());
        out.flush();
        return ToolFailure.OK;
    }

    /**
     * Resets the stopped store at {@code store} to a new group {@code groupName} whose only node is {@code nodeName}
     * at {@code nodeHostPort}.
     *
     * @throws ToolFailure when a broker has it open, it holds no log files, or JE refuses
     */
    public static void reset(Path store, String groupName, String nodeName, String nodeHostPort) {
        ReplicationGroupOptions options = new ReplicationGroupOptions();
        options.storePath = store;
        options.groupName = groupName;
        options.nodeName = nodeName;
        options.nodeHostPort = nodeHostPort;
        options.validate();
        JeUtility.run(store, "reset its replication group",
                () -> new DbResetRepGroup(store.toFile(), groupName, nodeName, nodeHostPort).reset());
    }
}
