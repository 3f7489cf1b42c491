package org.tandembroker.store.bdb;

import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.tandembroker.core.exec.NamedThreadFactory;

/**
 * A store's reader thread: the reads of the store's databases outside commits run here, one at a time. Reads a
 * delivery waits for ({@link #execute}, {@link #submit}: message content, and barriers) go before recovery's
 * background reads ({@link #executeInBackground}: pages of queue entries and message ids), each kind in arrival
 * order. So a background read delays only the content reads that arrive while it runs (a page: milliseconds),
 * and recovery loads when no delivery waits. It cannot starve: consumers only ask for the content of entries that
 * are already loaded.
 *
 * <p>A barrier ({@code submit(() -> { })}) completes after every read queued before it except background reads:
 * a background read must check when it runs that what it reads is still open.
 *
 * <p>Thread-safe; an {@link java.util.concurrent.ExecutorService} with one thread, named by the caller.
 */
public final class StoreReader extends ThreadPoolExecutor {
    private final AtomicLong sequence = new AtomicLong();

    /** @param created told of the reader thread when it is made (to recognise it later) */
    public StoreReader(String threadName, Consumer<Thread> created) {
        super(1, 1, 0, TimeUnit.MILLISECONDS, new PriorityBlockingQueue<>(),
                NamedThreadFactory.daemonThread(threadName, created));
        prestartCoreThread(); // so every read is queued, and ordered, instead of handed straight to a new thread
    }

    /** A read a delivery (or a closing store) waits for. */
    @Override
    public void execute(Runnable read) {
        super.execute(read instanceof Ordered ordered ? ordered : new Ordered(read, false, sequence.getAndIncrement()));
    }

    /** A read of recovery's background loading: runs when no other read is waiting. */
    public void executeInBackground(Runnable read) {
        super.execute(new Ordered(read, true, sequence.getAndIncrement()));
    }

    private record Ordered(Runnable read, boolean background, long sequence)
            implements Runnable, Comparable<Ordered> {
        @Override
        public void run() {
            read.run();
        }

        @Override
        public int compareTo(Ordered other) {
            if (background != other.background) {
                return background ? 1 : -1;
            }
            return Long.compare(sequence, other.sequence);
        }
    }
}
