package org.tandembroker.core.txn;

import org.tandembroker.core.store.StoreTransaction;

/**
 * One piece of a local transaction (a publish, an acknowledgement). Called in order: {@link #prepare} while the
 * store transaction is built, then exactly one of {@link #committed} or {@link #rolledBack}.
 */
public interface TransactionParticipant {

    /** Adds this piece's store records; must not touch state owned by another thread. */
    void prepare(StoreTransaction storeTransaction);

    /** The store transaction is durable: make the effect visible. */
    void committed();

    /** Undo: release reservations, return acknowledged messages to their queues for redelivery. */
    void rolledBack();
}
