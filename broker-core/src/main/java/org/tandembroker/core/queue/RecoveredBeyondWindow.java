package org.tandembroker.core.queue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.tandembroker.core.message.ServerMessage;

/**
 * The recovered entries of one queue beyond its heap window, collected by the recovery while it reads the queue's
 * stored entries: message ids in enqueue (ascending) order, their count, bytes and highest priority level, and the
 * messages that must stay on the heap because other queues hold them too (pinned, each holding a reference for
 * this queue). Handed to the queue with {@link BrokerQueue#addRecoveredBeyondWindow}, which keeps them as
 * {@link PagedEntries}.
 *
 * <p>Threads: built by one thread (the virtual host's life-cycle thread), then handed over; not thread-safe.
 */
public final class RecoveredBeyondWindow {
    private long[] ids = new long[1024];
    private int size;
    private long bytes;
    private int maxLevel = -1;
    private final Map<Long, ServerMessage> pinned = new HashMap<>();

    /** Adds a stored message after those added before (ids ascending); {@code level} its priority level. */
    public void add(long messageId, int level, int contentSize) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, ids.length * 2);
        }
        ids[size++] = messageId;
        bytes += contentSize;
        maxLevel = Math.max(maxLevel, level);
    }

    /** Keeps the message of an id added here on the heap; it must hold a reference for this queue already. */
    public void pin(ServerMessage message) {
        pinned.put(message.id(), message);
    }

    public boolean isPinned(long messageId) {
        return pinned.containsKey(messageId);
    }

    /** Whether {@code messageId} was added (binary search: ids are ascending). */
    public boolean contains(long messageId) {
        return Arrays.binarySearch(ids, 0, size, messageId) >= 0;
    }

    public int pinnedCount() {
        return pinned.size();
    }

    public int size() {
        return size;
    }

    public long bytes() {
        return bytes;
    }

    int maxLevel() {
        return maxLevel;
    }

    /** The id at {@code index} (0 is the oldest). */
    public long id(int index) {
        return ids[index];
    }

    Map<Long, ServerMessage> pinned() {
        return pinned;
    }

    /** Drops the pinned messages' references (the queue went away before taking them). */
    void dropPinned() {
        pinned.values().forEach(ServerMessage::dropReference);
        pinned.clear();
    }
}
