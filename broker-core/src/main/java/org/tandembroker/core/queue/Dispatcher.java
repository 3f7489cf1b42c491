package org.tandembroker.core.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.exec.SerialExecutor;

/**
 * A queue's consumers and the handing of its entries to them: round robin over the consumers with credit, in
 * the order {@link EntryList} gives, each consumer's deliveries in order even while some content is still being
 * read from the store. Owned by the queue's executor (asserted); {@link #count()} is read from anywhere.
 */
final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final BrokerQueue queue;
    private final EntryList entries;
    private final QueueHost host;
    private final SerialExecutor executor;
    private final List<QueueConsumer> consumers = new ArrayList<>();
    private int nextConsumer;

    Dispatcher(BrokerQueue queue, EntryList entries, QueueHost host, SerialExecutor executor) {
        this.queue = queue;
        this.entries = entries;
        this.host = host;
        this.executor = executor;
    }

    /** Number of attached consumers (any thread; approximate). */
    int count() {
        return consumers.size();
    }

    void add(QueueConsumer consumer) {
        assert executor.inExecutor() : executor;
        if (!consumer.filter.isAll() || consumer.browsing) {
            consumer.cursor = entries.openCursor(consumer.filter);
        }
        consumers.add(consumer);
    }

    /**
     * Detaches a consumer: what it holds goes back to the queue (see {@link Subscription#close()}). Returns whether
     * it was the last consumer.
     */
    boolean remove(QueueConsumer consumer) {
        assert executor.inExecutor() : executor;
        consumer.closed = true;
        consumers.remove(consumer);
        if (consumer.cursor != null) {
            entries.closeCursor(consumer.cursor);
            consumer.cursor = null;
        }
        for (QueueConsumer.Outgoing pending : consumer.outbox) {
            queue.returnEntry(pending.entry(), consumer, false, false);
        }
        consumer.outbox.clear();
        for (QueueEntry entry : List.copyOf(consumer.unsettled)) {
            // Leaving without settling counts as a failed delivery, unless this consumer already reported this
            // message as failed: then the copy handed back to it while it was closing was never seen by the
            // application (Qpid JMS sends modified(delivery-failed), then detaches) and one failure is enough.
            queue.returnEntry(entry, consumer, entry.explicitlyFailedBy != consumer, false);
        }
        consumer.unsettled.clear();
        return consumers.isEmpty();
    }

    /** The queue shut down: every consumer is told, and forgotten. */
    void closeAll(String reason) {
        assert executor.inExecutor() : executor;
        for (QueueConsumer consumer : List.copyOf(consumers)) {
            consumer.closed = true;
            consumer.target.closedByBroker(reason);
        }
        consumers.clear();
    }

    /** Hands available entries to consumers with credit, round robin. */
    void dispatch() {
        assert executor.inExecutor() : executor;
        if (consumers.isEmpty()) {
            return;
        }
        long now = host.nowMillis();
        int size = consumers.size();
        int withoutWork = 0;
        while (withoutWork < size) {
            QueueConsumer consumer = consumers.get(nextConsumer++ % size);
            if (nextConsumer >= size) {
                nextConsumer = 0;
            }
            if (consumer.credit <= 0) {
                withoutWork++;
                continue;
            }
            QueueEntry entry = consumer.browsing ? nextUnexpired(consumer, now) : nextAvailable(consumer, now);
            if (entry == null) {
                withoutWork++;
                continue;
            }
            withoutWork = 0;
            if (consumer.browsing) {
                copyTo(entry, consumer);
            } else {
                handOver(entry, consumer);
            }
        }
        for (QueueConsumer consumer : consumers) { // completeDrainIfDone never changes the list
            completeDrainIfDone(consumer);
        }
    }

    private QueueEntry nextAvailable(QueueConsumer consumer, long now) {
        QueueEntry candidate = entries.takeNext(consumer);
        while (candidate != null && candidate.isExpired(now)) {
            queue.expire(candidate);
            candidate = entries.takeNext(consumer);
        }
        return candidate;
    }

    /** A browser's next entry; expired ones are passed over (the expiry sweep or a consumer removes them). */
    private QueueEntry nextUnexpired(QueueConsumer browser, long now) {
        QueueEntry candidate = entries.browseNext(browser);
        while (candidate != null && candidate.isExpired(now)) {
            candidate = entries.browseNext(browser);
        }
        return candidate;
    }

    /** A copy of an entry for a browser: the entry stays available to consumers. */
    private void copyTo(QueueEntry entry, QueueConsumer browser) {
        browser.credit--;
        queue.countBrowsed();
        CompletableFuture<byte[]> content = entry.message.content(host::loadContent);
        browser.outbox.addLast(new QueueConsumer.Outgoing(entry, content));
        if (content.isDone()) {
            flushOutbox(browser);
        } else {
            content.whenComplete((bytes, failure) -> executor.execute(() -> flushOutbox(browser)));
        }
    }

    private void handOver(QueueEntry entry, QueueConsumer consumer) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("Queue '{}': message {} to consumer {} (failed deliveries so far {})", queue.name(),
                    entry.message.id(), consumer.target, entry.deliveryCount);
        }
        consumer.credit--;
        entry.state = QueueEntry.State.ACQUIRED;
        entry.owner = consumer;
        CompletableFuture<byte[]> content = entry.message.content(host::loadContent);
        consumer.unsettled.add(entry);
        consumer.outbox.addLast(new QueueConsumer.Outgoing(entry, content));
        if (content.isDone()) {
            flushOutbox(consumer);
        } else {
            content.whenComplete((bytes, failure) -> executor.execute(() -> flushOutbox(consumer)));
        }
    }

    /** Delivers the consumer's acquired entries whose content is in, in order. */
    private void flushOutbox(QueueConsumer consumer) {
        while (!consumer.closed && !consumer.outbox.isEmpty() && consumer.outbox.peekFirst().content().isDone()) {
            QueueConsumer.Outgoing next = consumer.outbox.pollFirst();
            QueueEntry entry = next.entry();
            byte[] bytes;
            try {
                bytes = next.content().join();
            } catch (RuntimeException e) {
                if (consumer.browsing) {
                    // Consumed (and removed from the store) while its copy was being read: nothing to browse.
                    LOG.debug("Browsed message {} of queue '{}' left meanwhile: {}", entry.message.id(), queue.name(),
                            e.toString());
                    continue;
                }
                LOG.error("Could not read message {} of queue '{}' from the store; it stays on the queue",
                        entry.message.id(), queue.name(), e);
                queue.returnEntry(entry, consumer, false, false);
                continue;
            }
            if (consumer.preSettled && !consumer.browsing) {
                consumer.unsettled.remove(entry);
                queue.removeEntry(entry);
            }
            consumer.target.deliver(new EntryDelivery(queue, entry, consumer, bytes, entry.deliveryCount));
        }
        completeDrainIfDone(consumer);
    }

    private void completeDrainIfDone(QueueConsumer consumer) {
        if (consumer.drainRequested && consumer.outbox.isEmpty()) {
            consumer.drainRequested = false;
            consumer.credit = 0;
            consumer.target.drained();
        }
    }
}
