package org.tandembroker.core.queue;

/**
 * How a consumer wants its messages.
 *
 * @param preSettled       at-most-once: a message is removed from the queue as it is delivered
 * @param durableName      for an exchange address: a durable subscription of this name keeps its queue (and
 *                         messages) while the consumer is away; null for a private queue deleted on close
 */
public record SubscriptionOptions(boolean preSettled, String durableName) {
    public static final SubscriptionOptions AT_LEAST_ONCE = new SubscriptionOptions(false, null);
    public static final SubscriptionOptions AT_MOST_ONCE = new SubscriptionOptions(true, null);
}
