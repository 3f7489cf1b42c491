package org.tandembroker.tools.digest;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.tandembroker.store.bdb.StoreContents;
import org.tandembroker.store.bdb.StoreContents.QueueContents;
import org.tandembroker.tools.ToolCommandLine;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/store-digest}: what a stopped node's store holds, per queue, so that the nodes of a replication group
 * can be compared (they converged when every node prints the same lines):
 * <pre>
 * store-digest --store-path STORE
 * orders 120 5f1c...e9          (queue, depth, SHA-256 of its entries: ids, metadata and content)
 * </pre>
 * See {@link StoreContents} for what the digest covers. The store is opened read-only; a store a broker has open
 * is refused (stop the node, or digest a backup).
 *
 * <p>Exit codes: 0 done, 1 the store cannot be read (in use, damaged), 2 usage (no store there).
 *
 * <p><b>Threads.</b> The tool's main thread.
 */
@Command(name = "store-digest", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Prints each queue of a stopped Tandem store (bdb or bdb-ha) with its depth and a SHA-256 of "
                + "its contents, one line per queue: nodes of a group that converged print the same lines."},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class StoreDigest implements Callable<Integer> {
    @Option(names = "--store-path", paramLabel = "STORE", required = true,
            description = "The store directory: the virtual host's <storePath>.")
    Path storePath;

    @Option(names = "--help", usageHelp = true, description = "Show this help and exit.")
    boolean help;

    private PrintWriter out;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the command line; returns the exit code (nothing calls System.exit). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        StoreDigest command = new StoreDigest();
        command.out = out;
        return ToolCommandLine.create(command, out, err).execute(args);
    }

    @Override
    public Integer call() {
        if (!Files.isDirectory(storePath)) {
            throw ToolFailure.usage("no directory " + storePath);
        }
        List<QueueContents> queues;
        try {
            queues = StoreContents.read(storePath);
        } catch (IllegalArgumentException e) {
            throw ToolFailure.usage(e.getMessage());
        } catch (StoreContents.StoreInUseException e) {
            throw ToolFailure.refused("the store at " + storePath + " is in use by a running broker: stop the node "
                    + "first, or digest a backup of it");
        } catch (RuntimeException e) {
            throw ToolFailure.refused("cannot read the store at " + storePath + ": " + ToolFailure.firstLine(e));
        }
        queues.forEach(q -> out.println(q.line()));
        out.flush();
        return ToolFailure.OK;
    }
}
