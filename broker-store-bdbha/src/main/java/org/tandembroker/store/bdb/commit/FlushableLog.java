package org.tandembroker.store.bdb.commit;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The log that an applier pool's flush makes durable. {@link #end()} is the position of the last record written
 * so far, or {@link CoalescingCommitter#NO_POSITION}: every record at or below it is made durable by a
 * {@link #flush()} that starts afterwards.
 */
public interface FlushableLog {
    long end();

    /** Makes every transaction applied so far durable (one fsync); throws when that failed. */
    void flush();

    /** A log whose end is read with {@code end} and flushed with {@code flush}. */
    static FlushableLog of(LongSupplier end, Runnable flush) {
        Objects.requireNonNull(end, "end");
        Objects.requireNonNull(flush, "flush");
        return new FlushableLog() {
            @Override
            public long end() {
                return end.getAsLong();
            }

            @Override
            public void flush() {
                flush.run();
            }
        };
    }
}
