package org.tandembroker.store.bdb;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.StoreTransaction;

/**
 * Collects a transaction's operations in memory; {@link #commit()} hands them to the store as one
 * {@link ChangeSet}.
 *
 * <p><b>Threads.</b> Owned by the one thread that builds it (as {@link StoreTransaction} requires); it touches
 * no disk and no shared state. The byte arrays given to {@link #storeMessage} are not copied: the caller must not
 * change them afterwards.
 */
public final class BdbTransaction implements StoreTransaction {
    private final Function<ChangeSet, CompletableFuture<Void>> committer;
    private final List<ChangeSet.Operation> operations = new ArrayList<>();
    private boolean committed;

    public BdbTransaction(Function<ChangeSet, CompletableFuture<Void>> committer) {
        this.committer = committer;
    }

    @Override
    public void storeMessage(long messageId, byte[] metadata, byte[] content) {
        add(new ChangeSet.StoreMessage(messageId, metadata, content));
    }

    @Override
    public void storeMessage(long messageId, byte[] metadata, byte[] content, boolean alsoOnNonDurableQueues) {
        add(new ChangeSet.StoreMessage(messageId, metadata, content, alsoOnNonDurableQueues));
    }

    @Override
    public void enqueue(UUID queueId, long messageId) {
        add(new ChangeSet.Enqueue(queueId, messageId));
    }

    @Override
    public void dequeue(UUID queueId, long messageId) {
        add(new ChangeSet.Dequeue(queueId, messageId));
    }

    @Override
    public void removeMessage(long messageId) {
        add(new ChangeSet.RemoveMessage(messageId));
    }

    @Override
    public void putConfig(ConfigRecord record) {
        add(new ChangeSet.PutConfig(record));
    }

    @Override
    public void removeConfig(UUID id) {
        add(new ChangeSet.RemoveConfig(id));
    }

    @Override
    public boolean isEmpty() {
        return operations.isEmpty();
    }

    @Override
    public CompletableFuture<Void> commit() {
        if (committed) {
            return CompletableFuture.failedFuture(
                    new BrokerException(ErrorKind.ILLEGAL_STATE, "a store transaction can be committed once"));
        }
        committed = true;
        if (operations.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return committer.apply(new ChangeSet(operations));
    }

    private void add(ChangeSet.Operation operation) {
        if (committed) {
            throw new BrokerException(ErrorKind.ILLEGAL_STATE, "the store transaction is already committed");
        }
        operations.add(operation);
    }
}
