package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the figures were measured on: CPU, cores, memory, operating system, JVM, and the file system that held
 * the broker's store (from {@code df}). Read once; unreadable facts say "unknown".
 */
public record Machine(Map<String, String> facts) {

    /** The facts of this machine; {@code storeDirectory} is where the brokers' stores are written. */
    public static Machine describe(Path storeDirectory) {
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
        facts.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        facts.put("memory", memory());
        facts.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        facts.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vendor") + ")");
        facts.put("store directory", storeDirectory.toAbsolutePath().toString());
        facts.put("store file system (df -hT)", command("df", "-hT", storeDirectory.toAbsolutePath().toString()));
        return new Machine(Collections.unmodifiableMap(facts));
    }

    /** The facts as Markdown bullet points. */
    public String markdown() {
        StringBuilder text = new StringBuilder();
        facts.forEach((name, value) -> {
            if (value.contains("\n")) {
                text.append("- ").append(name).append(":\n\n```\n").append(value.strip()).append("\n```\n\n");
            } else {
                text.append("- ").append(name).append(": ").append(value).append('\n');
            }
        });
        return text.toString();
    }

    private static String memory() {
        String total = firstValue(Path.of("/proc/meminfo"), "MemTotal");
        try {
            long kib = Long.parseLong(total.replace("kB", "").trim());
            return String.format(Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
        } catch (NumberFormatException e) {
            return total;
        }
    }

    private static String firstValue(Path file, String key) {
        try {
            return Files.readAllLines(file).stream().filter(l -> l.startsWith(key))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String command(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(30, TimeUnit.SECONDS);
            return output.strip();
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown (interrupted)";
        }
    }
}
