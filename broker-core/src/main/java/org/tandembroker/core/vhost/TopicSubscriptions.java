package org.tandembroker.core.vhost;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exchange.Exchange;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.MessageFilter;
import org.tandembroker.core.queue.NamedSubscription;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.security.Permission;
import org.tandembroker.core.selector.Selector;
import org.tandembroker.core.selector.SelectorException;

/**
 * Named topic subscriptions (JMS durable and shared subscriptions): each is a queue named after it
 * ({@link NamedSubscription#queueName()}), bound to its topic, whose terms ({@link SubscriptionTerms}) the
 * {@link Topology} keeps with it (in the same store record when durable). Consumers that join a shared subscription
 * compete for its messages; a durable one keeps collecting while nobody consumes, until it is unsubscribed; a
 * non-durable shared one goes with its last consumer.
 *
 * <p>The rules are JMS 2's: a consumer that asks for other terms (topic, selector, no-local) than the subscription
 * has replaces it (the old one and its messages are deleted) when no consumer is attached, and is refused while one
 * is; a shared and an unshared durable subscription never share a name; an unshared one takes one consumer at a
 * time; unsubscribing one that has consumers is refused.
 *
 * <p><b>Threads.</b> Any thread calls in. The decisions about one subscription (find, create, replace, join,
 * unsubscribe) run one after the other: each waits for the previous one's future ({@link #pending}, a concurrent
 * map of future chains), so two clients that attach at once cannot both take an unshared subscription. The number
 * of consumers of each subscription queue ({@link #consumers}) is counted here, not read from the queue, so that a
 * consumer that has just left (its link detached, its removal still queued on the queue's executor) no longer
 * counts when the client unsubscribes next.
 */
final class TopicSubscriptions {
    /** A shared non-durable subscription whose queue went with its last consumer just as another joined. */
    private static final int MAX_ATTEMPTS = 3;

    private final VirtualHostConfig config;
    private final Topology topology;
    /** The last decision taken or queued per subscription queue name; removed when it is the last and done. */
    private final Map<String, CompletableFuture<?>> pending = new ConcurrentHashMap<>();
    /** Consumers attached to each subscription queue (a queue instance: a failover brings new ones). */
    private final Map<BrokerQueue, Integer> consumers = new ConcurrentHashMap<>();

    TopicSubscriptions(VirtualHostConfig config, Topology topology) {
        this.config = config;
        this.topology = topology;
    }

    /**
     * What a recovered subscription queue admits from its exchange: its selector (no-local leaves nothing out until a
     * subscriber attaches and names its connection). A selector that no longer parses admits everything.
     */
    static MessageFilter admission(SubscriptionTerms terms, String subscriberConnection) {
        Selector selector = null;
        if (terms.selector() != null) {
            try {
                selector = Selector.parse(terms.selector());
            } catch (SelectorException e) {
                return MessageFilter.ALL;
            }
        }
        return new MessageFilter(selector, terms.noLocal() ? subscriberConnection : null);
    }

    /** The terms a consumer with {@code options} asks for on {@code address}. */
    static SubscriptionTerms termsOf(String address, SubscriptionOptions options) {
        MessageFilter filter = options.filter();
        return new SubscriptionTerms(options.subscription(), address, options.kind(),
                filter.selector() == null ? null : filter.selector().text(), filter.noLocalConnection() != null);
    }

    /**
     * Attaches a consumer to the named subscription in {@code options}, bound to {@code exchange} with {@code key}:
     * found, created, or replaced (see the class comment).
     */
    CompletableFuture<Subscription> subscribe(String address, Exchange exchange, String key, ConsumerTarget target,
                                              SubscriptionOptions options) {
        SubscriptionTerms terms = termsOf(address, options);
        return inTurn(terms.subscription().queueName(), () -> join(terms, exchange, key, target, options, 1));
    }

    /** The terms of the subscription named so, if there is one (its topic's {@code consume} needed to see it). */
    CompletableFuture<Optional<SubscriptionTerms>> find(NamedSubscription subscription, ClientAccess access) {
        String queueName = subscription.queueName();
        return inTurn(queueName, () -> {
            SubscriptionTerms terms = topology.queue(queueName) == null ? null : topology.subscriptionTerms(queueName);
            if (terms != null && !sameOwner(terms.subscription(), subscription)) {
                terms = null;
            }
            if (terms != null) {
                access.require(Permission.CONSUME, terms.address());
            }
            return CompletableFuture.completedFuture(Optional.ofNullable(terms));
        });
    }

