package org.tandembroker.core.queue;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntry;

/** What a queue needs from its virtual host. Thread-safe. */
public interface QueueHost {

    StoreTransaction newStoreTransaction();

    CompletableFuture<byte[]> loadContent(long messageId);

    /** Reads back the content of a message queue {@code holder} holds ({@link MessageStore#loadContent(UUID, long)}). */
    default CompletableFuture<byte[]> loadContent(UUID holder, long messageId) {
        return loadContent(messageId);
    }

    /** Finds or creates the named dead-letter queue. */
    CompletableFuture<BrokerQueue> deadLetterQueue(String name);

    /** A queue with no consumers left that should go (a private subscription queue). */
    void autoDelete(BrokerQueue queue);

    OperationalLog operationalLog();

    /**
     * New entries a durable queue keeps on the heap before it keeps further messages in the store only and reads
     * them back in batches as its consumers take the head ({@link PagedEntries}); 0: every entry on the heap.
     */
    default int queueWindow() {
        return 0;
    }

    /**
     * The budget that bodies read back together with their metadata ({@link StoredEntry#content}) are kept within,
     * as a publisher's are; null: they are not kept, and read again on delivery.
     */
    default ContentBudget contentBudget() {
        return null;
    }

    /** Reads the metadata of stored messages by id, in the order given ({@link MessageStore#readMessages}). */
    default CompletableFuture<List<StoredEntry>> readMessages(long[] ids) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("no store to read messages from"));
    }

    /** Reads back messages queue {@code holder} holds ({@link MessageStore#readMessages(UUID, long[])}). */
    default CompletableFuture<List<StoredEntry>> readMessages(UUID holder, long[] ids) {
        return readMessages(ids);
    }

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
