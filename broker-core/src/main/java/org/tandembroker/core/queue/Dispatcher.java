package org.tandembroker.core.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.exec.SerialExecutor;

/**
 * A queue's consumers and the handing of its entries to them: round robin over the consumers with credit, in
 * the order {@link EntryList} gives, each consumer's deliveries in order even while some content is still being
 * read from the store. Message groups are decided here ({@link MessageGroups}): a grouped message goes only to its
 * group's owner, which takes the group's messages that wait for it before anything new. Owned by the queue's
 * executor (asserted); {@link #count()} and {@link #activeGroups()} are read from anywhere.
 */
final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final BrokerQueue queue;
    private final EntryList entries;
    private final QueueHost host;
    /** Reads back the content of a message of this queue whose body is not on the heap. */
    private final LongFunction<CompletableFuture<byte[]>> contentLoader;
    private final SerialExecutor executor;
    private final List<QueueConsumer> consumers = new ArrayList<>();
    private final MessageGroups groups = new MessageGroups();
    private int nextConsumer;
    /** See {@link #consumerFoundNothing()}. */
    private boolean consumerFoundNothing;

    Dispatcher(BrokerQueue queue, EntryList entries, QueueHost host, SerialExecutor executor) {
        this.queue = queue;
        this.entries = entries;
        this.host = host;
        this.contentLoader = messageId -> host.loadContent(queue.id(), messageId);
        this.executor = executor;
    }

    /** Number of attached consumers (any thread; approximate). */
    int count() {
        return consumers.size();
    }

    /** Message groups assigned to a consumer now (any thread; approximate). */
    int activeGroups() {
        return groups.activeGroups();
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
        consumer.browseLookahead = null;
        for (QueueEntry waiting : groups.release(consumer)) {
            QueueEntry replaced = entries.putBack(waiting);
            if (replaced != null) {
                queue.removeReplaced(replaced); // a last-value queue: the older of the two goes
            }
        }
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
        groups.clear();
    }

    /**
     * An entry that was taken comes back: to its group's owner when it has one still attached (so the group stays
     * in order), otherwise to the entries.
     */
    QueueEntry putBack(QueueEntry entry) {
        return groups.holdForOwner(entry) ? null : entries.putBack(entry);
    }

    /** Group messages waiting for their owner, taken out when expired by {@code nowMillis}. */
    List<QueueEntry> takeExpiredWaiting(long nowMillis) {
        return groups.takeExpired(nowMillis);
    }

    /** Group messages waiting for their owner (they are available entries outside {@link EntryList}). */
    List<QueueEntry> waitingEntries() {
        return groups.waitingEntries();
    }

    /**
     * Whether the last {@link #dispatch()} left a consumer with credit that found nothing it may take (its selector
     * matches nothing available, a browser has seen everything, or the rest belongs to other consumers' groups): a
     * queue deeper than its heap window then reads further messages back although its window is full.
     */
    boolean consumerFoundNothing() {
        return consumerFoundNothing;
    }

    /**
     * Hands available entries to consumers with credit, round robin. The search stops at the first consumer with
     * credit that finds nothing once nothing at all is available, instead of asking every other consumer too (a queue
     * with hundreds of consumers dispatches on every enqueue and every credit); the next dispatch starts where a full
     * round would have left it, right after the last consumer served.
     */
    void dispatch() {
        assert executor.inExecutor() : executor;
        consumerFoundNothing = false;
        if (consumers.isEmpty()) {
            return;
        }
        long now = host.nowMillis();
        int size = consumers.size();
        int withoutWork = 0;
        int afterLastServed = nextConsumer;
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
                consumerFoundNothing = true;
                if (entries.nothingAvailable() && !groups.hasWaiting()) {
                    nextConsumer = afterLastServed; // no other consumer can find anything either
                    break;
                }
                withoutWork++;
                continue;
            }
            withoutWork = 0;
            if (consumer.browsing) {
                copyTo(entry, consumer);
            } else {
                handOver(entry, consumer);
            }
            afterLastServed = nextConsumer;
        }
        for (QueueConsumer consumer : consumers) { // completeDrainIfDone never changes the list
            completeDrainIfDone(consumer);
        }
    }

    /**
     * The consumer's next entry: first a message of its groups that waited for it, then the entries' next one
     * that it may have (one of a group owned by another consumer is left waiting for that owner).
     */
    private QueueEntry nextAvailable(QueueConsumer consumer, long now) {
        while (true) {
            QueueEntry candidate = groups.hasWaiting() ? groups.takeWaiting(consumer) : null;
            if (candidate == null) {
                candidate = entries.takeNext(consumer);
                if (candidate == null) {
                    return null;
                }
            }
            if (candidate.isExpired(now)) {
                queue.expire(candidate);
            } else if (groups.admit(candidate, consumer, consumers)) {
                return candidate;
            }
        }
    }

    /**
     * A browser's next entry, in queue order, including group messages waiting for their owner; expired ones are
     * passed over (the expiry sweep or a consumer removes them).
     */
    private QueueEntry nextUnexpired(QueueConsumer browser, long now) {
        while (true) {
            QueueEntry fromList = browser.browseLookahead;
            if (fromList == null || fromList.state != QueueEntry.State.AVAILABLE) {
                fromList = entries.browseNext(browser);
            }
            QueueEntry waiting = groups.hasWaiting() ? groups.waitingAfter(browser.browsedUpTo) : null;
            QueueEntry next;
            if (waiting != null && (fromList == null || waiting.sequence < fromList.sequence)) {
                next = waiting;
                browser.browseLookahead = fromList;
            } else {
                next = fromList;
                browser.browseLookahead = null;
            }
            if (next == null) {
                return null;
            }
            browser.browsedUpTo = Math.max(browser.browsedUpTo, next.sequence);
            if (!next.isExpired(now)) {
                return next;
            }
        }
    }

    /** A copy of an entry for a browser: the entry stays available to consumers. */
    private void copyTo(QueueEntry entry, QueueConsumer browser) {
        browser.credit--;
        queue.countBrowsed();
        CompletableFuture<byte[]> content = entry.message.content(contentLoader);
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
        CompletableFuture<byte[]> content = entry.message.content(contentLoader);
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
                queue.contentUnreadable(entry, consumer, e);
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