    /**
     * Deletes the subscription and its messages. Needs {@code consume} on its topic; refused (ILLEGAL_STATE) while a
     * consumer is attached, NOT_FOUND when there is no such subscription. Completes when the deletion is stored.
     */
    CompletableFuture<Void> unsubscribe(NamedSubscription subscription, ClientAccess access) {
        String queueName = subscription.queueName();
        return inTurn(queueName, () -> {
            BrokerQueue queue = topology.queue(queueName);
            SubscriptionTerms terms = queue == null ? null : topology.subscriptionTerms(queueName);
            if (terms == null || !sameOwner(terms.subscription(), subscription)) {
                throw new BrokerException(ErrorKind.NOT_FOUND, "there is no " + subscription.describe()
                        + " in virtual host '" + config.name() + "'");
            }
            access.require(Permission.CONSUME, terms.address());
            int attached = consumerCount(queue);
            if (attached > 0) {
                throw new BrokerException(ErrorKind.ILLEGAL_STATE, "cannot unsubscribe "
                        + terms.subscription().describe() + ": it has " + attached + " active consumer"
                        + (attached == 1 ? "" : "s") + " (close them first)");
            }
            return topology.deleteQueue(queue, "unsubscribed");
        });
    }

    /**
     * Whether two subscriptions of one queue name are one client's with one name (a client ID with a {@code :} could
     * otherwise make another client's queue name).
     */
    private static boolean sameOwner(NamedSubscription a, NamedSubscription b) {
        return a.name().equals(b.name()) && Objects.equals(a.owner(), b.owner());
    }

    /** Consumers attached to a subscription queue (any thread). */
    int consumerCount(BrokerQueue queue) {
        return consumers.getOrDefault(queue, 0);
    }

    // ---- the decisions, each in its subscription's turn

    private CompletableFuture<Subscription> join(SubscriptionTerms terms, Exchange exchange, String key,
                                                 ConsumerTarget target, SubscriptionOptions options, int attempt) {
        NamedSubscription wanted = terms.subscription();
        String queueName = wanted.queueName();
        BrokerQueue queue = topology.queue(queueName);
        if (queue == null) {
            return create(terms, exchange, key, target, options, attempt);
        }
        SubscriptionTerms existing = topology.subscriptionTerms(queueName);
        if (existing == null) {
            throw new BrokerException(ErrorKind.ILLEGAL_STATE, "cannot use " + wanted.describe() + ": its queue '"
                    + queueName + "' exists and holds no subscription");
        }
        NamedSubscription found = existing.subscription();
        if (!sameOwner(found, wanted)) {
            throw new BrokerException(ErrorKind.ILLEGAL_STATE, "cannot use " + wanted.describe() + ": its queue '"
                    + queueName + "' holds " + found.describe());
        }
        if (found.shared() != wanted.shared()) {
            throw new BrokerException(ErrorKind.ILLEGAL_STATE, "cannot create " + wanted.describe() + ": "
                    + found.describe() + " exists (a shared and an unshared subscription may not have the same name"
                    + " and client)");
        }
        int attached = consumerCount(queue);
        if (!existing.sameAs(terms)) {
            if (attached > 0) {
                throw new BrokerException(ErrorKind.ILLEGAL_STATE, "cannot change " + found.describe() + " from "
                        + existing.describeTerms() + " to " + terms.describeTerms() + " while it has " + attached
                        + " active consumer" + (attached == 1 ? "" : "s"));
            }
            return topology.deleteQueue(queue, "replaced by a subscriber to " + terms.describeTerms())
                    .thenCompose(deleted -> create(terms, exchange, key, target, options, attempt));
        }
        if (!found.shared() && attached > 0) {
            throw new BrokerException(ErrorKind.ILLEGAL_STATE, found.describe() + " already has an active "
                    + "consumer (an unshared subscription takes one at a time; a shared one takes many)");
        }
        return attach(queue, terms, exchange, key, target, options, attempt);
    }

    private CompletableFuture<Subscription> create(SubscriptionTerms terms, Exchange exchange, String key,
                                                   ConsumerTarget target, SubscriptionOptions options,
                                                   int attempt) {
        NamedSubscription subscription = terms.subscription();
        QueueConfig defaults = config.queueDefaults();
        QueueConfig qc = new QueueConfig(subscription.queueName(), subscription.durable(),
                defaults.maxDepthMessages(), defaults.maxDepthBytes(), defaults.messageTtlMillis(),
                defaults.maxDeliveries(), defaults.deadLetterQueue());
        return topology.declareSubscriptionQueue(qc, !subscription.durable(), terms)
                .thenCompose(queue -> attach(queue, terms, exchange, key, target, options, attempt));
    }

