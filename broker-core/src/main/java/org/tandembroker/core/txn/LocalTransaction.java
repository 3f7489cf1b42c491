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
}
