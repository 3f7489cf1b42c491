package org.tandembroker.core.queue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * A queue entry handed to a consumer. Immutable apart from the settled flag; settling hands the work to the
 * queue's executor, which ignores settlements of entries no longer owned by this consumer.
 */
final class EntryDelivery implements Delivery {
    private final BrokerQueue queue;
    private final QueueEntry entry;
    private final QueueConsumer consumer;
    private final byte[] content;
    private final int deliveryCount;
    private final AtomicBoolean settled = new AtomicBoolean();

    EntryDelivery(BrokerQueue queue, QueueEntry entry, QueueConsumer consumer, byte[] content, int deliveryCount) {
        this.queue = queue;
        this.entry = entry;
        this.consumer = consumer;
        this.content = content;
        this.deliveryCount = deliveryCount;
    }

    @Override
    public long messageId() {
        return entry.message.id();
    }

    @Override
    public MessageMetadata metadata() {
        return entry.message.metadata();
    }

    @Override
    public byte[] content() {
        return content;
    }

    @Override
    public int deliveryCount() {
        return deliveryCount;
    }

    @Override
    public CompletableFuture<Void> accept(LocalTransaction transaction) {
        if (consumer.preSettled || consumer.browsing || !settled.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null); // a browser's copy: nothing to settle
        }
        if (transaction != null) {
            return queue.acceptInTransaction(entry, consumer, transaction);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        // Called on the consumer's connection thread: when the queue is idle, that thread settles the entry and
        // dispatches the next one itself instead of waking a queue worker for each acknowledgement.
        queue.executor().executeHereIfIdle(() -> queue.accepted(entry, consumer, done));
        return done;
    }

    @Override
    public void release() {
        if (!consumer.preSettled && !consumer.browsing && settled.compareAndSet(false, true)) {
            queue.executor().execute(() -> queue.returnEntry(entry, consumer, false, false));
        }
    }

    @Override
    public void modified(boolean deliveryFailed, boolean undeliverableHere) {
        if (!consumer.preSettled && !consumer.browsing && settled.compareAndSet(false, true)) {
            queue.executor().execute(() -> queue.modified(entry, consumer, deliveryFailed, undeliverableHere));
        }
    }

    @Override
    public void reject() {
        if (!consumer.preSettled && !consumer.browsing && settled.compareAndSet(false, true)) {
            queue.executor().execute(() -> queue.rejected(entry, consumer));
        }
    }
}
