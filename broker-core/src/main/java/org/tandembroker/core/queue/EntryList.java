package org.tandembroker.core.queue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeMap;
import org.tandembroker.core.message.ServerMessage;

/**
 * A queue's available entries in delivery order: new entries in arrival order, and entries that came back
 * (released, or their consumer left) at their original place, ahead of newer ones. Owned by the queue's executor.
 *
 * <p>New entries form a doubly linked list through {@link QueueEntry#previous}/{@link QueueEntry#next}, so an entry
 * taken from the middle (by a consumer with a selector) leaves in O(1). A consumer with a {@link MessageFilter} has a
 * {@link Cursor}: the last new entry its filter skipped. It resumes after it, so every new entry is evaluated at most
 * once per filtering consumer however deep the queue, and the entries it skips stay for the others. A consumer
 * without a filter takes the head and pays nothing for cursors it does not have. Returned entries (usually few) are
 * evaluated again on each take, as their delivery count (JMSRedelivered) changed.
 */
final class EntryList {
    private final long messageTtlMillis;
    private QueueEntry head;
    private QueueEntry tail;
    private final TreeMap<Long, QueueEntry> returned = new TreeMap<>();
    private final List<Cursor> cursors = new ArrayList<>(0);
    private long nextSequence;
    /** Entries of the queue (available or not) that can expire; none: the expiry sweep has nothing to do. */
    private int entriesWithExpiry;
    /** Filter evaluations so far (the cost of selectors, for measurement). */
    private long filterEvaluations;

    /** Where one filtering consumer's scan of the new entries stands. */
    static final class Cursor {
        final MessageFilter filter;
        /**
         * The last new entry this consumer passed (its filter rejected it, or it was browsed); every earlier one was
         * passed too or has been taken. null: start at the head.
         */
        QueueEntry lastPassed;
        /** A browser's last browsed sequence: returned entries up to it were seen already. */
        long passedSequence = -1;

        Cursor(MessageFilter filter) {
            this.filter = filter;
        }
    }

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
        entry.previous = tail;
        if (tail == null) {
            head = entry;
        } else {
            tail.next = entry;
        }
        tail = entry;
        return entry;
    }

    /** A cursor for a consumer with {@code filter}; {@link #closeCursor} when the consumer leaves. */
    Cursor openCursor(MessageFilter filter) {
        Cursor cursor = new Cursor(filter);
        cursors.add(cursor);
        return cursor;
    }

    void closeCursor(Cursor cursor) {
        cursors.remove(cursor);
    }

    /** An entry that was taken comes back, to its original place. */
    void putBack(QueueEntry entry) {
        returned.put(entry.sequence, entry);
    }

    /** Takes the oldest entry that {@code consumer} has not refused and its filter accepts, or returns null. */
    QueueEntry takeNext(QueueConsumer consumer) {
        Cursor cursor = consumer.cursor;
        QueueEntry candidate = null;
        for (QueueEntry e : returned.values()) {
            if (!e.refusedBy(consumer) && (cursor == null || accepts(cursor.filter, e))) {
                candidate = e;
                break;
            }
        }
        QueueEntry fresh = cursor == null ? head : nextAccepted(cursor);
        if (fresh != null && (candidate == null || fresh.sequence < candidate.sequence)) {
            unlink(fresh);
            return fresh;
        }
        if (candidate != null) {
            returned.remove(candidate.sequence);
        }
        return candidate;
    }

    /**
     * The next entry a browser has not seen, new or returned, that its filter accepts; it stays on the queue. A
     * browser sees each entry once, in queue order, including entries that arrive while it browses.
     */
    QueueEntry browseNext(QueueConsumer browser) {
        Cursor cursor = browser.cursor;
        QueueEntry fresh = nextAccepted(cursor);
        QueueEntry back = null;
        for (QueueEntry e : returned.tailMap(cursor.passedSequence, false).values()) {
            if (accepts(cursor.filter, e)) {
                back = e;
                break;
            }
        }
        QueueEntry next = back == null || (fresh != null && fresh.sequence < back.sequence) ? fresh : back;
        if (next != null) {
            cursor.passedSequence = next.sequence;
            if (next == fresh) {
                cursor.lastPassed = fresh;
            }
        }
        return next;
    }

    /** The first new entry after the cursor that its filter accepts; the cursor moves over those it rejects. */
    private QueueEntry nextAccepted(Cursor cursor) {
        QueueEntry e = cursor.lastPassed == null ? head : cursor.lastPassed.next;
        while (e != null) {
            if (accepts(cursor.filter, e)) {
                return e;
            }
            cursor.lastPassed = e;
            e = e.next;
        }
        return null;
    }

    private boolean accepts(MessageFilter filter, QueueEntry e) {
        if (filter.isAll()) {
            return true;
        }
        filterEvaluations++;
        return filter.accepts(e.message.metadata(), e.message.publisherConnection(), e.deliveryCount);
    }

    private void unlink(QueueEntry e) {
        for (int i = 0; i < cursors.size(); i++) {
            Cursor c = cursors.get(i);
            if (c.lastPassed == e) {
                c.lastPassed = e.previous;
            }
        }
        if (e.previous == null) {
            head = e.next;
        } else {
            e.previous.next = e.next;
        }
        if (e.next == null) {
            tail = e.previous;
        } else {
            e.next.previous = e.previous;
        }
        e.previous = null;
        e.next = null;
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
        QueueEntry e = head;
        while (e != null) {
            QueueEntry following = e.next;
            if (e.isExpired(nowMillis)) {
                unlink(e);
                expired.add(e);
            }
            e = following;
        }
        Iterator<QueueEntry> back = returned.values().iterator();
        while (back.hasNext()) {
            QueueEntry r = back.next();
            if (r.isExpired(nowMillis)) {
                back.remove();
                expired.add(r);
            }
        }
        return expired;
    }

    /** The messages of every available entry, new ones first. */
    List<ServerMessage> messages() {
        List<ServerMessage> all = new ArrayList<>();
        for (QueueEntry e = head; e != null; e = e.next) {
            all.add(e.message);
        }
        returned.values().forEach(e -> all.add(e.message));
        return all;
    }

    /** Filter evaluations so far (read on the executor). */
    long filterEvaluations() {
        return filterEvaluations;
    }

    void clear() {
        while (head != null) {
            unlink(head);
        }
        returned.clear();
    }
}
