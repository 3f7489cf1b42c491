package org.tandembroker.core.queue;

import java.util.concurrent.CompletableFuture;
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
}
