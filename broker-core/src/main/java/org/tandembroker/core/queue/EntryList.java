package org.tandembroker.core.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import org.tandembroker.core.message.ServerMessage;

/**
 * A queue's available entries in delivery order: new entries in arrival order, and entries that came back
 * (released, or their consumer left) at their original place, ahead of newer ones. Owned by the queue's executor.
 */
final class EntryList {
    private final long messageTtlMillis;
    private final ArrayDeque<QueueEntry> fresh = new ArrayDeque<>();
    private final TreeMap<Long, QueueEntry> returned = new TreeMap<>();
    private long nextSequence;
    /** Entries of the queue (available or not) that can expire; none: the expiry sweep has nothing to do. */
    private int entriesWithExpiry;

    /** @param messageTtlMillis the queue's time to live for a message, 0 for none */
    EntryList(long messageTtlMillis) {
        this.messageTtlMillis = messageTtlMillis;
    }

    /** Appends a new entry for {@code message}; it expires at the earlier of its own and the queue's expiry. */
    QueueEntry add(ServerMessage message, int deliveryCount) {
        long expiresAt = message.metadata().expiresAtMillis();
        if (messageTtlMillis > 0) {
            long queueExpiry = message.metadata().arrivalMillis() + messageTtlMillis;
            expiresAt = expiresAt == 0 ? queueExpiry : Math.min(expiresAt, queueExpiry);
        }
        QueueEntry entry = new QueueEntry(nextSequence++, message, expiresAt);
        entry.deliveryCount = deliveryCount;
        if (expiresAt != 0) {
            entriesWithExpiry++;
        }
        fresh.addLast(entry);
        return entry;
    }

    /** An entry that was taken comes back, to its original place. */
    void putBack(QueueEntry entry) {
        returned.put(entry.sequence, entry);
    }

    /** Takes the oldest entry that {@code consumer} has not refused, or returns null. */
    QueueEntry takeNext(QueueConsumer consumer) {
        QueueEntry candidate = null;
        for (QueueEntry e : returned.values()) {
            if (!e.refusedBy(consumer)) {
                candidate = e;
                break;
            }
        }
        QueueEntry head = fresh.peekFirst();
        if (head != null && (candidate == null || head.sequence < candidate.sequence)) {
            return fresh.pollFirst();
        }
        if (candidate != null) {
            returned.remove(candidate.sequence);
        }
        return candidate;
    }

    /** An entry left the queue for good. */
    void forget(QueueEntry entry) {
        if (entry.expiresAtMillis != 0) {
            entriesWithExpiry--;
        }
    }

    /** Takes out the available entries that expired by {@code nowMillis}. */
    List<QueueEntry> takeExpired(long nowMillis) {
        if (entriesWithExpiry == 0) {
            return List.of();
        }
        List<QueueEntry> expired = new ArrayList<>();
        takeExpired(fresh.iterator(), nowMillis, expired);
        takeExpired(returned.values().iterator(), nowMillis, expired);
        return expired;
    }

    private static void takeExpired(Iterator<QueueEntry> entries, long nowMillis, List<QueueEntry> expired) {
        while (entries.hasNext()) {
            QueueEntry e = entries.next();
            if (e.isExpired(nowMillis)) {
                entries.remove();
                expired.add(e);
            }
        }
    }

    /** The messages of every available entry, new ones first. */
    List<ServerMessage> messages() {
        List<ServerMessage> all = new ArrayList<>(fresh.size() + returned.size());
        fresh.forEach(e -> all.add(e.message));
        returned.values().forEach(e -> all.add(e.message));
        return all;
    }

    void clear() {
        fresh.clear();
        returned.clear();
    }
}
