package org.tandembroker.core.queue;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.StoreTransaction;

/**
 * The store transaction of a queue that let go of the store when its host passivated: it records nothing and its
 * commit writes nothing, so the queue's late in-memory work leaves the store to the next activation. Stateless.
 */
final class NothingStored implements StoreTransaction {
    static final NothingStored INSTANCE = new NothingStored();

    private NothingStored() {
    }

    @Override
    public void storeMessage(long messageId, byte[] metadata, byte[] content) {
    }

    @Override
    public void enqueue(UUID queueId, long messageId) {
    }

    @Override
    public void dequeue(UUID queueId, long messageId) {
    }

    @Override
    public void removeMessage(long messageId) {
    }

    @Override
    public void putConfig(ConfigRecord record) {
    }

    @Override
    public void removeConfig(UUID id) {
    }

    @Override
    public boolean isEmpty() {
        return true;
    }

    @Override
    public CompletableFuture<Void> commit() {
        return CompletableFuture.completedFuture(null);
    }
}
