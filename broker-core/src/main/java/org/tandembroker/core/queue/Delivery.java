package org.tandembroker.core.queue;

import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * One message handed to one consumer. Thread-safe: settling methods may be called from the consumer's
 * connection thread; each hands its work to the queue's executor. Exactly one settling call is honoured
 * (later ones are ignored).
 */
public interface Delivery {

    long messageId();

    MessageMetadata metadata();

    /** The encoded message as it was published. */
    byte[] content();

    /** Failed delivery attempts before this one (0 on first delivery). */
    int deliveryCount();

    /**
     * The consumer accepted the message. Without a transaction the message is removed (without waiting for an
     * fsync: a lost removal means a redelivery). With one, it is removed when the transaction commits and
     * returned to the queue if it rolls back. The future completes when that is recorded.
     */
    CompletableFuture<Void> accept(LocalTransaction transaction);

    /** Not processed: back to the queue for any consumer, delivery count unchanged. */
    void release();

    /**
     * Back to the queue; {@code deliveryFailed} counts an attempt (dead-lettered past the queue's maximum);
     * {@code undeliverableHere} keeps it from this consumer.
     */
    void modified(boolean deliveryFailed, boolean undeliverableHere);

    /** The consumer refuses the message as invalid: it is dead-lettered (or dropped when there is no DLQ). */
    void reject();
}
