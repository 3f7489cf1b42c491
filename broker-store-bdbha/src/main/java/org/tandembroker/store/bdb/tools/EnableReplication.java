package org.tandembroker.store.bdb.tools;

import com.sleepycat.je.rep.util.DbEnableReplication;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/enable-replication}: converts a standalone store ({@code <store type="bdb">}) into the first node of
 * a replication group (JE's {@link DbEnableReplication}; spec 1.6.14). Both stores keep the same databases
 * ({@code StoreDatabases}), so after the conversion the virtual host's store becomes {@code type="bdb-ha"} with the
 * same {@code storePath} and the broker recovers everything: queues, exchanges, bindings, messages. Nodes added
 * later start with empty store directories and are restored over the network.
 *
 * <p>Exit codes: 0 done, 1 refused (a broker has the store open, JE failed), 2 usage.
 */
@Command(name = "enable-replication", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Converts a standalone (bdb) store into the first node of a replication group "
                + "(JE DbEnableReplication).", "Run it on the host of -nodeHostPort, with the broker stopped."},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class EnableReplication implements Callable<Integer> {
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
        EnableReplication command = new EnableReplication();
        command.out = out;
        return ToolCommandLine.create(command, out, err).execute(args);
    }

    @Override
    public Integer call() {
        enable(options.storePath, options.groupName, options.nodeName, options.nodeHostPort);
        out.println("The store at " + options.storePath.toAbsolutePath().normalize() + " is now replicated: node "
                + options.nodeName + " at " + options.nodeHostPort + " of group " + options.groupName + ".");
        out.println("Next: in its virtual host file replace <store type=\"bdb\"> by this (keep the other elements), "
                + "start the broker (it becomes master and recovers every message), then add nodes with empty store "
                + "directories and helperHostPort " + options.nodeHostPort + ":");
        out.println(options.storeElement());
        out.flush();
        return ToolFailure.OK;
    }

    /**
     * Converts the stopped standalone store at {@code store} into node {@code nodeName} at {@code nodeHostPort} of a
     * new group {@code groupName}.
     *
     * @throws ToolFailure when a broker has it open, it holds no log files, or JE refuses
     */
    public static void enable(Path store, String groupName, String nodeName, String nodeHostPort) {
        ReplicationGroupOptions options = new ReplicationGroupOptions();
        options.storePath = store;
        options.groupName = groupName;
        options.nodeName = nodeName;
        options.nodeHostPort = nodeHostPort;
        options.validate();
        JeUtility.run(store, "enable replication",
                () -> new DbEnableReplication(store.toFile(), groupName, nodeName, nodeHostPort).convert());
    }
}
