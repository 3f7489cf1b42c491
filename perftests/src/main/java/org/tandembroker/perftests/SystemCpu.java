package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * CPU time the whole machine spent busy (all cores; user, nice, system, irq, softirq, steal), from the first line
 * of {@code /proc/stat}. The benchmark subtracts the broker's and its own CPU time from it to show how much other
 * processes ran during a measured window: on a shared machine that is what disturbs the figures.
 */
public final class SystemCpu {
    /** Linux reports /proc/stat in USER_HZ, 100 per second on every mainstream architecture. */
    private static final long TICKS_PER_SECOND = 100;

    private SystemCpu() {
    }

    /** Busy CPU time since boot, or {@link Duration#ZERO} where /proc/stat cannot be read. */
    public static Duration busy() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long ticks = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                if (i < fields.length) {
                    ticks += Long.parseLong(fields[i]);
                }
            }
            return Duration.ofMillis(ticks * 1000 / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return Duration.ZERO;
        }
    }

    /** The 1-minute load average, or -1. */
    public static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
