package org.tandembroker.tools.group;

import com.sleepycat.je.EnvironmentLockedException;
import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.tandembroker.store.bdb.backup.StoreLock;
import org.tandembroker.tools.ToolCommandLine;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What {@code enable-replication} and {@code reset-group} share: each runs one of JE's utilities that give a stopped
 * store a new replication group identity ({@code DbEnableReplication}, {@code DbResetRepGroup}), with the same four
 * options, and prints what became of the store, the operator's next step and the {@code <store>} element the node's
 * virtual host needs. A subclass names the utility and says those first lines.
 *
 * <p>The utility runs only on a stopped store: the command refuses at once when a broker has it open. It keeps the
 * caller's thread name (JE renames the thread that opens a replicated environment) and turns JE's exceptions into
 * one line for the operator.
 *
 * <p>Exit codes: 0 done, 1 refused (a broker has the store open, JE failed), 2 usage.
 *
 * <p><b>Threads.</b> The tool's main thread.
 */
abstract class ReplicationGroupCommand implements Callable<Integer> {
    /** One of JE's group utilities, run on a stopped store. */
    @FunctionalInterface
    interface GroupUtility {
        void run(File store, String groupName, String nodeName, String nodeHostPort);
    }

    @Mixin
    ReplicationGroupOptions options = new ReplicationGroupOptions();

    @Option(names = "--help", usageHelp = true, description = "Show this help and exit.")
    boolean help;

    private final String what;
    private final GroupUtility utility;
    private PrintWriter out;

    /**
     * @param what    what the utility does to the store, for messages ("enable replication")
     * @param utility the JE utility
     */
    ReplicationGroupCommand(String what, GroupUtility utility) {
        this.what = what;
        this.utility = utility;
    }

    /** Runs {@code command}'s command line and returns its exit code (nothing calls System.exit). */
    static int run(ReplicationGroupCommand command, PrintWriter out, PrintWriter err, String... args) {
        command.out = out;
        return ToolCommandLine.create(command, out, err).execute(args);
    }

    /** The lines printed before the store element: what became of the store, and what to do next. */
    abstract List<String> report(ReplicationGroupOptions done);

    @Override
    public final Integer call() {
        options.validate();
        Path store = options.storePath;
        StoreLock.lockStopped(store, what).close(); // JE takes the same lock itself: a broker starting now loses
        Thread self = Thread.currentThread();
        String name = self.getName();
        try {
            utility.run(store.toFile(), options.groupName, options.nodeName, options.nodeHostPort);
        } catch (EnvironmentLockedException e) {
            throw ToolFailure.refused("the store at " + store + " is in use (a broker has it open): stop that broker "
                    + "first to " + what);
        } catch (RuntimeException e) {
            throw ToolFailure.refused("JE could not " + what + " (store " + store + "): " + ToolFailure.firstLine(e));
        } finally {
            self.setName(name);
        }
        report(options).forEach(out::println);
        out.println(options.storeElement());
        out.flush();
        return ToolFailure.OK;
    }
}
