package org.tandembroker.core.queue;

import java.util.ArrayDeque;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A consumer's state on its queue. Owned by the queue's executor; the public methods of {@link Subscription}
 * hand their work to that executor.
 */
final class QueueConsumer implements Subscription {
    final BrokerQueue queue;
    final ConsumerTarget target;
    final boolean preSettled;
    final MessageFilter filter;
    /** A browser: entries are delivered as copies, never acquired, and its settlements change nothing. */
    final boolean browsing;
    /** This consumer's place in the entries when it has a filter or browses; null otherwise. */
    EntryList.Cursor cursor;
    /** A browser's next entry from {@link EntryList}, held while older group messages waiting are shown first. */
    QueueEntry browseLookahead;
    /** The highest sequence a browser was shown (group messages waiting for their owner above it are not seen). */
    long browsedUpTo = -1;
    int credit;
    boolean drainRequested;
    boolean closed;
    /** Acquired by this consumer, delivered or on their way, not settled. */
    final Set<QueueEntry> unsettled = new LinkedHashSet<>();
    /** Acquired entries waiting for their content, in delivery order. */
    final ArrayDeque<Outgoing> outbox = new ArrayDeque<>();

    record Outgoing(QueueEntry entry, CompletableFuture<byte[]> content) {
    }

    QueueConsumer(BrokerQueue queue, ConsumerTarget target, boolean preSettled) {
        this(queue, target, preSettled, MessageFilter.ALL, false);
    }

    QueueConsumer(BrokerQueue queue, ConsumerTarget target, boolean preSettled, MessageFilter filter,
                  boolean browsing) {
        this.queue = queue;
        this.target = target;
        this.preSettled = preSettled;
        this.filter = filter;
        this.browsing = browsing;
    }

    @Override
    public String queueName() {
        return queue.name();
    }

    @Override
    public void addCredit(int moreCredit) {
        if (moreCredit <= 0) {
            return;
        }
        // Called on the consumer's connection thread: when the queue is idle, that thread dispatches itself.
        queue.executor().executeHereIfIdle(() -> {
            if (!closed) {
                credit += moreCredit;
                queue.dispatch();
            }
        });
    }

    @Override
    public void drain() {
        queue.executor().execute(() -> {
            if (!closed) {
                drainRequested = true;
                queue.dispatch();
            }
        });
    }

    @Override
    public void close() {
        queue.executor().execute(() -> queue.removeConsumer(this));
    }
}
