package org.tandembroker.systest;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A shell command run the way an operator runs it ({@code bash -c}, from the installation's directory, with the
 * assembled broker: {@code TANDEM_NO_BUILD=1}), its output (standard output and error together) collected line by
 * line. For brokers started with {@code bin/broker} and killed for real, and for the tools.
 */
public final class ScriptProcess implements AutoCloseable {
    /** The installation: the repository root, where bin/ and etc/ are. */
    public static final Path HOME = Path.of(System.getProperty("tandem.home", "..")).toAbsolutePath().normalize();

    private final String command;
    private final Process process;
    private final List<String> output = Collections.synchronizedList(new ArrayList<>());
    private final Thread reader;

    private ScriptProcess(String command, Process process) {
        this.command = command;
        this.process = process;
        this.reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    output.add(line);
                }
            } catch (IOException e) {
                // the process is gone
            }
        }, "script-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code command} under bash in {@link #HOME} with {@code environment} added. */
    public static ScriptProcess start(String command, Map<String, String> environment) throws IOException {
        return start(command, environment, "");
    }

    /** As {@link #start(String, Map)}, with {@code input} on the command's standard input (then closed). */
    public static ScriptProcess start(String command, Map<String, String> environment, String input)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", command).directory(HOME.toFile())
                .redirectErrorStream(true);
        builder.environment().put("TANDEM_NO_BUILD", "1");
        // The shipped etc/broker.xml warms up for ${TANDEM_WARM_UP:-40s} before serving; the system tests' brokers
        // start cold unless a test asks otherwise (WarmUpTest covers the warm-up).
        builder.environment().put("TANDEM_WARM_UP", "0");
        builder.environment().putAll(environment);
        Process process = builder.start();
        try (var stdin = process.getOutputStream()) {
            stdin.write(input.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // the command does not read its input
        }
        return new ScriptProcess(command, process);
    }

    /** Runs {@code command} to its end (at most {@code timeout}) and returns it, ended. */
    public static ScriptProcess run(String command, Map<String, String> environment, Duration timeout)
            throws Exception {
        ScriptProcess run = start(command, environment);
        run.awaitExit(timeout);
        return run;
    }

    /** Waits for the end (at most {@code timeout}) and returns the exit code. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("still running after " + timeout + ": " + command + "\n" + text());
        }
        reader.join(10_000);
        return process.exitValue();
    }

    public int exitCode() {
        return process.exitValue();
    }

    /** Waits until a line matches {@code regex}; fails at once if the process ends first. */
    public void awaitLine(String regex, Duration timeout) {
        Pattern pattern = Pattern.compile(regex);
        await(regex).atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (lines().stream().anyMatch(line -> pattern.matcher(line).find())) {
                return true;
            }
            if (!process.isAlive()) {
                reader.join(5_000);
                if (lines().stream().anyMatch(line -> pattern.matcher(line).find())) {
                    return true;
                }
                throw new AssertionError("ended (exit " + process.exitValue() + ") before printing /" + regex
                        + "/: " + command + "\n" + text());
            }
            return false;
        });
    }

    public List<String> lines() {
        synchronized (output) {
            return List.copyOf(output);
        }
    }

    public String text() {
        return String.join("\n", lines());
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL to the process and its children (bin/broker execs java, so the broker is the process itself). */
    public void kill9() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: a broker's graceful shutdown. */
    public void terminate() throws InterruptedException {
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            kill9();
        }
        reader.join(10_000);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            terminate();
        }
    }
}
