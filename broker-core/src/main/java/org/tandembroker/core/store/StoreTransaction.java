package org.tandembroker.core.store;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * A set of store operations applied atomically. Operations are collected in memory by the (single) thread that
 * builds the transaction; nothing touches the disk until {@link #commit()}, which hands the whole set to the
 * store's own threads.
 *
 * <p>Durability is chosen by the store from the content: a transaction that adds messages, queue entries or
 * configuration records is committed with the store's full policy (sync, replica acknowledgements);
 * a transaction that only removes entries or messages (a consumer's acknowledgements) is committed without
 * waiting for an fsync or replicas. Losing such a removal in a crash means a redelivery, which at-least-once
 * delivery allows.
 */
public interface StoreTransaction {

    /**
     * Stores a message: {@code metadata} and {@code content} are opaque to the store, which does not copy them (the
     * caller must not change the arrays afterwards).
     */
    void storeMessage(long messageId, byte[] metadata, byte[] content);

    /**
     * Like {@link #storeMessage(long, byte[], byte[])}; {@code alsoOnNonDurableQueues}: queues that keep messages in
     * memory only hold this one too, and may read its content back ({@link MessageStore#loadContent}) after every
     * durable queue let go of it, until its removal. A store that may keep a message inside its only entry keeps such a
     * message in a record of its own.
     */
    default void storeMessage(long messageId, byte[] metadata, byte[] content, boolean alsoOnNonDurableQueues) {
        storeMessage(messageId, metadata, content);
    }

    /** Records that {@code messageId} is on queue {@code queueId}. */
    void enqueue(UUID queueId, long messageId);

    /** Removes the entry of {@code messageId} from queue {@code queueId}. */
    void dequeue(UUID queueId, long messageId);

    /** Removes a message's metadata and content (once no queue holds it any more). */
    void removeMessage(long messageId);

    /** Creates or replaces a configuration record. */
    void putConfig(ConfigRecord record);

    /** Removes a configuration record; removing a queue's record also removes every entry of that queue. */
    void removeConfig(UUID id);

    /** True when no operation was added. */
    boolean isEmpty();

    /**
     * Commits asynchronously. The future completes normally when the transaction is durable per the policy
     * described above, and exceptionally with a {@link org.tandembroker.core.BrokerException} otherwise
     * (e.g. {@code RESOURCE_LIMIT_EXCEEDED} for a full disk, {@code IN_DOUBT} when a replicated store committed
     * locally without enough acknowledgements, {@code NOT_ACTIVE} when the node lost its master role).
     * A transaction can be committed once.
     */
    CompletableFuture<Void> commit();
}
