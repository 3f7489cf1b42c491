package org.tandembroker.core.queue;

import java.util.HashSet;
import java.util.Set;
import org.tandembroker.core.message.ServerMessage;

/**
 * One message's place on one queue. Owned by its queue's executor: no field is touched from another thread.
 */
final class QueueEntry {
    enum State { AVAILABLE, ACQUIRED, IN_TRANSACTION, LEAVING, REMOVED }

    /** Sequences stay below 2^56, leaving the top byte of {@link #orderKey()} to the priority level. */
    static final long MAX_SEQUENCE = (1L << 56) - 1;

    final long sequence;
    final ServerMessage message;
    final long expiresAtMillis;
    /** The priority level it is queued at (0 on a queue without priority order). */
    final int level;
    int deliveryCount;
    State state = State.AVAILABLE;
    QueueConsumer owner;
    /** The last consumer that settled this entry as modified(delivery-failed). */
    QueueConsumer explicitlyFailedBy;
    Set<QueueConsumer> refusedBy;
    /** Neighbours while this is a new entry in {@link EntryList}'s list; null otherwise. */
    QueueEntry previous;
    QueueEntry next;
    /** On a last-value queue, the available entry this one replaced when it was added (taken out), or null. */
    QueueEntry replaced;

    QueueEntry(long sequence, ServerMessage message, long expiresAtMillis, int level) {
        this.sequence = sequence;
        this.message = message;
        this.expiresAtMillis = expiresAtMillis;
        this.level = level;
    }

    /** Delivery order: smaller first (higher level, then older). */
    long orderKey() {
        return orderKey(level, sequence);
    }

    static long orderKey(int level, long sequence) {
        return ((long) (EntryList.LEVELS - 1 - level) << 56) | sequence;
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