    private CompletableFuture<Subscription> attach(BrokerQueue queue, SubscriptionTerms terms, Exchange exchange,
                                                   String key, ConsumerTarget target, SubscriptionOptions options,
                                                   int attempt) {
        queue.admitOnly(options.filter()); // before the binding: nothing unselected reaches a new queue
        Subscriber subscriber = new Subscriber(queue, target);
        consumers.merge(queue, 1, Integer::sum);
        return topology.bindIfAbsent(exchange, queue, key)
                .thenCompose(bound -> queue.subscribe(subscriber, options.preSettled(), options.filter()))
                .handle((subscription, failure) -> {
                    if (failure == null && topology.queue(queue.name()) == queue
                            && subscriber.handOver(subscription)) {
                        return CompletableFuture.completedFuture((Subscription) subscriber);
                    }
                    // The queue went meanwhile: a non-durable shared one with its last consumer.
                    subscriber.abandon(subscription);
                    topology.unbindIfDeleted(queue); // a binding made just after the queue's deletion unbound it
                    if (attempt < MAX_ATTEMPTS && topology.queue(queue.name()) != queue) {
                        return join(terms, exchange, key, target, options, attempt + 1);
                    }
                    return CompletableFuture.<Subscription>failedFuture(failure != null ? failure
                            : new BrokerException(ErrorKind.NOT_FOUND, "queue '" + queue.name() + "' was deleted"));
                })
                .thenCompose(joined -> joined);
    }

    private void left(BrokerQueue queue) {
        consumers.computeIfPresent(queue, (q, n) -> n <= 1 ? null : n - 1);
    }

    /**
     * Runs {@code operation} once every decision taken before about the same subscription has completed; the result
     * completes with the operation's.
     */
    private <T> CompletableFuture<T> inTurn(String queueName, Supplier<CompletableFuture<T>> operation) {
        CompletableFuture<T> mine = new CompletableFuture<>();
        CompletableFuture<?> before = pending.put(queueName, mine);
        CompletableFuture<?> ready = before == null ? CompletableFuture.completedFuture(null)
                : before.handle((v, failure) -> null);
        ready.thenCompose(v -> {
            try {
                return operation.get();
            } catch (RuntimeException e) {
                return CompletableFuture.<T>failedFuture(e);
            }
        }).whenComplete((result, failure) -> {
            pending.remove(queueName, mine);
            if (failure != null) {
                mine.completeExceptionally(BrokerException.from(failure));
            } else {
                mine.complete(result);
            }
        });
        return mine;
    }

    /**
     * One consumer of a subscription queue, between the queue and the front end's target: it counts itself out once,
     * when the client closes it or the broker does. It is handed to the client only if its queue did not close it
     * while it attached ({@link #handOver}, decided atomically against {@link #closedByBroker}, which the queue may
     * call on its own thread while the attach completes on another); otherwise it is abandoned and the client never
     * hears of it.
     */
    private final class Subscriber implements ConsumerTarget, Subscription {
        private static final int ATTACHING = 0;
        private static final int HANDED_OVER = 1;
        private static final int ABANDONED = 2;

        private final BrokerQueue queue;
        private final ConsumerTarget target;
        private final AtomicBoolean gone = new AtomicBoolean();
        private final AtomicInteger state = new AtomicInteger(ATTACHING);
        private volatile Subscription subscription;

        Subscriber(BrokerQueue queue, ConsumerTarget target) {
            this.queue = queue;
            this.target = target;
        }

        /** Whether it goes to the client: false when its queue closed it meanwhile. */
        boolean handOver(Subscription attached) {
            subscription = attached;
            return state.compareAndSet(ATTACHING, HANDED_OVER);
        }

        /** Never handed to the client (its queue went while it attached; a new attempt follows). */
        void abandon(Subscription attached) {
            state.set(ABANDONED);
            if (attached != null) {
                attached.close();
            }
            leave();
        }

        private void leave() {
            if (gone.compareAndSet(false, true)) {
                left(queue);
            }
        }

        @Override
        public void deliver(Delivery delivery) {
            if (state.get() == ABANDONED) {
                delivery.release();
            } else {
                target.deliver(delivery);
            }
        }

        @Override
        public void drained() {
            if (state.get() == HANDED_OVER) {
                target.drained();
            }
        }

        @Override
        public void closedByBroker(String reason) {
            leave();
            if (!state.compareAndSet(ATTACHING, ABANDONED) && state.get() == HANDED_OVER) {
                target.closedByBroker(reason);
            }
        }

        @Override
        public String queueName() {
            return queue.name();
        }

        @Override
        public void addCredit(int credit) {
            subscription.addCredit(credit);
        }

        @Override
        public void drain() {
            subscription.drain();
        }

        @Override
        public void close() {
            subscription.close(); // the removal is queued before the count drops (see the class comment)
            leave();
        }
    }
}
