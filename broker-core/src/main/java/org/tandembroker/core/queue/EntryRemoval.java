package org.tandembroker.core.queue;

import java.util.Collection;
import java.util.UUID;
import java.util.function.Supplier;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.store.StoreTransaction;

/**
 * The store side of taking messages off one queue: the queue's dequeue record and, with a message's last
 * reference, the message itself. Nothing waits for these writes (relaxed durability): a lost dequeue is a
 * redelivery after a restart, a lost message removal an orphan that the next recovery removes. Thread-safe: it
 * touches only the messages' atomic reference counts.
 */
final class EntryRemoval {
    private final UUID queueId;
    private final boolean durable;
    private final Supplier<StoreTransaction> transactions;

    /** @param transactions the queue's store transactions (writing nothing once the queue let go of the store) */
    EntryRemoval(UUID queueId, boolean durable, Supplier<StoreTransaction> transactions) {
        this.queueId = queueId;
        this.durable = durable;
        this.transactions = transactions;
    }

    /** Adds the record of this queue's entry for {@code message} going away, if it is stored. */
    void appendDequeue(StoreTransaction storeTransaction, ServerMessage message) {
        if (message.isStored() && durable) {
            storeTransaction.dequeue(queueId, message.id());
        }
    }

    /**
     * Adds the records that take {@code message} off this queue and drops the entry's reference; returns whether
     * that was the message's last reference (then its record goes too, and its content may be released).
     */
    boolean append(StoreTransaction storeTransaction, ServerMessage message) {
        appendDequeue(storeTransaction, message);
        boolean last = message.dropReference() == 0;
        if (last && message.isStored()) {
            storeTransaction.removeMessage(message.id());
        }
        return last;
    }

    /** Removes a message whose last reference went, in a store transaction of its own. */
    void removeMessageRecord(ServerMessage message) {
        try {
            StoreTransaction removal = transactions.get();
            removal.removeMessage(message.id());
            removal.commit();
        } catch (BrokerException e) {
            // No store (the host is passivating): the record stays, an orphan that the next recovery removes.
        }
    }

    /**
     * Takes messages kept in the store only (each this queue's alone) off this queue: entry and message records, in
     * transactions of bounded size, without waiting.
     */
    void removeStoredOnly(long[] messageIds) {
        StoreTransaction storeTransaction = null;
        int inTransaction = 0;
        for (long id : messageIds) {
            if (storeTransaction == null) {
                storeTransaction = transactions.get();
            }
            if (durable) {
                storeTransaction.dequeue(queueId, id);
            }
            storeTransaction.removeMessage(id);
            if (++inTransaction == 1024) {
                storeTransaction.commit();
                storeTransaction = null;
                inTransaction = 0;
            }
        }
        if (storeTransaction != null) {
            storeTransaction.commit();
        }
    }

    /** Takes messages that have no entry (any more) off this queue, in one transaction, releasing their content. */
    void removeWithoutEntries(Collection<ServerMessage> messages) {
        StoreTransaction storeTransaction = transactions.get();
        for (ServerMessage message : messages) {
            if (append(storeTransaction, message)) {
                message.releaseContent();
            }
        }
        if (!storeTransaction.isEmpty()) {
            storeTransaction.commit();
        }
    }
}
