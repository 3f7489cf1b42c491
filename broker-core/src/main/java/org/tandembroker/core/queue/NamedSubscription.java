package org.tandembroker.core.queue;

import java.util.Objects;

/**
 * The identity of a named topic subscription (JMS durable and shared subscriptions): its name, and whose it is.
 * Subscriptions of one owner share a name space per lifetime: a durable and a shared non-durable subscription of the
 * same name are different subscriptions (JMS 2). Immutable.
 *
 * @param name    the subscription name (never contains {@code |}: a front end cuts a link name there)
 * @param owner   the client (AMQP container-id, the JMS client ID) whose subscription it is; null for a global one,
 *                which every client reaches by name alone
 * @param durable whether it outlives its consumers (kept, with its messages, until unsubscribed); a non-durable
 *                one goes when its last consumer leaves
 * @param shared  whether several consumers may share it (competing consumers); an unshared durable subscription
 *                takes one consumer at a time
 */
public record NamedSubscription(String name, String owner, boolean durable, boolean shared) {
    /** Separates a subscription's name from what follows it in a link or queue name. */
    public static final char DELIMITER = '|';

    public NamedSubscription {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.indexOf(DELIMITER) >= 0) {
            throw new IllegalArgumentException("a subscription name is not empty and has no '" + DELIMITER
                    + "': " + name);
        }
    }

    public boolean global() {
        return owner == null;
    }

    /**
     * The name of the queue that holds the subscription's messages, which says whose it is:
     * {@code owner:name} (durable), {@code owner:name|volatile} (shared non-durable), {@code name|global} and
     * {@code name|global-volatile} for global ones. As a name never contains {@code |}, the four forms never meet.
     */
    public String queueName() {
        String base = global() ? name + DELIMITER + "global" : owner + ":" + name;
        if (durable) {
            return base;
        }
        return global() ? base + "-volatile" : base + DELIMITER + "volatile";
    }

    /** For messages: e.g. {@code durable subscription 'prices' of client 'app-1'}. */
    public String describe() {
        String kind = (durable ? "durable" : "non-durable") + (shared ? " shared" : "") + " subscription";
        return kind + " '" + name + "' " + (global() ? "(global)" : "of client '" + owner + "'");
    }
}
