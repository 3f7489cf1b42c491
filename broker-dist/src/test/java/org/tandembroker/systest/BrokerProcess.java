package org.tandembroker.systest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A broker in its own JVM, started from the assembled distribution ({@code broker-dist/target/lib}) the way
 * {@code bin/broker} starts it, so it can be killed for real.
 */
public final class BrokerProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on \\S+:(\\d+)");

    private final Process process;
    private final int port;
    private final List<String> output;
    private final Thread outputReader;

    /**
     * A command prefix that starts the broker with SIGHUP at its default disposition, where {@code env} can: a test
     * run under {@code nohup} would otherwise hand the broker an ignored SIGHUP, which the JVM leaves ignored, and
     * {@code kill -HUP} would not reload (PermissionsReloadIT failed so in CI runs started with nohup).
     */
    private static final List<String> HANG_UP_AT_DEFAULT = hangUpAtDefault();

    private static List<String> hangUpAtDefault() {
        List<String> prefix = List.of("env", "--default-signal=HUP");
        try {
            Process probe = new ProcessBuilder(concat(prefix, "true")).redirectErrorStream(true).start();
            probe.getInputStream().readAllBytes();
            return probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0 ? prefix : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private static List<String> concat(List<String> prefix, String last) {
        List<String> all = new ArrayList<>(prefix);
        all.add(last);
        return all;
    }

    private BrokerProcess(Process process, int port, List<String> output, Thread outputReader) {
        this.process = process;
        this.port = port;
        this.output = output;
        this.outputReader = outputReader;
    }

    /** Starts a broker with {@code brokerFile} and {@code work}, returning once it listens. */
    public static BrokerProcess start(Path brokerFile, Path work, String... jvmOptions) throws Exception {
        Path lib = Path.of(System.getProperty("tandem.lib", "target/lib"));
        if (!Files.isDirectory(lib)) {
            throw new IllegalStateException("no assembled broker at " + lib + " (run mvn package first)");
        }
        List<String> command = new ArrayList<>(HANG_UP_AT_DEFAULT);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(jvmOptions));
        command.add("-Dlogback.configurationFile=" + Path.of(System.getProperty("tandem.home", "..")).resolve("etc/logback.xml"));
        command.addAll(List.of("-cp", lib.toAbsolutePath() + "/*", "org.tandembroker.core.daemon.BrokerMain",
                "--config", brokerFile.toString(), "--work", work.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                // process gone
            }
            port.completeExceptionally(new IllegalStateException("broker exited before listening:\n"
                    + String.join("\n", lines)));
        }, "broker-process-output");
        reader.setDaemon(true);
        reader.start();
        return new BrokerProcess(process, port.get(120, TimeUnit.SECONDS), lines, reader);
    }

    public int port() {
        return port;
    }

    public String uri() {
        return "amqp://127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL: no shutdown hook, no flush. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Everything the process printed so far (console log included). */
    public List<String> output() {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    /** SIGTERM: the broker's graceful shutdown. Returns the exit code (143: ended by SIGTERM after its hooks ran). */
    public int terminate() throws InterruptedException {
        // Through the handle: Process.destroy() would also close our end of the child's output pipe, losing the
        // shutdown lines we want to read.
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("broker did not stop within 60 s of SIGTERM");
        }
        outputReader.join(10_000);
        return process.exitValue();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill9();
        }
    }
}
