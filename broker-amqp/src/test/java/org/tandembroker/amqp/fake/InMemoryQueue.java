package org.tandembroker.amqp.fake;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * A queue in memory, good enough to drive the front end: credit-based delivery, settlement, redelivery counts.
 * Thread: all state belongs to the virtual host's single queue executor; public methods hand work to it.
 */
public final class InMemoryQueue {
    private static final AtomicLong IDS = new AtomicLong();

    private final String name;
    private final ExecutorService executor;
    private final Deque<Entry> available = new ArrayDeque<>();
    private final List<Consumer> consumers = new ArrayList<>();
    private final AtomicInteger enqueued = new AtomicInteger();
    private final AtomicInteger acknowledged = new AtomicInteger();
    private final AtomicInteger depth = new AtomicInteger();

    record Entry(long id, IncomingMessage message, int deliveryCount) {
        Entry redelivered(boolean failed) {
            return new Entry(id, message, failed ? deliveryCount + 1 : deliveryCount);
        }
    }

    InMemoryQueue(String name, ExecutorService executor) {
        this.name = name;
        this.executor = executor;
    }

    public String name() {
        return name;
    }

    /** Messages ever enqueued. */
    public int enqueuedCount() {
        return enqueued.get();
    }

    /** Messages accepted by consumers (removed). */
    public int acknowledgedCount() {
        return acknowledged.get();
    }

    /** Messages on the queue, delivered or not, not yet settled. */
    public int depth() {
        return depth.get();
    }

    void enqueue(IncomingMessage message) {
        enqueued.incrementAndGet();
        depth.incrementAndGet();
        executor.execute(() -> {
            available.addLast(new Entry(IDS.incrementAndGet(), message, 0));
            deliverAvailable();
        });
    }

    Subscription subscribe(ConsumerTarget target, SubscriptionOptions options) {
        Consumer consumer = new Consumer(target, options.preSettled());
        executor.execute(() -> consumers.add(consumer));
        return consumer;
    }

    private void deliverAvailable() {
        boolean progress = true;
        while (progress && !available.isEmpty()) {
            progress = false;
            for (Consumer consumer : consumers) {
                if (consumer.credit > 0 && !available.isEmpty()) {
                    consumer.give(available.pollFirst());
                    progress = true;
                }
            }
        }
    }

    private final class Consumer implements Subscription {
        private final ConsumerTarget target;
        private final boolean preSettled;
        private final List<FakeDelivery> unsettled = new ArrayList<>();
        private int credit;
        private boolean closed;

        Consumer(ConsumerTarget target, boolean preSettled) {
            this.target = target;
            this.preSettled = preSettled;
        }

        void give(Entry entry) {
            credit--;
            FakeDelivery delivery = new FakeDelivery(entry, this);
            if (preSettled) {
                depth.decrementAndGet();
                acknowledged.incrementAndGet();
            } else {
                unsettled.add(delivery);
            }
            target.deliver(delivery);
        }

        @Override
        public String queueName() {
            return name;
        }

        @Override
        public void addCredit(int more) {
            executor.execute(() -> {
                if (!closed) {
                    credit += more;
                    deliverAvailable();
                }
            });
        }

        @Override
        public void drain() {
            executor.execute(() -> {
                if (closed) {
                    return;
                }
                deliverAvailable();
                credit = 0;
                target.drained();
            });
        }

        @Override
        public void close() {
            executor.execute(() -> {
                if (closed) {
                    return;
                }
                closed = true;
                consumers.remove(this);
                for (FakeDelivery delivery : List.copyOf(unsettled)) {
                    delivery.returnToQueue(true);
                }
                deliverAvailable();
            });
        }
    }

    final class FakeDelivery implements Delivery {
        private final Entry entry;
        private final Consumer consumer;
        private final AtomicBoolean settled = new AtomicBoolean();

        FakeDelivery(Entry entry, Consumer consumer) {
            this.entry = entry;
            this.consumer = consumer;
        }

        @Override
        public long messageId() {
            return entry.id();
        }

        @Override
        public MessageMetadata metadata() {
            return entry.message().metadata();
        }

        @Override
        public byte[] content() {
            return entry.message().content();
        }

        @Override
        public int deliveryCount() {
            return entry.deliveryCount();
        }

        @Override
        public CompletableFuture<Void> accept(LocalTransaction transaction) {
            if (!settled.compareAndSet(false, true)) {
                return CompletableFuture.completedFuture(null);
            }
            if (transaction instanceof InMemoryTransaction inMemory) {
                inMemory.addAcknowledgement(this);
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.runAsync(this::remove, executor);
        }

        void remove() {
            if (consumer.unsettled.remove(this)) {
                depth.decrementAndGet();
                acknowledged.incrementAndGet();
            }
        }

        /** A transactional acknowledgement committed: the message is gone (on the queue executor). */
        void removeAfterCommit() {
            executor.execute(this::remove);
        }

        /** A transactional acknowledgement rolled back: the message goes back (on the queue executor). */
        void returnAfterRollback() {
            executor.execute(() -> returnToQueue(true));
        }

        @Override
        public void release() {
            settleBack(false);
        }

        @Override
        public void modified(boolean deliveryFailed, boolean undeliverableHere) {
            settleBack(deliveryFailed);
        }

        @Override
        public void reject() {
            if (settled.compareAndSet(false, true)) {
                executor.execute(this::remove);
            }
        }

        private void settleBack(boolean failed) {
            if (settled.compareAndSet(false, true)) {
                executor.execute(() -> {
                    returnToQueue(failed);
                    deliverAvailable();
                });
            }
        }

        private void returnToQueue(boolean failed) {
            settled.set(true);
            if (consumer.unsettled.remove(this)) {
                available.addFirst(entry.redelivered(failed));
            }
        }
    }
}
