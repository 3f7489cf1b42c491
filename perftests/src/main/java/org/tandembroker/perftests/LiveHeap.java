package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live heap of another JVM: {@code jcmd <pid> GC.run} (a full collection) then {@code jcmd <pid> GC.heap_info},
 * whose first line reads {@code garbage-first heap   total 1048576K, used 123456K [...]}. The jcmd beside the
 * running java is used, else the one on the PATH. Stateless.
 */
final class LiveHeap {
    private static final Pattern USED = Pattern.compile("heap\\s+total\\s+\\d+K,\\s+used\\s+(\\d+)K");

    private LiveHeap() {
    }

    /** Heap used right after a full collection, in bytes; -1 when jcmd failed (the reason on standard error). */
    static long afterFullGc(long pid) {
        try {
            run(pid, "GC.run");
            Matcher m = USED.matcher(run(pid, "GC.heap_info"));
            if (m.find()) {
                return Long.parseLong(m.group(1)) * 1024;
            }
            System.err.println("jcmd GC.heap_info: no 'used' figure in its output");
        } catch (IOException e) {
            System.err.println("jcmd failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return -1;
    }

    private static String run(long pid, String command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(jcmd(), Long.toString(pid), command)).redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("jcmd " + command + " failed: " + output.strip());
        }
        return output;
    }

    private static String jcmd() {
        return ProcessHandle.current().info().command().map(Path::of).map(java -> java.resolveSibling("jcmd"))
                .filter(Files::isExecutable).map(Path::toString).orElse("jcmd");
    }
}
