package org.tandembroker.core.queue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.tandembroker.core.message.ServerMessage;

/**
 * The entries of a queue beyond its heap window: the messages that arrived while the window was full, in arrival
 * order, each kept as its message id only (8 bytes; the store holds the message) until the queue reads a batch back
 * into its window ({@link #take}). A message the store cannot give back on its own, because it is not stored or
 * because other queues share it (one reference count for all, see {@link ServerMessage}), stays on the heap: it is
 * <em>pinned</em>, its id in line with the others and its object in a map.
 *
 * <p>{@link #maxLevel()} is the highest priority level among the entries here (and those being read back): a new
 * message of a higher level goes into the window instead, so priorities never queue behind lower ones paged out
 * before them.
 *
 * <p>Owned by the queue's executor, like {@link EntryList}; {@link #size()} may be read from anywhere
 * (approximate).
 */
final class PagedEntries {
    private static final int MIN_CAPACITY = 64;

    /** A ring of message ids: {@code size} of them from {@code head}. */
    private long[] ids = new long[MIN_CAPACITY];
    private int head;
    private volatile int size;
    private final Map<Long, ServerMessage> pinned = new HashMap<>();
    /** Highest level here or being read; -1 when nothing is. */
    private int maxLevel = -1;
    /** The batch being read back, null when none. */
    private long[] reading;

    /** Entries here, not counting a batch being read. Any thread (approximate). */
    int size() {
        return size;
    }

    /** Whether nothing is here and nothing is being read back: the window holds the queue's oldest entries. */
    boolean isEmpty() {
        return size == 0 && reading == null;
    }

    int maxLevel() {
        return maxLevel;
    }

    boolean isReading() {
        return reading != null;
    }

    /** Adds a message at the end; it leaves the heap unless {@code pin}. */
    void add(ServerMessage message, int level, boolean pin) {
        if (pin) {
            pinned.put(message.id(), message);
        }
        addId(message.id(), level);
    }

    /** Adds the id of a stored message at the end. */
    void addId(long id, int level) {
        if (size == ids.length) {
            resize(ids.length * 2);
        }
        ids[(head + size) % ids.length] = id;
        size = size + 1;
        maxLevel = Math.max(maxLevel, level);
    }

    /** Adds recovered entries at the end, oldest first (the queue's ring is empty while it loads). */
    void addRecovered(RecoveredBeyondWindow recovered) {
        pinned.putAll(recovered.pinned());
        int needed = size + recovered.size();
        if (needed > ids.length) {
            resize(Integer.highestOneBit(needed) * 2);
        }
        for (int i = 0; i < recovered.size(); i++) {
            ids[(head + size + i) % ids.length] = recovered.id(i);
        }
        size = needed;
        maxLevel = Math.max(maxLevel, recovered.maxLevel());
    }

    /** Takes up to {@code max} ids from the front as the batch being read back (none may be read already). */
    long[] take(int max) {
        if (reading != null) {
            throw new IllegalStateException("a batch is being read already");
        }
        int n = Math.min(max, size);
        long[] batch = new long[n];
        for (int i = 0; i < n; i++) {
            batch[i] = ids[(head + i) % ids.length];
        }
        head = (head + n) % ids.length;
        size = size - n;
        reading = batch;
        if (size < ids.length / 4 && ids.length > MIN_CAPACITY) {
            resize(Math.max(MIN_CAPACITY, ids.length / 2));
        }
        return batch;
    }

    /** The batch was read: its pinned message, if {@code id} is one, else null (the caller builds it). */
    ServerMessage unpin(long id) {
        return pinned.isEmpty() ? null : pinned.remove(id);
    }

    /** The batch being read is done with (added to the window). */
    void batchDone() {
        reading = null;
        if (size == 0) {
            maxLevel = -1;
        }
    }

    /** Reading the batch failed: it goes back to the front, to be read again. */
    void batchFailed() {
        long[] batch = reading;
        reading = null;
        if (size + batch.length > ids.length) {
            resize(Integer.highestOneBit(size + batch.length) * 2);
        }
        head = Math.floorMod(head - batch.length, ids.length);
        for (int i = 0; i < batch.length; i++) {
            ids[(head + i) % ids.length] = batch[i];
        }
        size = size + batch.length;
    }

    /**
     * Empties this (the queue is being deleted): the ids of every unpinned message here or being read, and the
     * pinned messages (each still holding this queue's reference).
     */
    Removed clear() {
        List<ServerMessage> pinnedMessages = new ArrayList<>(pinned.values());
        long[] all = new long[size + (reading == null ? 0 : reading.length)];
        int n = 0;
        if (reading != null) {
            for (long id : reading) {
                if (!pinned.containsKey(id)) {
                    all[n++] = id;
                }
            }
        }
        for (int i = 0; i < size; i++) {
            long id = ids[(head + i) % ids.length];
            if (!pinned.containsKey(id)) {
                all[n++] = id;
            }
        }
        pinned.clear();
        ids = new long[MIN_CAPACITY];
        head = 0;
        size = 0;
        reading = null;
        maxLevel = -1;
        return new Removed(Arrays.copyOf(all, n), pinnedMessages);
    }

    /** What {@link #clear()} took out. */
    record Removed(long[] storedOnly, List<ServerMessage> pinned) {
    }

    private void resize(int capacity) {
        long[] resized = new long[capacity];
        for (int i = 0; i < size; i++) {
            resized[i] = ids[(head + i) % ids.length];
        }
        ids = resized;
        head = 0;
    }
}
