package org.tandembroker.perftests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A broker in its own JVM, started from an assembled distribution's library folder the way {@code bin/broker}
 * starts it, and stopped with SIGTERM (its graceful shutdown).
 *
 * <p>Threads: the thread that started it calls every method; one daemon thread {@code broker-output} reads the
 * child's console and owns the line list (shared through its monitor) and the warning counters (volatile reads
 * by other threads only).
 */
public final class BrokerProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on amqp://\\S+:(\\d+)");
    private static final int KEPT_LINES = 20_000;

    private final Process process;
    private final int port;
    private final List<String> lines;
    private final Output output;

    private BrokerProcess(Process process, int port, List<String> lines, Output output) {
        this.process = process;
        this.port = port;
        this.lines = lines;
        this.output = output;
    }

    /** The console reader's counters. */
    private static final class Output {
        volatile int warnings;
        volatile int errors;
        volatile boolean outOfMemory;
        volatile long dropped;
        Thread reader;
    }

    /**
     * The assembled broker's libraries: {@code -Dtandem.lib}, else {@code <home>/broker-dist/target/lib} where home
     * is {@code -Dtandem.home} (set by bin/perftest) or the working directory.
     */
    public static Path defaultLib() {
        String lib = System.getProperty("tandem.lib");
        return lib != null ? Path.of(lib) : ResultsFolder.home().resolve("broker-dist/target/lib");
    }

    /**
     * Starts {@code BrokerMain} with the files' configuration and work directory; returns once the broker printed
     * {@code listening on amqp://HOST:PORT}.
     */
    public static BrokerProcess start(Path lib, BrokerFiles files, List<String> jvmOptions)
            throws IOException, InterruptedException {
        if (!Files.isDirectory(lib) || !containsBrokerCore(lib)) {
            throw new IllegalStateException("no assembled broker at " + lib.toAbsolutePath()
                    + " (build it: mvn -B -DskipTests package -pl broker-dist -am)");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Dlogback.configurationFile=" + files.logbackFile());
        command.addAll(List.of("-cp", lib.toAbsolutePath() + "/*", "org.tandembroker.core.daemon.BrokerMain",
                "--config", files.brokerFile().toString(), "--work", files.work().toString()));
        return launch(command, LISTENING, "broker did not start listening");
    }

    /**
     * Starts {@code command} (a JVM of another broker, e.g. {@link ArtemisPeer}); returns once a console line
     * matched {@code ready}, whose group 1 is the AMQP port the process serves (or will serve).
     */
    public static BrokerProcess launch(List<String> command, Pattern ready, String notReady)
            throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        List<String> lines = new ArrayList<>();
        Output output = new Output();
        output.reader = new Thread(() -> readOutput(process, lines, output, ready, port), "broker-output");
        output.reader.setDaemon(true);
        output.reader.start();
        try {
            return new BrokerProcess(process, port.get(120, TimeUnit.SECONDS), lines, output);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException(notReady + ": " + e.getMessage(), e);
        }
    }

    private static boolean containsBrokerCore(Path lib) throws IOException {
        try (var files = Files.list(lib)) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith("broker-core"));
        }
    }

    private static void readOutput(Process process, List<String> lines, Output output, Pattern ready,
                                   CompletableFuture<Integer> port) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (lines) {
                    if (lines.size() < KEPT_LINES) {
                        lines.add(line);
                    } else {
                        output.dropped++;
                    }
                }
                if (line.contains(" WARN ")) {
                    output.warnings++;
                } else if (line.contains(" ERROR ")) {
                    output.errors++;
                }
                if (line.contains("OutOfMemoryError")) {
                    output.outOfMemory = true;
                }
                Matcher m = ready.matcher(line);
                if (m.find()) {
                    port.complete(Integer.parseInt(m.group(1)));
                }
            }
        } catch (IOException e) {
            // the pipe closed: the process is gone
        }
        synchronized (lines) {
            // Its last words (a configuration error, a port in use) lead, for one-line reports; all of them follow.
            String last = lines.stream().filter(l -> !l.isBlank()).reduce((first, second) -> second)
                    .orElse("no output");
            port.completeExceptionally(new IllegalStateException("the process exited before it was ready: "
                    + last.strip() + "\n" + String.join("\n", lines)));
        }
    }

    public String uri() {
        return "amqp://127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** CPU time (user + system) the broker process used so far. */
    public Duration cpuTime() {
        return process.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
    }

    /** Console lines containing " WARN " so far. */
    public int warnings() {
        return output.warnings;
    }

    /** Console lines containing " ERROR " so far. */
    public int errors() {
        return output.errors;
    }

    /** Whether the console mentioned an OutOfMemoryError. */
    public boolean sawOutOfMemory() {
        return output.outOfMemory;
    }

    /** The console lines so far (the first {@value #KEPT_LINES}). */
    public List<String> output() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /** The WARN and ERROR lines so far, and the lines of stack traces that follow them. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        boolean inProblem = false;
        for (String line : output()) {
            boolean logLine = line.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*");
            if (logLine) {
                inProblem = line.contains(" WARN ") || line.contains(" ERROR ");
            }
            if (inProblem || line.contains("OutOfMemoryError")) {
                problems.add(line);
            }
        }
        return problems;
    }

    /**
     * SIGTERM, then waits for the graceful shutdown. Through the process handle: {@code Process.destroy()} would
     * also close our end of the output pipe and lose the shutdown lines. Returns the exit code (143 after a
     * graceful SIGTERM shutdown), or -1 when it had to be killed after {@code patience}.
     */
    public int stop(Duration patience) throws InterruptedException {
        if (process.isAlive()) {
            process.toHandle().destroy();
        }
        if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            output.reader.join(10_000);
            return -1;
        }
        output.reader.join(10_000);
        return process.exitValue();
    }

    /** Writes the console lines to {@code file}. */
    public void saveOutput(Path file) throws IOException {
        List<String> copy = new ArrayList<>(output());
        if (output.dropped > 0) {
            copy.add("[perftests: " + output.dropped + " further lines not kept]");
        }
        Files.write(file, copy, StandardCharsets.UTF_8);
    }

    /** Kills the process if it still runs (a safety net for failures; {@link #stop} is the normal end). */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
