package org.tandembroker.tools.create;

import java.io.InputStream;
import java.io.PrintWriter;
import org.tandembroker.tools.ToolCommandLine;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code bin/tandem}: the installation's own command, for what concerns a node's files rather than a running
 * broker or its store. Today one subcommand, {@code create} ({@link CreateCommand}); {@code bin/ha-admin},
 * {@code bin/backup.sh} and the group tools stay separate commands, as documented in docs/operations.md.
 *
 * <p><b>Threads.</b> The tool's main thread.
 */
@Command(name = "tandem", mixinStandardHelpOptions = false, usageHelpAutoWidth = true,
        description = "Tandem's installation command.",
        subcommands = {CreateCommand.class, CommandLine.HelpCommand.class},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class Tandem implements Runnable {
    private final InputStream in;

    Tandem(InputStream in) {
        this.in = in;
    }

    /** Where {@code create} reads a password from when no file is given. */
    InputStream standardInput() {
        return in;
    }

    public static void main(String[] args) {
        int exitCode = run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), System.in, args);
        System.exit(exitCode);
    }

    /** Runs {@code tandem ARGS...}; returns the exit code ({@link ToolFailure}'s). */
    public static int run(PrintWriter out, PrintWriter err, InputStream in, String... args) {
        CommandLine line = ToolCommandLine.create(new Tandem(in), out, err);
        return line.execute(args);
    }

    @Override
    public void run() {
        throw ToolFailure.usage("name a subcommand: create (tandem help create)");
    }
}
