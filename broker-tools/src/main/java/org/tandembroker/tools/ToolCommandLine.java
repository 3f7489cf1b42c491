package org.tandembroker.tools;

import java.io.PrintWriter;
import org.tandembroker.store.bdb.backup.BackupException;
import picocli.CommandLine;

/**
 * The command-line conventions of Tandem's operator tools: picocli parses GNU long options ({@code --store-path});
 * a {@link ToolFailure} (or the store's {@link BackupException}) ends the command with its exit code and one line on
 * standard error ({@code <command>: <message>}), never a stack trace; a command line picocli cannot parse prints
 * the error and the usage, exit code {@link ToolFailure#USAGE}.
 */
public final class ToolCommandLine {
    private ToolCommandLine() {
    }

    /** A picocli command line for {@code command}, writing to {@code out} and {@code err}. */
    public static CommandLine create(Object command, PrintWriter out, PrintWriter err) {
        CommandLine line = new CommandLine(command);
        line.setOut(out);
        line.setErr(err);
        line.setCaseInsensitiveEnumValuesAllowed(true);
        line.setExecutionExceptionHandler((exception, failed, parsed) -> {
            String name = failed.getCommandSpec().qualifiedName();
            if (exception instanceof BackupException backup) {
                exception = ToolFailure.of(backup);
            }
            if (exception instanceof ToolFailure failure) {
                err.println(name + ": " + failure.getMessage());
                err.flush();
                return failure.exitCode();
            }
            err.println(name + ": failed: " + exception);
            err.flush();
            return ToolFailure.REFUSED;
        });
        return line;
    }
}
