package org.tandembroker.core.config;

/**
 * A queue's settings.
 *
 * @param name             queue name (also its AMQP address)
 * @param durable          whether the queue (and its persistent messages) survive a restart
 * @param maxDepthMessages publishes are refused (amqp:resource-limit-exceeded) beyond this many; 0 = no limit
 * @param maxDepthBytes    publishes are refused beyond this many content bytes; 0 = no limit
 * @param messageTtlMillis messages expire after this long on the queue; 0 = never (a message's own TTL
 *                         applies if shorter)
 * @param maxDeliveries    after this many failed deliveries a message goes to the dead-letter queue (or is
 *                         dropped when none is set); 0 = no limit
 * @param deadLetterQueue  name of the dead-letter queue, or null for none
 * @param options          priority order and last-value key ({@link QueueOptions})
 */
public record QueueConfig(String name, boolean durable, long maxDepthMessages, long maxDepthBytes,
                          long messageTtlMillis, int maxDeliveries, String deadLetterQueue, QueueOptions options) {

    public QueueConfig {
        options = options == null ? QueueOptions.DEFAULT : options;
    }

    /** A queue with the {@linkplain QueueOptions#DEFAULT default options}. */
    public QueueConfig(String name, boolean durable, long maxDepthMessages, long maxDepthBytes,
                       long messageTtlMillis, int maxDeliveries, String deadLetterQueue) {
        this(name, durable, maxDepthMessages, maxDepthBytes, messageTtlMillis, maxDeliveries, deadLetterQueue,
                QueueOptions.DEFAULT);
    }

    /** The same settings under another name (auto-created queues take the defaults this way). */
    public QueueConfig named(String newName) {
        return new QueueConfig(newName, durable, maxDepthMessages, maxDepthBytes, messageTtlMillis, maxDeliveries,
                deadLetterQueue, options);
    }

    /** The same settings with other options (a client's address parameters). */
    public QueueConfig withOptions(QueueOptions newOptions) {
        return new QueueConfig(name, durable, maxDepthMessages, maxDepthBytes, messageTtlMillis, maxDeliveries,
                deadLetterQueue, newOptions);
    }

    /** A dead-letter queue: its own messages are never dead-lettered again. */
    public QueueConfig asDeadLetterQueue(String dlqName) {
        return new QueueConfig(dlqName, true, 0, 0, 0, 0, null);
    }
}
