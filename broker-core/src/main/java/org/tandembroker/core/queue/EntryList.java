package org.tandembroker.core.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.tandembroker.core.config.QueueOptions;
import org.tandembroker.core.message.ServerMessage;

/**
 * A queue's available entries in delivery order: higher priority first, and within a priority new entries in
 * arrival order, with entries that came back (released, or their consumer left) at their original place, ahead of
 * newer ones. Owned by the queue's executor.
 *
 * <p>New entries form one doubly linked list per priority level in use ({@link QueueEntry#previous}/{@link
 * QueueEntry#next}), so an entry taken from the middle (by a consumer with a selector) leaves in O(1); a bit per
 * level says which lists have entries, so finding the head costs the same with one level or ten. A queue without
 * priority order ({@link QueueOptions#priority()} false) puts everything on one level. Returned entries are kept by
 * {@link QueueEntry#orderKey()} (priority, then sequence).
 *
 * <p>A consumer with a {@link MessageFilter} has a {@link Cursor}: per level, the last new entry its filter skipped.
 * It resumes after it, so every new entry is evaluated at most once per filtering consumer however deep the queue,
 * and the entries it skips stay for the others. A consumer without a filter takes the head and pays nothing for
 * cursors it does not have. Returned entries (usually few) are evaluated again on each take, as their delivery count
 * (JMSRedelivered) changed.
 *
 * <p>On a last-value queue ({@link QueueOptions#lastValueKey()}) an index maps each key value to the available entry
 * holding it; adding or putting back an entry with the same value takes the older one out ({@link #add},
 * {@link #putBack} return it; the queue removes it as if consumed). Taken entries leave the index: a message that was
 * delivered is never replaced, a newer one queues behind it.
 */
final class EntryList {
    /** JMS priorities 0-9; AMQP's higher values count as 9. */
    static final int LEVELS = 10;

    private final long messageTtlMillis;
    private final boolean priorityOrder;
    private final String lastValueKey;
    private final Map<Object, QueueEntry> lastValues;
    private final Level[] levels = new Level[LEVELS];
    /** Bit {@code l} set: level {@code l} has new entries. */
    private int nonEmptyLevels;
    /** New entries on every level (returned ones not counted): what a queue's heap window bounds. */
    private int newEntries;
    private final TreeMap<Long, QueueEntry> returned = new TreeMap<>();
    private final List<Cursor> cursors = new ArrayList<>(0);
    private long nextSequence;
    /** Entries of the queue (available or not) that can expire; none: the expiry sweep has nothing to do. */
    private int entriesWithExpiry;
    /** Filter evaluations so far (the cost of selectors, for measurement). */
    private long filterEvaluations;

    /** The new entries of one priority, oldest first. */
    private static final class Level {
        QueueEntry head;
        QueueEntry tail;
    }

    /** Where one filtering consumer's scan of the new entries stands. */
    static final class Cursor {
        final MessageFilter filter;
        /**
         * Per level, the last new entry this consumer passed (its filter rejected it, or it was browsed); every
         * earlier one of that level was passed too or has been taken. null: start at the level's head.
         */
        final QueueEntry[] lastPassed = new QueueEntry[LEVELS];
        /** A browser's last browsed sequence per level: returned entries up to it were seen already. */
        final long[] passedSequence = new long[LEVELS];

        Cursor(MessageFilter filter) {
            this.filter = filter;
            java.util.Arrays.fill(passedSequence, -1);
        }
    }

    /** A queue with priority order and no last-value key. */
    EntryList(long messageTtlMillis) {
        this(messageTtlMillis, QueueOptions.DEFAULT);
    }

    /** @param messageTtlMillis the queue's time to live for a message, 0 for none */
    EntryList(long messageTtlMillis, QueueOptions options) {
        this.messageTtlMillis = messageTtlMillis;
        this.priorityOrder = options.priority();
        this.lastValueKey = options.lastValueKey();
        this.lastValues = lastValueKey == null ? null : new HashMap<>();
    }

