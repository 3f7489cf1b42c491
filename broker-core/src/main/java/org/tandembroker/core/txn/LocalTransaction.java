package org.tandembroker.core.txn;

import java.util.concurrent.CompletableFuture;

/**
 * A client's local transaction: publishes and acknowledgements that take effect together at commit.
 * Thread-safe for one client connection; the future of {@link #commit()} completes when everything is durable.
 */
public interface LocalTransaction {

    /**
     * Makes the transaction's publishes visible and its acknowledged messages removed, atomically and durably.
     * Fails with TRANSACTION_ROLLBACK (after rolling back) when it cannot commit.
     */
    CompletableFuture<Void> commit();

    /** Discards the publishes; acknowledged messages go back to their queues for redelivery. */
    CompletableFuture<Void> rollback();

    /** True until committed or rolled back. */
    boolean isOpen();

    /**
     * Adds a piece of work (a publish, an acknowledgement) that commits or rolls back with this transaction.
     * Called by the core on the client connection's thread when the front end passes this transaction to a
     * publish or an acceptance; a front end never calls it. Fails with ILLEGAL_STATE once discharged.
     *
     * <p>Only the core's transactions ({@link StoreBackedTransaction}) take participants; a front end's test double
     * that keeps its own publishes and acknowledgements need not.
     */
    default void enlist(TransactionParticipant participant) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no core participants");
    }
}
