package org.tandembroker.perftests;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Which messages the broker confirmed to each producer and which arrived at a consumer, so that a run can prove
 * that every confirmed message was received, and count redeliveries. Messages are identified by (producer,
 * sequence number), numbers counting from 0 in the order of sending.
 *
 * <p>Threads: confirmations of a producer come from its thread (synchronous sends) or its connection's
 * completion thread (asynchronous sends); arrivals come from any consumer thread. Each producer's two sets are
 * guarded by that producer's own monitor, so producers do not contend with each other.
 */
public final class DeliveryLedger {
    private final Sets[] producers;

    /** The sets of one producer; guarded by its own monitor. */
    private static final class Sets {
        final BitSet confirmed = new BitSet();
        final BitSet arrived = new BitSet();
        long[] confirmedAt = new long[64];
        long duplicates;
    }

    public DeliveryLedger(int producers) {
        this.producers = new Sets[producers];
        for (int i = 0; i < producers; i++) {
            this.producers[i] = new Sets();
        }
    }

    /** The broker confirmed message {@code sequence} of {@code producer}. */
    public void confirmed(int producer, long sequence) {
        Sets sets = producers[producer];
        int index = Math.toIntExact(sequence);
        long now = System.nanoTime();
        synchronized (sets) {
            sets.confirmed.set(index);
            if (index >= sets.confirmedAt.length) {
                sets.confirmedAt = Arrays.copyOf(sets.confirmedAt, Math.max(index + 1, sets.confirmedAt.length * 2));
            }
            sets.confirmedAt[index] = now;
        }
    }

    /** A consumer received message {@code sequence} of {@code producer}. */
    public void arrived(int producer, long sequence) {
        Sets sets = producers[producer];
        int index = Math.toIntExact(sequence);
        synchronized (sets) {
            if (sets.arrived.get(index)) {
                sets.duplicates++;
            } else {
                sets.arrived.set(index);
            }
        }
    }

    /** Messages confirmed so far. */
    public long confirmedCount() {
        long total = 0;
        for (Sets sets : producers) {
            synchronized (sets) {
                total += sets.confirmed.cardinality();
            }
        }
        return total;
    }

    /** Confirmed messages that arrived so far (a progress figure while draining). */
    public long confirmedArrivals() {
        long total = 0;
        for (Sets sets : producers) {
            synchronized (sets) {
                BitSet both = (BitSet) sets.confirmed.clone();
                both.and(sets.arrived);
                total += both.cardinality();
            }
        }
        return total;
    }

    /**
     * Every confirmed message that has not arrived, in producer then sequence order, with the moment
     * ({@link System#nanoTime}) its confirmation reached the producer: the evidence to look at when
     * {@link Check#missing()} is not 0.
     */
    public List<Missing> missing() {
        List<Missing> missing = new ArrayList<>();
        for (int producer = 0; producer < producers.length; producer++) {
            Sets sets = producers[producer];
            synchronized (sets) {
                BitSet lost = (BitSet) sets.confirmed.clone();
                lost.andNot(sets.arrived);
                for (int sequence = lost.nextSetBit(0); sequence >= 0; sequence = lost.nextSetBit(sequence + 1)) {
                    missing.add(new Missing(producer, sequence, sets.confirmedAt[sequence]));
                }
            }
        }
        return missing;
    }

    /** The highest sequence number {@code producer} had confirmed, or -1 if none. */
    public long lastConfirmed(int producer) {
        Sets sets = producers[producer];
        synchronized (sets) {
            return sets.confirmed.length() - 1;
        }
    }

    /** A confirmed message that never arrived; {@code confirmedAtNanos} is a {@link System#nanoTime} reading. */
    public record Missing(int producer, long sequence, long confirmedAtNanos) {
    }

    /** The outcome; meaningful once producers and consumers stopped. */
    public Check check() {
        long confirmed = 0;
        long received = 0;
        long missing = 0;
        long duplicates = 0;
        long unconfirmedArrivals = 0;
        for (Sets sets : producers) {
            synchronized (sets) {
                BitSet lost = (BitSet) sets.confirmed.clone();
                lost.andNot(sets.arrived);
                BitSet unconfirmed = (BitSet) sets.arrived.clone();
                unconfirmed.andNot(sets.confirmed);
                confirmed += sets.confirmed.cardinality();
                received += sets.arrived.cardinality();
                missing += lost.cardinality();
                unconfirmedArrivals += unconfirmed.cardinality();
                duplicates += sets.duplicates;
            }
        }
        return new Check(confirmed, received, missing, duplicates, unconfirmedArrivals);
    }

    /**
     * @param confirmed           sends the broker confirmed
     * @param received            distinct messages received
     * @param missing             confirmed messages never received (must be 0)
     * @param duplicates          messages received more than once (redeliveries)
     * @param unconfirmedArrivals messages received whose send was not confirmed (in doubt when a send failed)
     */
    public record Check(long confirmed, long received, long missing, long duplicates, long unconfirmedArrivals) {
        public boolean complete() {
            return missing == 0;
        }
    }
}
