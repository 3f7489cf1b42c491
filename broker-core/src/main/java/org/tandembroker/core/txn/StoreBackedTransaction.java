package org.tandembroker.core.txn;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.store.StoreTransaction;

/**
 * The core's local transaction: participants enlist while the client works; {@link #commit()} writes all their
 * records in one store transaction and tells them the outcome. Used by one client connection at a time; the
 * participant list is guarded by this object's monitor because commit completion runs on a store thread. The store
 * work of a commit runs on whichever thread completed the last participant's {@link TransactionParticipant#ready()}.
 */
public final class StoreBackedTransaction implements LocalTransaction {
    private final Supplier<StoreTransaction> storeTransactions;
    private final List<TransactionParticipant> participants = new ArrayList<>();
    private boolean open = true;

    public StoreBackedTransaction(Supplier<StoreTransaction> storeTransactions) {
        this.storeTransactions = storeTransactions;
    }

    @Override
    public synchronized void enlist(TransactionParticipant participant) {
        if (!open) {
            throw new BrokerException(ErrorKind.ILLEGAL_STATE, "transaction already discharged");
        }
        participants.add(participant);
    }

    @Override
    public synchronized boolean isOpen() {
        return open;
    }

    @Override
    public CompletableFuture<Void> commit() {
        List<TransactionParticipant> work = discharge();
        if (work == null) {
            return CompletableFuture.failedFuture(
                    new BrokerException(ErrorKind.ILLEGAL_STATE, "transaction already discharged"));
        }
        CompletableFuture<?>[] ready = work.stream().map(TransactionParticipant::ready).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(ready).thenCompose(v -> prepareAndCommit(work));
    }

    private CompletableFuture<Void> prepareAndCommit(List<TransactionParticipant> work) {
        StoreTransaction storeTransaction;
        try {
            storeTransaction = storeTransactions.get();
            for (TransactionParticipant p : work) {
                p.prepare(storeTransaction);
            }
        } catch (RuntimeException e) {
            work.forEach(TransactionParticipant::rolledBack);
            return CompletableFuture.failedFuture(rollbackError(e));
        }
        CompletableFuture<Void> durable = storeTransaction.isEmpty()
                ? CompletableFuture.completedFuture(null) : storeTransaction.commit();
        return durable.handle((ok, failure) -> {
            if (failure != null) {
                BrokerException cause = BrokerException.from(failure);
                if (cause.kind() == ErrorKind.IN_DOUBT) {
                    // Committed in this node's store, acknowledgements missing: what is stored is applied here too,
                    // and the client hears "in doubt", not "rolled back" (it may have committed).
                    work.forEach(TransactionParticipant::committed);
                    throw new BrokerException(ErrorKind.IN_DOUBT, "transaction " + cause.getMessage(), cause);
                }
                work.forEach(TransactionParticipant::rolledBack);
                throw rollbackError(failure);
            }
            work.forEach(TransactionParticipant::committed);
            if (work.stream().anyMatch(TransactionParticipant::outlivedItsActivation)) {
                throw new BrokerException(ErrorKind.IN_DOUBT, "transaction committed while the virtual host was "
                        + "passivating: its messages are stored and are delivered after the next recovery; "
                        + "redoing it may duplicate them");
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Void> rollback() {
        List<TransactionParticipant> work = discharge();
        if (work != null) {
            work.forEach(TransactionParticipant::rolledBack);
        }
        return CompletableFuture.completedFuture(null);
    }

    private synchronized List<TransactionParticipant> discharge() {
        if (!open) {
            return null;
        }
        open = false;
        return List.copyOf(participants);
    }

    private static BrokerException rollbackError(Throwable failure) {
        BrokerException cause = BrokerException.from(failure);
        return new BrokerException(ErrorKind.TRANSACTION_ROLLBACK,
                "transaction rolled back: " + cause.getMessage(), cause);
    }
}
