package org.tandembroker.core.message;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap budget for message bodies (flow to disk). Bodies of stored messages that do not fit stay in the store
 * only and are read back on delivery; bodies of messages that are not stored must stay on the heap and are
 * counted regardless. Thread-safe.
 */
public final class ContentBudget {
    private final long limitBytes;
    private final AtomicLong usedBytes = new AtomicLong();

    public ContentBudget(long limitBytes) {
        this.limitBytes = limitBytes;
    }

    /** Reserves {@code bytes}; {@code mustRetain} forces the reservation even past the limit. */
    public boolean tryRetain(long bytes, boolean mustRetain) {
        while (true) {
            long used = usedBytes.get();
            if (!mustRetain && used + bytes > limitBytes) {
                return false;
            }
            if (usedBytes.compareAndSet(used, used + bytes)) {
                return true;
            }
        }
    }

    public void release(long bytes) {
        usedBytes.addAndGet(-bytes);
    }

    public long usedBytes() {
        return usedBytes.get();
    }

    public long limitBytes() {
        return limitBytes;
    }

    public boolean isExhausted() {
        return usedBytes.get() >= limitBytes;
    }
}
