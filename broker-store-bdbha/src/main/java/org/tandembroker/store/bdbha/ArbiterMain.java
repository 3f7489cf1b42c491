package org.tandembroker.store.bdbha;

import com.sleepycat.je.rep.arbiter.Arbiter;
import com.sleepycat.je.rep.arbiter.ArbiterConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a JE arbiter for a two-node group, started by {@code bin/arbiter}:
 * <pre>
 * arbiter --group G --node N --host-port H:P --helpers H1:P1,H2:P2 --dir DIR
 * </pre>
 * An arbiter stores no messages: it votes in elections and acknowledges commits, so that a two-node group with
 * an arbiter fails over without an operator (the surviving node and the arbiter are a majority of three) and a
 * master whose replica fails keeps committing. It runs until the process is stopped (SIGTERM, Ctrl-C).
 * {@code --help} prints the usage. Exit codes: 1 the arbiter could not start, 2 usage.
 *
 * <p>Five options do not justify a CLI library (as for {@code tandem-passwd}): parsed by hand.
 */
public final class ArbiterMain {
    static final int ERROR = 1;
    static final int USAGE = 2;

    private static final List<String> OPTIONS = List.of("--group", "--node", "--host-port", "--helpers", "--dir");
    private static final String USAGE_TEXT = String.join(System.lineSeparator(),
            "Usage: arbiter --group GROUP --node NAME --host-port HOST:PORT --helpers HOST:PORT[,HOST:PORT] --dir DIR",
            "Runs a JE arbiter for a two-node Tandem HA group: it votes and acknowledges but stores no messages,",
            "so that the group fails over without an operator. GROUP is the brokers' <groupName>; NAME a node name",
            "unused in the group; HOST:PORT where the arbiter listens; --helpers the brokers' <nodeHostPort>s;",
            "DIR a directory of its own (created if missing).");

    /** The parsed options. */
    record Options(String group, String node, String hostPort, String helpers, Path directory) {
    }

    private ArbiterMain() {
    }

    public static void main(String[] args) {
        if (asksForHelp(args)) {
            System.out.println(USAGE_TEXT);
            return;
        }
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("arbiter: " + e.getMessage());
            System.err.println(USAGE_TEXT);
            System.exit(USAGE);
            return;
        }
        Arbiter arbiter;
        try {
            arbiter = start(options);
        } catch (IOException | RuntimeException e) {
            System.err.println("arbiter: cannot start node " + options.node() + " of group " + options.group() + ": "
                    + ReplicationFailures.firstLine(e));
            System.exit(ERROR);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            arbiter.shutdown();
            stopped.countDown();
        }, "arbiter-shutdown"));
        report(System.out, options, arbiter);
        awaitUninterruptibly(stopped);
    }

    /** True for {@code --help} or {@code -h} anywhere on the command line: print the usage and exit 0. */
    static boolean asksForHelp(String[] args) {
        return List.of(args).contains("--help") || List.of(args).contains("-h");
    }

    /** Parses the command line; throws {@link IllegalArgumentException} with one line for the user. */
    static Options parse(String[] args) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (!OPTIONS.contains(option)) {
                throw new IllegalArgumentException("unknown option '" + option + "'; allowed: "
                        + String.join(", ", OPTIONS));
            }
            if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            if (values.put(option, args[++i].trim()) != null) {
                throw new IllegalArgumentException(option + " is given twice");
            }
        }
        for (String option : OPTIONS) {
            if (values.getOrDefault(option, "").isEmpty()) {
                throw new IllegalArgumentException(option + " is required");
            }
        }
        return new Options(values.get("--group"), values.get("--node"), values.get("--host-port"),
                values.get("--helpers").replace(" ", ""), Path.of(values.get("--dir")).toAbsolutePath());
    }

    /** Starts an arbiter; returns once it found the master (or after JE's unknown-state timeout without one). */
    static Arbiter start(Options options) throws IOException {
        Files.createDirectories(options.directory());
        ArbiterConfig config = new ArbiterConfig();
        config.setArbiterHome(options.directory().toString());
        config.setGroupName(options.group());
        config.setNodeName(options.node());
        config.setNodeHostPort(options.hostPort());
        config.setHelperHosts(options.helpers());
        // Do not wait forever for a master at startup: report and keep trying in the background.
        config.setUnknownStateTimeout(10, TimeUnit.SECONDS);
        return new Arbiter(config);
    }

    private static void report(PrintStream out, Options options, Arbiter arbiter) {
        out.println("arbiter " + options.node() + " of group " + options.group() + " at " + options.hostPort()
                + " is " + arbiter.getState() + "; stop it with SIGTERM or Ctrl-C");
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // keep running until the shutdown hook ran
            }
        }
    }
}