    /**
     * Appends a new entry for {@code message} at the tail of its priority; it expires at the earlier of its own and
     * the queue's expiry. Returns the entry; on a last-value queue, {@link QueueEntry#replaced} is the available
     * entry it replaced, already taken out.
     */
    QueueEntry add(ServerMessage message, int deliveryCount) {
        long expiresAt = message.metadata().expiresAtMillis();
        if (messageTtlMillis > 0) {
            long queueExpiry = message.metadata().arrivalMillis() + messageTtlMillis;
            expiresAt = expiresAt == 0 ? queueExpiry : Math.min(expiresAt, queueExpiry);
        }
        int level = levelOf(message);
        QueueEntry entry = new QueueEntry(nextSequence++, message, expiresAt, level);
        entry.deliveryCount = deliveryCount;
        if (expiresAt != 0) {
            entriesWithExpiry++;
        }
        Level list = levels[level];
        if (list == null) {
            list = new Level();
            levels[level] = list;
        }
        entry.previous = list.tail;
        if (list.tail == null) {
            list.head = entry;
            nonEmptyLevels |= 1 << level;
        } else {
            list.tail.next = entry;
        }
        list.tail = entry;
        newEntries++;
        if (lastValues != null) {
            entry.replaced = index(entry);
        }
        return entry;
    }

    /** The priority level a message is queued at (0 on a queue without priority order). */
    int levelOf(ServerMessage message) {
        return priorityOrder ? Math.max(0, Math.min(LEVELS - 1, message.metadata().priority())) : 0;
    }

    /**
     * No entry, new or returned, is available: no consumer, with a filter, browsing or neither, can take or be shown
     * anything from this list now (messages of groups waiting for their owner are not in it).
     */
    boolean nothingAvailable() {
        return nonEmptyLevels == 0 && returned.isEmpty();
    }

    /** New entries (not returned ones) on every level. */
    int newEntries() {
        return newEntries;
    }

