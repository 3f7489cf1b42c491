package org.tandembroker.core.txn;

import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.store.StoreTransaction;

/**
 * One piece of a local transaction (a publish, an acknowledgement). Enlisted synchronously by the client's
 * connection thread, so that a commit that follows sees it. Called in order: {@link #ready} (commit waits for it),
 * {@link #prepare} while the store transaction is built, then exactly one of {@link #committed} or
 * {@link #rolledBack}.
 */
public interface TransactionParticipant {

    /** Completes when the participant's own bookkeeping (on its owner's thread) is done; commit waits for it. */
    default CompletableFuture<Void> ready() {
        return CompletableFuture.completedFuture(null);
    }

    /** Adds this piece's store records; must not touch state owned by another thread. */
    void prepare(StoreTransaction storeTransaction);

    /** The store transaction is durable: make the effect visible. */
    void committed();

    /**
     * Asked after {@link #committed()}: whether the effect may not have become visible because the virtual host
     * activation it belonged to ended meanwhile (the store keeps it for a later recovery). The commit is then
     * reported in doubt, never as done.
     */
    default boolean outlivedItsActivation() {
        return false;
    }

    /** Undo: release reservations, return acknowledged messages to their queues for redelivery. */
    void rolledBack();
}
