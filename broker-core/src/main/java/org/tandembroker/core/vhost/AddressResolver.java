package org.tandembroker.core.vhost;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exchange.Exchange;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.NamedSubscription;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.security.Permission;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * Turns a client's address into where it publishes ({@link Destination}) or what it consumes (a queue, or a
 * private queue bound to an exchange), following {@link VirtualHost}'s address rules. Stateless apart from the
 * parts it uses; any thread.
 */
final class AddressResolver {
    /** Where a topic that names no exchange is published and subscribed. */
    static final String TOPIC_EXCHANGE = "amq.topic";

    private final VirtualHostConfig config;
    private final ServingStatus status;
    private final Topology topology;
    private final Publisher publisher;
    private final TopicSubscriptions subscriptions;

    AddressResolver(VirtualHostConfig config, ServingStatus status, Topology topology, Publisher publisher,
                    TopicSubscriptions subscriptions) {
        this.config = config;
        this.status = status;
        this.topology = topology;
        this.publisher = publisher;
        this.subscriptions = subscriptions;
    }

    CompletableFuture<Destination> resolveDestination(String address, AddressKind kind, ClientAccess access) {
        try {
            status.requireActive();
            if (address == null || address.isEmpty()) {
                throw new BrokerException(ErrorKind.INVALID_FIELD, "an empty address names no queue or exchange");
            }
            requirePermission(Permission.SEND, address, kind, access);
            if (kind == AddressKind.TOPIC) {
                ExchangeAddress ea = topicAddress(address);
                return CompletableFuture.completedFuture(new ExchangeDestination(address, ea.exchange(), ea.key()));
            }
            BrokerQueue queue = topology.queue(address);
            if (queue != null) {
                return CompletableFuture.completedFuture(new QueueDestination(address, queue));
            }
            Optional<ExchangeAddress> exchangeAddress = exchangeAddress(address);
            if (exchangeAddress.isPresent()) {
                ExchangeAddress ea = exchangeAddress.get();
                return CompletableFuture.completedFuture(new ExchangeDestination(address, ea.exchange(), ea.key()));
            }
            Optional<QueueAddress> withOptions = QueueAddress.parse(address);
            if (withOptions.isPresent()) {
                return queueWithOptions(withOptions.get(), access).thenApply(q -> new QueueDestination(address, q));
            }
            return autoCreatedQueue(address, access).thenApply(q -> new QueueDestination(address, q));
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    CompletableFuture<Subscription> subscribe(String address, ConsumerTarget target, SubscriptionOptions options,
                                              ClientAccess access) {
        try {
            status.requireActive();
            requireConsumeOrBrowse(address, options, access);
            if (options.kind() == AddressKind.TOPIC) {
                return subscribeToExchange(address, topicAddress(address), target, options);
            }
            BrokerQueue queue = topology.queue(address);
            if (queue != null) {
                return queue.subscribe(target, options.preSettled(), options.filter(), options.browsing());
            }
            Optional<ExchangeAddress> exchangeAddress = exchangeAddress(address);
            if (exchangeAddress.isPresent()) {
                return subscribeToExchange(address, exchangeAddress.get(), target, options);
            }
            Optional<QueueAddress> withOptions = QueueAddress.parse(address);
            if (withOptions.isPresent()) {
                return queueWithOptions(withOptions.get(), access).thenCompose(
                        q -> q.subscribe(target, options.preSettled(), options.filter(), options.browsing()));
            }
            return autoCreatedQueue(address, access)
                    .thenCompose(q -> q.subscribe(target, options.preSettled(), options.filter(), options.browsing()));
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A consuming link needs {@code consume}; a browsing one {@code browse}, or {@code consume} (whoever may take the
     * messages may look at them).
     */
    private void requireConsumeOrBrowse(String address, SubscriptionOptions options, ClientAccess access) {
        if (options.browsing() && !access.allows(Permission.CONSUME, permissionAddress(address, options.kind()))) {
            requirePermission(Permission.BROWSE, address, options.kind(), access);
        } else {
            requirePermission(Permission.CONSUME, address, options.kind(), access);
        }
    }

    /**
     * Checks a permission on the address as written, except that a queue address with options
     * ({@link QueueAddress}) is checked on its queue's name: permissions name queues, not their options.
     */
    private void requirePermission(Permission permission, String address, AddressKind kind, ClientAccess access) {
        access.require(permission, permissionAddress(address, kind));
    }

    private String permissionAddress(String address, AddressKind kind) {
        if (kind != AddressKind.TOPIC && address != null && address.indexOf('?') > 0
                && topology.queue(address) == null && exchangeAddress(address).isEmpty()) {
            return QueueAddress.parse(address).map(QueueAddress::name).orElse(address);
        }
        return address;
    }

    /** See {@link VirtualHost#findSubscription}. */
    CompletableFuture<Optional<SubscriptionTerms>> findSubscription(NamedSubscription subscription,
                                                                    ClientAccess access) {
        try {
            status.requireActive();
            return subscriptions.find(subscription, access);
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** See {@link VirtualHost#unsubscribe}. */
    CompletableFuture<Void> unsubscribe(NamedSubscription subscription, ClientAccess access) {
        try {
            status.requireActive();
            return subscriptions.unsubscribe(subscription, access);
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** An exchange address: the exchange and the routing or binding key it fixes (null: none). */
    private record ExchangeAddress(Exchange exchange, String key) {
    }

    /** A topic's address: an exchange address as written, or else {@code amq.topic} keyed by the address. */
    private ExchangeAddress topicAddress(String address) {
        Optional<ExchangeAddress> explicit = exchangeAddress(address);
        if (explicit.isPresent()) {
            return explicit.get();
        }
        Exchange topics = topology.exchange(TOPIC_EXCHANGE);
        if (topics == null) {
            throw new BrokerException(ErrorKind.NOT_FOUND, "topic '" + address + "' needs exchange '"
                    + TOPIC_EXCHANGE + "', which virtual host '" + config.name() + "' does not have");
        }
        return new ExchangeAddress(topics, address);
    }

    private Optional<ExchangeAddress> exchangeAddress(String address) {
        Exchange exchange = topology.exchange(address);
        if (exchange != null) {
            return Optional.of(new ExchangeAddress(exchange, null));
        }
        int slash = address.indexOf('/');
        if (slash > 0) {
            exchange = topology.exchange(address.substring(0, slash));
            if (exchange != null) {
                return Optional.of(new ExchangeAddress(exchange, address.substring(slash + 1)));
            }
        }
        return Optional.empty();
    }

    private CompletableFuture<BrokerQueue> autoCreatedQueue(String address, ClientAccess access) {
        if (!config.autoCreateQueues()) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.NOT_FOUND,
                    "no queue or exchange named '" + address + "' in virtual host '" + config.name()
                            + "' (auto-create is off)"));
        }
        access.require(Permission.CREATE, address);
        return topology.declareQueue(config.queueDefaults().named(address), false);
    }

    /**
     * The queue an address with options names: created with them (auto-create on), or an existing queue that has
     * them; one with other options refuses (its messages are already ordered and kept its way).
     */
    private CompletableFuture<BrokerQueue> queueWithOptions(QueueAddress address, ClientAccess access) {
        BrokerQueue existing = topology.queue(address.name());
        CompletableFuture<BrokerQueue> queue;
        if (existing != null) {
            queue = CompletableFuture.completedFuture(existing);
        } else if (topology.exchange(address.name()) != null) {
            throw new BrokerException(ErrorKind.INVALID_FIELD, "queue options apply to queues; '" + address.name()
                    + "' is an exchange");
        } else if (!config.autoCreateQueues()) {
            throw new BrokerException(ErrorKind.NOT_FOUND, "no queue named '" + address.name()
                    + "' in virtual host '" + config.name() + "' (auto-create is off)");
        } else {
            access.require(Permission.CREATE, address.name());
            QueueConfig defaults = config.queueDefaults();
            queue = topology.declareQueue(defaults.named(address.name())
                    .withOptions(address.applyTo(defaults.options())), false);
        }
        return queue.thenApply(q -> {
            List<String> mismatches = address.mismatches(q.config().options());
            if (!mismatches.isEmpty()) {
                throw new BrokerException(ErrorKind.NOT_ALLOWED, "queue '" + q.name() + "' exists with other options ("
                        + q.config().options().describe() + ") than the address asks for: " + String.join(", ", mismatches)
                        + "; use the queue's options or another queue name");
            }
            return q;
        });
    }

    /**
     * A consumer of an exchange address: it joins the named subscription its options name (durable, shared), or
     * else gets a private queue that goes when it leaves.
     */
    private CompletableFuture<Subscription> subscribeToExchange(String address, ExchangeAddress exchangeAddress,
                                                                ConsumerTarget target, SubscriptionOptions options) {
        Exchange exchange = exchangeAddress.exchange();
        String key = exchangeAddress.key() != null ? exchangeAddress.key() : switch (exchange.type()) {
            case TOPIC -> "#";
            case DIRECT, FANOUT -> "";
        };
        if (options.subscription() != null) {
            return subscriptions.subscribe(address, exchange, key, target, options);
        }
        String queueName = "sub-" + exchange.name() + "-" + UUID.randomUUID();
        QueueConfig defaults = config.queueDefaults();
        QueueConfig qc = new QueueConfig(queueName, false, defaults.maxDepthMessages(), defaults.maxDepthBytes(),
                defaults.messageTtlMillis(), defaults.maxDeliveries(), defaults.deadLetterQueue());
        return topology.declareQueue(qc, true).thenCompose(queue -> {
            queue.admitOnly(options.filter()); // before the binding: nothing unselected reaches a new queue
            return topology.bindIfAbsent(exchange, queue, key)
                    .thenCompose(bound -> queue.subscribe(target, options.preSettled(), options.filter()));
        });
    }

    /** A queue's address: every message goes to that queue. */
    private final class QueueDestination implements Destination {
        private final String address;
        private final List<BrokerQueue> target;

        QueueDestination(String address, BrokerQueue queue) {
            this.address = address;
            this.target = List.of(queue);
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public CompletableFuture<PublishResult> publish(IncomingMessage message, LocalTransaction transaction) {
            return publisher.publish(target, address, message, transaction);
        }
    }

    /** An exchange's address: routed by the fixed key, or else by each message's subject. */
    private final class ExchangeDestination implements Destination {
        private final String address;
        private final Exchange exchange;
        private final String fixedKey;

        ExchangeDestination(String address, Exchange exchange, String fixedKey) {
            this.address = address;
            this.exchange = exchange;
            this.fixedKey = fixedKey;
        }

        @Override
        public String address() {
            return address;
        }

        @Override
        public CompletableFuture<PublishResult> publish(IncomingMessage message, LocalTransaction transaction) {
            String key = fixedKey != null ? fixedKey : message.metadata().subject();
            List<BrokerQueue> targets = exchange.route(key);
            targets.removeIf(q -> !q.admits(message.metadata(), message.publisherConnection()));
            return publisher.publish(targets, address, message, transaction);
        }
    }
}
