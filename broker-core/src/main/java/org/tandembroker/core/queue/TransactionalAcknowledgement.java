package org.tandembroker.core.queue;

import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.txn.TransactionParticipant;

/**
 * A transactional acknowledgement of one entry. {@link #enlisted} completes on the queue's executor with whether
 * the entry was still the consumer's when the acknowledgement reached the queue; if not, it does nothing.
 *
 * <p>The entry's reference on its message is dropped only once the transaction committed: dropped at prepare, a
 * rollback would give it back after another holder (a fanout copy, or the recovery's own reference) had seen the
 * count reach zero and removed the message from the store.
 */
final class TransactionalAcknowledgement implements TransactionParticipant {
    private final BrokerQueue queue;
    private final EntryRemoval removal;
    private final QueueEntry entry;
    final CompletableFuture<Boolean> enlisted = new CompletableFuture<>();

    TransactionalAcknowledgement(BrokerQueue queue, EntryRemoval removal, QueueEntry entry) {
        this.queue = queue;
        this.removal = removal;
        this.entry = entry;
    }

    @Override
    public CompletableFuture<Void> ready() {
        return enlisted.thenApply(held -> null);
    }

    private boolean held() {
        return enlisted.getNow(false);
    }

    @Override
    public void prepare(StoreTransaction storeTransaction) {
        if (held()) {
            removal.appendDequeue(storeTransaction, entry.message);
        }
    }

    @Override
    public void committed() {
        if (held()) {
            queue.executor().execute(() -> queue.removeAcknowledged(entry));
        }
    }

    @Override
    public void rolledBack() {
        // Queued after the enlisting task (same executor), so the entry's state is settled by then.
        queue.executor().execute(() -> queue.returnUnacknowledged(entry));
    }
}
