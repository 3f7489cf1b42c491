package org.tandembroker.core.config;

import java.util.ArrayList;
import java.util.List;

/**
 * How a queue orders and keeps its messages, beyond {@link QueueConfig}'s limits. Set in the virtual host file
 * ({@code <queue priority="false" lastValueKey="symbol">}) or by a client creating the queue with address
 * parameters ({@code prices?last-value-key=symbol}, see {@code QueueAddress}); stored with the queue's
 * configuration record, so a queue keeps them across restarts and failovers.
 *
 * @param priority     deliver higher JMS priority (0-9) first, FIFO within a priority; false: one FIFO order
 *                     whatever the priority (the plain path, for queues whose senders set priorities they do not
 *                     mean)
 * @param lastValueKey the application property whose value keys a last-value queue: a new message replaces the
 *                     queued, not yet delivered one with the same value; null: not a last-value queue
 */
public record QueueOptions(boolean priority, String lastValueKey) {
    /** What a queue has unless told otherwise: priority order, not a last-value queue. */
    public static final QueueOptions DEFAULT = new QueueOptions(true, null);
    /** The key of a last-value queue created with Artemis's {@code last-value=true} (its default key). */
    public static final String ARTEMIS_LAST_VALUE_KEY = "_AMQ_LVQ_NAME";

    public QueueOptions {
        if (lastValueKey != null && lastValueKey.isEmpty()) {
            throw new IllegalArgumentException("an empty last-value key");
        }
    }

    public boolean isLastValue() {
        return lastValueKey != null;
    }

    public QueueOptions withPriority(boolean newPriority) {
        return new QueueOptions(newPriority, lastValueKey);
    }

    public QueueOptions withLastValueKey(String newKey) {
        return new QueueOptions(priority, newKey);
    }

    /** The options as a user writes them in an address ({@code priority=false&last-value-key=symbol}). */
    public String describe() {
        List<String> parts = new ArrayList<>();
        parts.add("priority=" + priority);
        parts.add(lastValueKey == null ? "no last-value key" : "last-value-key=" + lastValueKey);
        return String.join(", ", parts);
    }
}
