package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Samples a process's resident memory from {@code /proc/<pid>/status} ({@code VmRSS}, and {@code VmHWM}, the
 * kernel's own peak) every {@code period}, together with the benchmark's phase and counters, for the timeline.
 *
 * <p>Threads: runs on its own daemon thread {@code broker-memory-sampler}, which alone writes the samples; other
 * threads read them (under the list's monitor) and the volatile peaks.
 */
public final class MemorySampler implements AutoCloseable {
    /** One sample. */
    public record Sample(long elapsedMillis, String phase, long rssBytes, long hwmBytes, long confirmed,
                         long received) {
    }

    private final Path status;
    private final long periodMillis;
    private final Supplier<String> phase;
    private final LongSupplier confirmed;
    private final LongSupplier received;
    private final List<Sample> samples = new ArrayList<>();
    private final long start = System.nanoTime();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long peakRss;
    private volatile long hwm;

    public MemorySampler(long pid, long periodMillis, Supplier<String> phase, LongSupplier confirmed,
                         LongSupplier received) {
        this.status = Path.of("/proc", Long.toString(pid), "status");
        this.periodMillis = periodMillis;
        this.phase = phase;
        this.confirmed = confirmed;
        this.received = received;
        this.thread = new Thread(this::sampleUntilClosed, "broker-memory-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void sampleUntilClosed() {
        while (running) {
            sample();
            try {
                Thread.sleep(periodMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Takes a sample now (also called by the sampler thread). */
    public synchronized void sample() {
        long rss = -1;
        long peak = -1;
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    rss = kibValue(line) << 10;
                } else if (line.startsWith("VmHWM:")) {
                    peak = kibValue(line) << 10;
                }
            }
        } catch (IOException e) {
            return; // the process is gone
        }
        peakRss = Math.max(peakRss, rss);
        hwm = Math.max(hwm, peak);
        synchronized (samples) {
            samples.add(new Sample((System.nanoTime() - start) / 1_000_000, phase.get(), rss, peak,
                    confirmed.getAsLong(), received.getAsLong()));
        }
    }

    /** The VmRSS of process {@code pid} now, -1 when it cannot be read. */
    public static long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(java.nio.file.Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return kibValue(line) << 10;
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    private static long kibValue(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }

    /** The largest VmRSS sampled. */
    public long peakRssBytes() {
        return peakRss;
    }

    /** The kernel's peak resident set size (VmHWM) at the last sample. */
    public long highWaterMarkBytes() {
        return hwm;
    }

    /** The latest VmRSS sample, or -1. */
    public long currentRssBytes() {
        synchronized (samples) {
            return samples.isEmpty() ? -1 : samples.get(samples.size() - 1).rssBytes();
        }
    }

    public List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
    }
}
