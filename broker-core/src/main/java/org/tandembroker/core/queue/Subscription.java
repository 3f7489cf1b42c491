package org.tandembroker.core.queue;

/** A consumer attached to a queue. Thread-safe: calls are handed to the queue's executor. */
public interface Subscription {

    /** The address the consumer reads (a queue name, or the private queue behind an exchange address). */
    String queueName();

    /** The consumer may take {@code credit} more messages. */
    void addCredit(int credit);

    /** Deliver what is available within the credit, then call {@link ConsumerTarget#drained()} and drop credit. */
    void drain();

    /**
     * Detaches the consumer: messages delivered to it and not settled go back to the queue as failed deliveries
     * (their delivery count rises). Idempotent.
     */
    void close();
}
