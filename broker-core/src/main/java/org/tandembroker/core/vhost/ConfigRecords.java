package org.tandembroker.core.vhost;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.tandembroker.core.config.ExchangeConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.QueueOptions;
import org.tandembroker.core.exchange.Binding;
import org.tandembroker.core.exchange.ExchangeType;
import org.tandembroker.core.queue.NamedSubscription;
import org.tandembroker.core.store.ConfigRecord;

/** Converts queues, exchanges and bindings to and from the store's generic configuration records. */
final class ConfigRecords {
    private ConfigRecords() {
    }

    static ConfigRecord queueRecord(UUID id, QueueConfig qc) {
        Map<String, String> attributes = new java.util.HashMap<>();
        attributes.put("name", qc.name());
        attributes.put("maxDepthMessages", Long.toString(qc.maxDepthMessages()));
        attributes.put("maxDepthBytes", Long.toString(qc.maxDepthBytes()));
        attributes.put("messageTtlMillis", Long.toString(qc.messageTtlMillis()));
        attributes.put("maxDeliveries", Integer.toString(qc.maxDeliveries()));
        if (qc.deadLetterQueue() != null) {
            attributes.put("deadLetterQueue", qc.deadLetterQueue());
        }
        attributes.put("priority", Boolean.toString(qc.options().priority()));
        if (qc.options().lastValueKey() != null) {
            attributes.put("lastValueKey", qc.options().lastValueKey());
        }
        return new ConfigRecord(id, ConfigRecord.QUEUE, attributes);
    }

    static QueueConfig toQueueConfig(ConfigRecord r) {
        Map<String, String> a = r.attributes();
        return new QueueConfig(a.get("name"), true, Long.parseLong(a.getOrDefault("maxDepthMessages", "0")),
                Long.parseLong(a.getOrDefault("maxDepthBytes", "0")),
                Long.parseLong(a.getOrDefault("messageTtlMillis", "0")),
                Integer.parseInt(a.getOrDefault("maxDeliveries", "0")), a.get("deadLetterQueue"),
                // A record written before queues had options has none: the defaults.
                new QueueOptions(Boolean.parseBoolean(a.getOrDefault("priority", "true")), a.get("lastValueKey")));
    }

    static ConfigRecord exchangeRecord(UUID id, ExchangeConfig ec) {
        return new ConfigRecord(id, ConfigRecord.EXCHANGE, Map.of("name", ec.name(), "type", ec.type().name()));
    }

    static ExchangeConfig toExchangeConfig(ConfigRecord r) {
        return new ExchangeConfig(r.attributes().get("name"),
                ExchangeType.valueOf(r.attributes().get("type").toUpperCase(Locale.ROOT)), true);
    }

    static ConfigRecord bindingRecord(Binding b) {
        return new ConfigRecord(b.id(), ConfigRecord.BINDING,
                Map.of("exchange", b.exchangeName(), "queue", b.queue().id().toString(), "key", b.bindingKey()));
    }

    // ---- a named subscription's queue: the queue record with the subscription's terms ----

    private static final String SUBSCRIPTION = "subscription.name";
    private static final String SUBSCRIPTION_OWNER = "subscription.owner";
    private static final String SUBSCRIPTION_SHARED = "subscription.shared";
    private static final String SUBSCRIPTION_ADDRESS = "subscription.address";
    private static final String SUBSCRIPTION_KIND = "subscription.kind";
    private static final String SUBSCRIPTION_SELECTOR = "subscription.selector";
    private static final String SUBSCRIPTION_NO_LOCAL = "subscription.noLocal";

    static ConfigRecord subscriptionQueueRecord(UUID id, QueueConfig qc, SubscriptionTerms terms) {
        Map<String, String> attributes = new java.util.HashMap<>(queueRecord(id, qc).attributes());
        NamedSubscription s = terms.subscription();
        attributes.put(SUBSCRIPTION, s.name());
        if (s.owner() != null) {
            attributes.put(SUBSCRIPTION_OWNER, s.owner());
        }
        attributes.put(SUBSCRIPTION_SHARED, Boolean.toString(s.shared()));
        attributes.put(SUBSCRIPTION_ADDRESS, terms.address());
        attributes.put(SUBSCRIPTION_KIND, terms.kind().name());
        if (terms.selector() != null) {
            attributes.put(SUBSCRIPTION_SELECTOR, terms.selector());
        }
        attributes.put(SUBSCRIPTION_NO_LOCAL, Boolean.toString(terms.noLocal()));
        return new ConfigRecord(id, ConfigRecord.QUEUE, attributes);
    }

    /** The terms of a (durable) subscription's queue record; empty for any other queue. */
    static Optional<SubscriptionTerms> toSubscriptionTerms(ConfigRecord r) {
        Map<String, String> a = r.attributes();
        if (!a.containsKey(SUBSCRIPTION)) {
            return Optional.empty();
        }
        NamedSubscription s = new NamedSubscription(a.get(SUBSCRIPTION), a.get(SUBSCRIPTION_OWNER), true,
                Boolean.parseBoolean(a.get(SUBSCRIPTION_SHARED)));
        return Optional.of(new SubscriptionTerms(s, a.get(SUBSCRIPTION_ADDRESS),
                AddressKind.valueOf(a.getOrDefault(SUBSCRIPTION_KIND, AddressKind.UNSPECIFIED.name())),
                a.get(SUBSCRIPTION_SELECTOR), Boolean.parseBoolean(a.get(SUBSCRIPTION_NO_LOCAL))));
    }
}
