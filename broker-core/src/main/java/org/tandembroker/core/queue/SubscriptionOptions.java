package org.tandembroker.core.queue;

import org.tandembroker.core.vhost.AddressKind;

/**
 * How a consumer wants its messages.
 *
 * @param preSettled       at-most-once: a message is removed from the queue as it is delivered
 * @param durableName      for an exchange address: a durable subscription of this name keeps its queue (and
 *                         messages) while the consumer is away; null for a private queue deleted on close
 * @param kind             what the client says the address names (a JMS Topic: {@link AddressKind#TOPIC})
 * @param filter           which messages the consumer takes (a selector, no-local); {@link MessageFilter#ALL}
 * @param browsing         a browser (AMQP distribution-mode copy, JMS QueueBrowser): sees a queue's messages in
 *                         order without taking them; ignored for an exchange address
 */
public record SubscriptionOptions(boolean preSettled, String durableName, AddressKind kind, MessageFilter filter,
                                  boolean browsing) {
    public static final SubscriptionOptions AT_LEAST_ONCE = new SubscriptionOptions(false, null);
    public static final SubscriptionOptions AT_MOST_ONCE = new SubscriptionOptions(true, null);

    public SubscriptionOptions {
        kind = kind == null ? AddressKind.UNSPECIFIED : kind;
        filter = filter == null ? MessageFilter.ALL : filter;
    }

    public SubscriptionOptions(boolean preSettled, String durableName) {
        this(preSettled, durableName, AddressKind.UNSPECIFIED, MessageFilter.ALL, false);
    }

    /** A consumer that takes the messages (not a browser). */
    public SubscriptionOptions(boolean preSettled, String durableName, AddressKind kind, MessageFilter filter) {
        this(preSettled, durableName, kind, filter, false);
    }
}
