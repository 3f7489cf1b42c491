package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Counts a process's fsync and fdatasync system calls over a window with {@code perf stat} on the syscall
 * tracepoints (counted in the kernel, so the broker is not slowed the way {@code strace} would slow it). The
 * broker itself reports no fsync count yet; where {@code perf} is missing or not permitted, every measurement
 * says so instead of giving a number.
 */
public final class FsyncCounter {
    private static final String EVENTS = "syscalls:sys_enter_fsync,syscalls:sys_enter_fdatasync";

    private final String unavailableBecause;

    private FsyncCounter(String unavailableBecause) {
        this.unavailableBecause = unavailableBecause;
    }

    /** A counter that gives no counts, for {@code reason}. */
    public static FsyncCounter disabled(String reason) {
        return new FsyncCounter(reason);
    }

    /** Tries {@code perf stat} on the tracepoints once; the counter works only if that did. */
    public static FsyncCounter probe() {
        try {
            Process probe = new ProcessBuilder("perf", "stat", "-x", ",", "-e", EVENTS, "--", "true")
                    .redirectErrorStream(true).start();
            String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!probe.waitFor(30, TimeUnit.SECONDS) || probe.exitValue() != 0
                    || !output.contains("sys_enter_fsync") || output.contains("<not supported>")) {
                return disabled("perf cannot count syscall tracepoints here: " + output.strip().lines()
                        .findFirst().orElse("no output"));
            }
            return new FsyncCounter(null);
        } catch (IOException e) {
            return disabled("perf is not installed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return disabled("interrupted");
        }
    }

    public boolean available() {
        return unavailableBecause == null;
    }

    /** Why there are no counts, or null. */
    public String unavailableBecause() {
        return unavailableBecause;
    }

    /** Starts counting the fsyncs of process {@code pid} for {@code window}. */
    public Measurement start(long pid, Duration window) {
        if (!available()) {
            return new Measurement(null, unavailableBecause);
        }
        String seconds = String.format(Locale.ROOT, "%.3f", window.toMillis() / 1000.0);
        try {
            Process perf = new ProcessBuilder("perf", "stat", "-x", ",", "-e", EVENTS, "-p", Long.toString(pid),
                    "--", "sleep", seconds).redirectErrorStream(true).start();
            return new Measurement(perf, null);
        } catch (IOException e) {
            return new Measurement(null, "perf failed to start: " + e.getMessage());
        }
    }

    /** One window's count. */
    public static final class Measurement {
        private final Process perf;
        private final String unavailableBecause;

        private Measurement(Process perf, String unavailableBecause) {
            this.perf = perf;
            this.unavailableBecause = unavailableBecause;
        }

        /** Waits for the window to end and returns the count of fsync + fdatasync calls. */
        public PairedLoad.FsyncCount await() throws InterruptedException {
            if (perf == null) {
                return PairedLoad.FsyncCount.unavailable(unavailableBecause);
            }
            try {
                List<String> lines = new String(perf.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                        .lines().toList();
                perf.waitFor(30, TimeUnit.SECONDS);
                long total = 0;
                int found = 0;
                for (String line : lines) {
                    String[] fields = line.split(",");
                    if (fields.length > 2 && fields[2].startsWith("syscalls:sys_enter_f")) {
                        total += Long.parseLong(fields[0].trim());
                        found++;
                    }
                }
                return found == 2 ? new PairedLoad.FsyncCount(total, null)
                        : PairedLoad.FsyncCount.unavailable("perf printed no counts: " + String.join(" ", lines));
            } catch (IOException | NumberFormatException e) {
                return PairedLoad.FsyncCount.unavailable("perf output unreadable: " + e.getMessage());
            }
        }
    }
}
