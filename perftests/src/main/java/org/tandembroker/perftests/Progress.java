package org.tandembroker.perftests;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The console progress line: which run (configuration, N), which phase, the time left in it and in the whole
 * benchmark, and the current rate. On a terminal the line is rewritten in place every second; otherwise (a log
 * file, a test) a line is printed every few seconds. It also paces the phases: {@link #countDown} returns when
 * its phase is over.
 *
 * <p>Threads: used by the benchmark's main thread only.
 */
public final class Progress {
    private static final Duration TICK = Duration.ofSeconds(1);
    private static final long PLAIN_EVERY_NANOS = 5_000_000_000L;

    private final PrintStream out;
    private final boolean terminal;
    private String label = "";
    private Duration afterThisRun = Duration.ZERO;
    private long lastPlainLine = System.nanoTime();

    public Progress(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /** Progress on standard error, rewritten in place when a terminal is attached. */
    public static Progress console() {
        return new Progress(System.err, System.console() != null);
    }

    /** Names the run now starting, and how long the runs after it are expected to take. */
    public void run(String label, Duration afterThisRun) {
        this.label = label;
        this.afterThisRun = afterThisRun;
    }

    /** Lets {@code phase} last {@code length}, showing the time left and how fast {@code counter} grows. */
    public void countDown(String phase, Duration length, LongSupplier counter) throws InterruptedException {
        long end = System.nanoTime() + length.toNanos();
        long last = counter.getAsLong();
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            Thread.sleep(Math.min(TICK.toMillis(), Math.max(1, left / 1_000_000)));
            long now = counter.getAsLong();
            long perSecond = now - last;
            last = now;
            long secondsLeft = Math.max(0, (end - System.nanoTime()) / 1_000_000_000);
            update(String.format(Locale.ROOT, "%-9s %3d s left (all runs: ~%s)  %,d msg/s", phase,
                    secondsLeft, human(afterThisRun.plusSeconds(secondsLeft)), perSecond));
        }
    }

    /**
     * Waits until {@code received} reaches {@code expected}, showing what is left; returns whether it was
     * reached. Gives up when {@code deadline} passes or {@code working} turns false (every consumer gone).
     */
    public boolean awaitDrain(Duration deadline, LongSupplier expected, LongSupplier received,
                              BooleanSupplier working) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        long nextUpdate = System.nanoTime() + TICK.toNanos();
        while (received.getAsLong() < expected.getAsLong()) {
            if (System.nanoTime() > end || !working.getAsBoolean()) {
                done();
                return false;
            }
            Thread.sleep(50);
            if (System.nanoTime() > nextUpdate) {
                nextUpdate += TICK.toNanos();
                update(String.format(Locale.ROOT, "draining  %,d messages left",
                        expected.getAsLong() - received.getAsLong()));
            }
        }
        done();
        return true;
    }

    /** Prints {@code text} as a line of its own, ending any progress line. */
    public void println(String text) {
        done();
        out.println(text);
    }

    /** Ends the progress line. */
    public void done() {
        if (terminal) {
            out.print("\r\033[K");
            out.flush();
        }
    }

    /**
     * Shows {@code text} as the progress line of the current run: on a terminal at once, otherwise as a line of
     * its own at most every 5 seconds.
     */
    public void update(String text) {
        String line = "[" + label + "] " + text;
        if (terminal) {
            out.print("\r\033[K" + line);
            out.flush();
        } else if (System.nanoTime() - lastPlainLine >= PLAIN_EVERY_NANOS) {
            lastPlainLine = System.nanoTime();
            out.println(line);
        }
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        return s < 120 ? s + " s" : (s + 30) / 60 + " min";
    }
}
