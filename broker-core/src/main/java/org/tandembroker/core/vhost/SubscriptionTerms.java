package org.tandembroker.core.vhost;

import java.util.Objects;
import org.tandembroker.core.queue.NamedSubscription;

/**
 * What a named subscription subscribes to, stored with its queue so that it survives a restart and a failover: the
 * topic address as the client gave it, the kind it gave, and the filter (JMS: the topic, the message selector and
 * no-local). A client that attaches again with other terms changes the subscription (see
 * {@link VirtualHost#subscribe}). Immutable.
 *
 * @param subscription the subscription's identity
 * @param address      the topic address (e.g. {@code prices} with kind TOPIC, or {@code amq.topic/prices})
 * @param kind         what the client said the address names
 * @param selector     the JMS message selector's text, or null for every message
 * @param noLocal      whether messages published on the subscriber's own connection are left out
 */
public record SubscriptionTerms(NamedSubscription subscription, String address, AddressKind kind, String selector,
                                boolean noLocal) {
    public SubscriptionTerms {
        Objects.requireNonNull(subscription, "subscription");
        Objects.requireNonNull(address, "address");
        kind = kind == null ? AddressKind.UNSPECIFIED : kind;
        selector = selector == null || selector.isBlank() ? null : selector;
    }

    /** Whether a consumer asking for {@code other} joins this subscription as it is (JMS: same topic, selector). */
    boolean sameAs(SubscriptionTerms other) {
        return address.equals(other.address) && kind == other.kind && Objects.equals(selector, other.selector)
                && noLocal == other.noLocal;
    }

    /** For operators: e.g. {@code durable subscription 'p' of client 'app-1' to topic 'prices' (selector 'x > 1')}. */
    public String describe() {
        return subscription.describe() + " to " + describeTerms();
    }

    /** For messages: e.g. {@code topic 'prices' with selector 'x > 1'}. */
    String describeTerms() {
        return "topic '" + address + "'" + (selector == null ? "" : " with selector '" + selector + "'")
                + (noLocal ? " (no-local)" : "");
    }
}