    /** The lowest level that has new entries, {@link #LEVELS} when none has. */
    int lowestLevel() {
        return nonEmptyLevels == 0 ? LEVELS : Integer.numberOfTrailingZeros(nonEmptyLevels);
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

    /**
     * An entry that was taken comes back, to its original place. On a last-value queue, returns the entry of the
     * same key value that lost its place (this one, or a queued one it is newer than), already out; else null.
     */
    QueueEntry putBack(QueueEntry entry) {
        returned.put(entry.orderKey(), entry);
        if (lastValues == null) {
            return null;
        }
        QueueEntry older = index(entry);
        if (older == entry) {
            returned.remove(entry.orderKey());
        }
        return older;
    }

    /**
     * Puts an available entry in the last-value index; of it and a queued entry with the same value, the older one
     * (by sequence) is taken out and returned. null: no other entry had the value (or the message has none).
     */
    private QueueEntry index(QueueEntry entry) {
        Object value = lastValue(entry.message);
        if (value == null) {
            return null;
        }
        QueueEntry queued = lastValues.get(value);
        if (queued == null) {
            lastValues.put(value, entry);
            return null;
        }
        if (queued.sequence > entry.sequence) {
            return entry; // a newer one is queued: the caller takes this one out
        }
        lastValues.put(value, entry);
        if (returned.remove(queued.orderKey(), queued)) {
            return queued;
        }
        unlink(queued);
        return queued;
    }

    /** The message's last-value key, numbers of every width alike (an int 5 and a long 5 are one key). */
    private Object lastValue(ServerMessage message) {
        Object value = message.metadata().properties().application().get(lastValueKey);
        if (value instanceof Byte || value instanceof Short || value instanceof Integer) {
            return ((Number) value).longValue();
        }
        if (value instanceof Float f) {
            return f.doubleValue();
        }
        return value;
    }

    /** The entry leaves the available ones: it no longer holds its value in the last-value index. */
    private void leaveIndex(QueueEntry entry) {
        if (lastValues != null) {
            Object value = lastValue(entry.message);
            if (value != null) {
                lastValues.remove(value, entry);
            }
        }
    }

    /** Takes the first entry in delivery order that {@code consumer} did not refuse and its filter accepts, or null. */
    QueueEntry takeNext(QueueConsumer consumer) {
        Cursor cursor = consumer.cursor;
        QueueEntry candidate = null;
        if (!returned.isEmpty()) {
            for (QueueEntry e : returned.values()) {
                if (!e.refusedBy(consumer) && (cursor == null || accepts(cursor.filter, e))) {
                    candidate = e;
                    break;
                }
            }
        }
        QueueEntry fresh = cursor == null ? head() : nextAccepted(cursor);
        if (fresh != null && (candidate == null || fresh.orderKey() < candidate.orderKey())) {
            unlink(fresh);
            leaveIndex(fresh);
            return fresh;
        }
        if (candidate != null) {
            returned.remove(candidate.orderKey());
            leaveIndex(candidate);
        }
        return candidate;
    }

    /** The head of the highest level with new entries, or null. */
    private QueueEntry head() {
        return nonEmptyLevels == 0 ? null : levels[31 - Integer.numberOfLeadingZeros(nonEmptyLevels)].head;
    }

    /**
     * The next entry a browser has not seen, new or returned, that its filter accepts; it stays on the queue. A
     * browser sees each entry once, in queue order, including entries that arrive while it browses (one of a higher
     * priority than those it has seen comes next).
     */
    QueueEntry browseNext(QueueConsumer browser) {
        Cursor cursor = browser.cursor;
        for (int level = LEVELS - 1; level >= 0; level--) {
            QueueEntry fresh = (nonEmptyLevels & (1 << level)) == 0 ? null : nextAcceptedIn(cursor, level);
            QueueEntry back = null;
            if (!returned.isEmpty()) {
                long levelKey = QueueEntry.orderKey(level, 0);
                for (QueueEntry e : returned.subMap(levelKey + cursor.passedSequence[level] + 1, true,
                        levelKey + QueueEntry.MAX_SEQUENCE, true).values()) {
                    if (accepts(cursor.filter, e)) {
                        back = e;
                        break;
                    }
                }
            }
            QueueEntry next = back == null || (fresh != null && fresh.sequence < back.sequence) ? fresh : back;
            if (next != null) {
                cursor.passedSequence[level] = next.sequence;
                if (next == fresh) {
                    cursor.lastPassed[level] = fresh;
                }
                return next;
            }
        }
        return null;
    }

    /** The first new entry after the cursor, highest level first, that its filter accepts. */
    private QueueEntry nextAccepted(Cursor cursor) {
        int remaining = nonEmptyLevels;
        while (remaining != 0) {
            int level = 31 - Integer.numberOfLeadingZeros(remaining);
            QueueEntry e = nextAcceptedIn(cursor, level);
            if (e != null) {
                return e;
            }
            remaining &= ~(1 << level);
        }
        return null;
    }

    /** The first new entry of {@code level} after the cursor that its filter accepts; the cursor passes the rest. */
    private QueueEntry nextAcceptedIn(Cursor cursor, int level) {
        QueueEntry passed = cursor.lastPassed[level];
        QueueEntry e = passed == null ? levels[level].head : passed.next;
        while (e != null) {
            if (accepts(cursor.filter, e)) {
                return e;
            }
            cursor.lastPassed[level] = e;
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
        int level = e.level;
        for (int i = 0; i < cursors.size(); i++) {
            Cursor c = cursors.get(i);
            if (c.lastPassed[level] == e) {
                c.lastPassed[level] = e.previous;
            }
        }
        Level list = levels[level];
        newEntries--;
        if (e.previous == null) {
            list.head = e.next;
        } else {
            e.previous.next = e.next;
        }
        if (e.next == null) {
            list.tail = e.previous;
        } else {
            e.next.previous = e.previous;
        }
        if (list.head == null) {
            nonEmptyLevels &= ~(1 << level);
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
        for (Level list : levels) {
            QueueEntry e = list == null ? null : list.head;
            while (e != null) {
                QueueEntry following = e.next;
                if (e.isExpired(nowMillis)) {
                    unlink(e);
                    leaveIndex(e);
                    expired.add(e);
                }
                e = following;
            }
        }
        Iterator<QueueEntry> back = returned.values().iterator();
        while (back.hasNext()) {
            QueueEntry r = back.next();
            if (r.isExpired(nowMillis)) {
                back.remove();
                leaveIndex(r);
                expired.add(r);
            }
        }
        return expired;
    }

    /** The messages of every available entry, new ones first. */
    List<ServerMessage> messages() {
        List<ServerMessage> all = new ArrayList<>();
        for (int level = LEVELS - 1; level >= 0; level--) {
            for (QueueEntry e = levels[level] == null ? null : levels[level].head; e != null; e = e.next) {
                all.add(e.message);
            }
        }
        returned.values().forEach(e -> all.add(e.message));
        return all;
    }

    /** Filter evaluations so far (read on the executor). */
    long filterEvaluations() {
        return filterEvaluations;
    }

    void clear() {
        for (Level list : levels) {
            while (list != null && list.head != null) {
                unlink(list.head);
            }
        }
        returned.clear();
        if (lastValues != null) {
            lastValues.clear();
        }
    }
}
