package org.tandembroker.core.queue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.StoreTransaction;

/** What a queue needs from its virtual host. Thread-safe. */
public interface QueueHost {

    StoreTransaction newStoreTransaction();

    CompletableFuture<byte[]> loadContent(long messageId);

    /** Finds or creates the named dead-letter queue. */
    CompletableFuture<BrokerQueue> deadLetterQueue(String name);

    /** A queue with no consumers left that should go (a private subscription queue). */
    void autoDelete(BrokerQueue queue);

    OperationalLog operationalLog();

    long nowMillis();

    /**
     * Runs {@code task} once after {@code delayMillis} on the host's one timer thread; the task must only hand work
     * to a queue's executor. The default uses the JVM's shared delayer; a virtual host passes its housekeeping
     * scheduler.
     */
    default void schedule(Runnable task, long delayMillis) {
        CompletableFuture.delayedExecutor(Math.max(0, delayMillis), TimeUnit.MILLISECONDS).execute(task);
    }
}
