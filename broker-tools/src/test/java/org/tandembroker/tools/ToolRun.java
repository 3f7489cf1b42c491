package org.tandembroker.tools;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.tandembroker.tools.haadmin.HaAdmin;

/**
 * One run of an operator's tool in the test JVM: its exit code and what it printed.
 *
 * @param exitCode the exit code the command line would end with
 * @param out      standard output
 * @param err      standard error
 */
record ToolRun(int exitCode, String out, String err) {

    /** A tool's {@code run(out, err, args)} entry point. */
    @FunctionalInterface
    interface Tool {
        int run(PrintWriter out, PrintWriter err, String... args);
    }

    static ToolRun of(Tool tool, String[] connection, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(Arrays.asList(connection));
        return of(tool, all.toArray(String[]::new));
    }

    static ToolRun of(Tool tool, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = tool.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new ToolRun(exitCode, out.toString(), err.toString());
    }

    /** {@code ha-admin ARGS... CONNECTION...}. */
    static ToolRun haAdmin(String[] connection, String... args) {
        return of(HaAdmin::run, connection, args);
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out ---\n" + out + "--- err ---\n" + err;
    }
}
