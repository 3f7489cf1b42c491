package org.tandembroker.perftests;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Throughput against time from an origin (a broker's start, or the kill of a master): messages counted in slots
 * of {@value #SLOT_MILLIS} ms, then read as buckets from the first slot in which the broker served a message
 * (<em>serving</em>), against the warm rate of the same broker later in the same run.
 *
 * <p>"Reached" is the end of the first bucket at or above the target fraction of the warm rate from which on the
 * mean of the reported span also stays at or above it: a single lucky second does not count, and one slow second
 * after it (a GC, a neighbour's burst) does not undo it. The target is met when it is reached within
 * {@code deadline} of serving.
 *
 * <p>Threads: {@link #record} is called by any number of client threads (lock-free); the readers run after the
 * load stopped, on the benchmark's thread.
 */
public final class WarmStartCurve {
    static final int SLOT_MILLIS = 10;

    private final long originNanos;
    private final AtomicLongArray slots;

    /** A curve whose slots cover {@code length} from {@code originNanos} ({@link System#nanoTime}). */
    public WarmStartCurve(long originNanos, Duration length) {
        this.originNanos = originNanos;
        this.slots = new AtomicLongArray((int) Math.max(1, length.toMillis() / SLOT_MILLIS));
    }

    /** Counts one message at {@code nanos}; messages before the origin or past the end are not counted. */
    public void record(long nanos) {
        long slot = Math.floorDiv(nanos - originNanos, SLOT_MILLIS * 1_000_000L);
        if (slot >= 0 && slot < slots.length()) {
            slots.incrementAndGet((int) slot);
        }
    }

    /** The counts per slot so far (a copy). */
    public long[] slots() {
        long[] copy = new long[slots.length()];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = slots.get(i);
        }
        return copy;
    }

    /**
     * Reads {@code slots} (counts per {@value #SLOT_MILLIS} ms from the origin).
     *
     * @param bucket     the length of one bucket of the curve, a multiple of {@value #SLOT_MILLIS} ms
     * @param span       how much of the curve after serving is reported, in whole buckets
     * @param warmAfter  where the warm reference window starts, from serving
     * @param warmWindow the warm reference window's length
     */
    public static Reading read(long[] slots, Duration bucket, Duration span, Duration warmAfter, Duration warmWindow,
                               double target, Duration deadline) {
        int perBucket = (int) (bucket.toMillis() / SLOT_MILLIS);
        if (perBucket < 1 || bucket.toMillis() % SLOT_MILLIS != 0) {
            throw new IllegalArgumentException("a bucket must be a multiple of " + SLOT_MILLIS + " ms: " + bucket);
        }
        int serving = -1;
        for (int i = 0; i < slots.length && serving < 0; i++) {
            if (slots[i] > 0) {
                serving = i;
            }
        }
        if (serving < 0) {
            return new Reading(Optional.empty(), new double[0], 0, new double[0], Optional.empty(), false, 0);
        }
        int warmFrom = serving + (int) (warmAfter.toMillis() / SLOT_MILLIS);
        int warmTo = warmFrom + (int) (warmWindow.toMillis() / SLOT_MILLIS);
        if (warmTo > slots.length) {
            throw new IllegalArgumentException("the curve ends before the warm window does");
        }
        double warm = sum(slots, warmFrom, warmTo) * 1000.0 / warmWindow.toMillis();
        int buckets = (int) Math.min(span.toMillis() / bucket.toMillis(), (slots.length - serving) / perBucket);
        double[] rates = new double[buckets];
        double[] ratios = new double[buckets];
        for (int b = 0; b < buckets; b++) {
            int from = serving + b * perBucket;
            rates[b] = sum(slots, from, from + perBucket) * 1000.0 / bucket.toMillis();
            ratios[b] = warm > 0 ? rates[b] / warm : 0;
        }
        Optional<Duration> reached = Optional.empty();
        for (int b = 0; b < buckets && reached.isEmpty(); b++) {
            if (ratios[b] >= target && mean(ratios, b, buckets) >= target) {
                reached = Optional.of(bucket.multipliedBy(b + 1));
            }
        }
        int deadlineBuckets = (int) Math.min(buckets, deadline.toMillis() / bucket.toMillis());
        boolean met = reached.isPresent() && reached.get().compareTo(deadline) <= 0;
        return new Reading(Optional.of(Duration.ofMillis((long) serving * SLOT_MILLIS)), rates, warm, ratios,
                reached, met, deadlineBuckets == 0 ? 0 : mean(ratios, 0, deadlineBuckets));
    }

    private static long sum(long[] slots, int from, int to) {
        long sum = 0;
        for (int i = Math.max(0, from); i < Math.min(to, slots.length); i++) {
            sum += slots[i];
        }
        return sum;
    }

    private static double mean(double[] values, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += values[i];
        }
        return to > from ? sum / (to - from) : 0;
    }

    /**
     * What a curve shows.
     *
     * @param toServing        from the origin to the first message served (empty: none was)
     * @param rates            messages per second in each bucket from serving
     * @param warmRate         messages per second in the warm reference window
     * @param ratios           each bucket's rate over the warm rate
     * @param reached          from serving to the end of the bucket where the target was reached and held
     * @param met              whether it was reached within the deadline
     * @param meanRatioToDeadline the mean of the ratios of the buckets before the deadline
     */
    public record Reading(Optional<Duration> toServing, double[] rates, double warmRate, double[] ratios,
                          Optional<Duration> reached, boolean met, double meanRatioToDeadline) {
    }
}
