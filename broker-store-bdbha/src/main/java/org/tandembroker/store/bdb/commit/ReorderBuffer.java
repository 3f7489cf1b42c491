package org.tandembroker.store.bdb.commit;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Completion in submission order behind appliers that finish in any order (one may wait seconds for replica
 * acknowledgements while the next is already acknowledged): every ordered submission takes a number when it is
 * submitted, and a finished outcome is held back until every lower number has been released.
 *
 * <p><b>Threads.</b> {@link #nextSequence()} on any thread (submitters); everything else by the threads that
 * complete the futures (an applier pool's appliers and flusher), one at a time under the pool's completion lock.
 *
 * @param <R> an outcome to release
 */
final class ReorderBuffer<R> {
    private final AtomicLong sequences = new AtomicLong();
    private final Map<Long, R> held = new HashMap<>();
    private long nextToRelease;

    /** The number of the next submission, in submission order from 0. */
    long nextSequence() {
        return sequences.getAndIncrement();
    }

    /** Holds the final outcome of submission {@code sequence} until its turn. */
    void finished(long sequence, R outcome) {
        held.put(sequence, outcome);
    }

    /** Releases, in order, every held outcome whose lower numbers have all been released. */
    void releaseInOrder(Consumer<R> release) {
        R next;
        while ((next = held.remove(nextToRelease)) != null) {
            release.accept(next);
            nextToRelease++;
        }
    }

    /**
     * Closing: releases everything still held in number order, regardless of gaps (the missing numbers belong to
     * submissions that the close failed itself).
     */
    void releaseRemaining(Consumer<R> release) {
        held.keySet().stream().sorted().forEach(sequence -> release.accept(held.get(sequence)));
        held.clear();
    }
}
