package org.tandembroker.store.bdb;

import java.util.List;
import java.util.UUID;
import org.tandembroker.core.store.ConfigRecord;

/**
 * The operations of one committed {@link org.tandembroker.core.store.StoreTransaction}, applied atomically as one
 * JE transaction. Immutable once built; byte arrays are owned by the change set (not copied, not to be changed
 * by the caller after handing them over).
 *
 * @param operations in the order they were added
 */
public record ChangeSet(List<Operation> operations) {

    public ChangeSet {
        operations = List.copyOf(operations);
    }

    /**
     * True when the change set only removes queue entries or messages: such a commit may be lost in a crash
     * without breaking at-least-once delivery (the message is redelivered), so it never waits for an fsync.
     */
    public boolean removalOnly() {
        return operations.stream().allMatch(Operation::isRemoval);
    }

    /** One store operation. */
    public sealed interface Operation {
        /** True for operations that only remove data. */
        default boolean isRemoval() {
            return false;
        }
    }

    /**
     * @param alsoOnNonDurableQueues queues that keep messages in memory only hold it too: it keeps a record of its own
     *                               ({@link org.tandembroker.core.store.StoreTransaction#storeMessage(long, byte[],
     *                               byte[], boolean)})
     */
    public record StoreMessage(long messageId, byte[] metadata, byte[] content, boolean alsoOnNonDurableQueues)
            implements Operation {
        /** A message no queue keeps in memory only. */
        public StoreMessage(long messageId, byte[] metadata, byte[] content) {
            this(messageId, metadata, content, false);
        }
    }

    public record Enqueue(UUID queueId, long messageId) implements Operation {
    }

    public record Dequeue(UUID queueId, long messageId) implements Operation {
        @Override
        public boolean isRemoval() {
            return true;
        }
    }

    public record RemoveMessage(long messageId) implements Operation {
        @Override
        public boolean isRemoval() {
            return true;
        }
    }

    public record PutConfig(ConfigRecord record) implements Operation {
    }

    /**
     * Removes a configuration record and, when it is a queue's, the queue's entries (the virtual host deletes a
     * queue by removing its record, as the memory store understands it too). Not a "removal" for durability:
     * losing it in a crash would resurrect a deleted queue or binding, which no redelivery rule excuses.
     */
    public record RemoveConfig(UUID id) implements Operation {
    }
}
