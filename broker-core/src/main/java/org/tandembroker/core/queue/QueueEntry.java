package org.tandembroker.core.queue;

import java.util.HashSet;
import java.util.Set;
import org.tandembroker.core.message.ServerMessage;

/**
 * One message's place on one queue. Owned by its queue's executor: no field is touched from another thread.
 */
final class QueueEntry {
    enum State { AVAILABLE, ACQUIRED, IN_TRANSACTION, LEAVING, REMOVED }

    final long sequence;
    final ServerMessage message;
    final long expiresAtMillis;
    int deliveryCount;
    State state = State.AVAILABLE;
    QueueConsumer owner;
    /** The last consumer that settled this entry as modified(delivery-failed). */
    QueueConsumer explicitlyFailedBy;
    Set<QueueConsumer> refusedBy;
    /** Neighbours while this is a new entry in {@link EntryList}'s list; null otherwise. */
    QueueEntry previous;
    QueueEntry next;

    QueueEntry(long sequence, ServerMessage message, long expiresAtMillis) {
        this.sequence = sequence;
        this.message = message;
        this.expiresAtMillis = expiresAtMillis;
    }

    boolean isExpired(long nowMillis) {
        return expiresAtMillis != 0 && nowMillis >= expiresAtMillis;
    }

    boolean refusedBy(QueueConsumer consumer) {
        return refusedBy != null && refusedBy.contains(consumer);
    }

    void refuse(QueueConsumer consumer) {
        if (refusedBy == null) {
            refusedBy = new HashSet<>(2);
        }
        refusedBy.add(consumer);
    }
}
