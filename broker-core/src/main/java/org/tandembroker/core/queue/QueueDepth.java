package org.tandembroker.core.queue;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A queue's depth and its in/out counters. Atomics, because publishers reserve room from their own threads before
 * the message is stored (so that a full queue refuses the publish instead of growing), and management reads them
 * from anywhere; everything else changes them on the queue's executor.
 */
final class QueueDepth {
    private final long maxMessages;
    private final long maxBytes;
    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong enqueuedTotal = new AtomicLong();
    private final AtomicLong dequeuedTotal = new AtomicLong();
    private final AtomicLong enqueuedBytes = new AtomicLong();
    private final AtomicLong dequeuedBytes = new AtomicLong();

    /** Limits of 0 mean none. */
    QueueDepth(long maxMessages, long maxBytes) {
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
    }

    /**
     * Reserves room for one message of {@code size} bytes; returns null, or why the queue is full (then nothing is
     * reserved). A reservation ends in {@link #enqueued} and later {@link #removed}, or in {@link #cancel}.
     */
    String tryReserve(int size) {
        while (true) {
            long current = messages.get();
            if (maxMessages > 0 && current >= maxMessages) {
                return "holds " + current + " messages (maxDepthMessages " + maxMessages + ")";
            }
            if (messages.compareAndSet(current, current + 1)) {
                break;
            }
        }
        long newBytes = bytes.addAndGet(size);
        if (maxBytes > 0 && newBytes > maxBytes) {
            cancel(size);
            return "holds " + (newBytes - size) + " bytes (maxDepthBytes " + maxBytes + ")";
        }
        return null;
    }

    /** Takes room without checking the limits (a message moved here by dead-lettering). */
    void reserveUnchecked(int size) {
        messages.incrementAndGet();
        bytes.addAndGet(size);
    }

    /** Recovered messages kept in the store only joined the queue (room taken without checking the limits). */
    void recoveredInBulk(long count, long size) {
        messages.addAndGet(count);
        bytes.addAndGet(size);
        enqueuedTotal.addAndGet(count);
        enqueuedBytes.addAndGet(size);
    }

    void cancel(int size) {
        messages.decrementAndGet();
        bytes.addAndGet(-size);
    }

    /** A message whose room is reserved joined the queue. */
    void enqueued(int size) {
        enqueuedTotal.incrementAndGet();
        enqueuedBytes.addAndGet(size);
    }

    /** A message left the queue (consumed, expired, dead-lettered). */
    void removed(int size) {
        cancel(size);
        dequeuedTotal.incrementAndGet();
        dequeuedBytes.addAndGet(size);
    }

    long messages() {
        return messages.get();
    }

    long bytes() {
        return bytes.get();
    }

    long enqueuedTotal() {
        return enqueuedTotal.get();
    }

    long dequeuedTotal() {
        return dequeuedTotal.get();
    }

    long enqueuedBytes() {
        return enqueuedBytes.get();
    }

    long dequeuedBytes() {
        return dequeuedBytes.get();
    }
}
