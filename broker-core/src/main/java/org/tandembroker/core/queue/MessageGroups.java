package org.tandembroker.core.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A queue's message groups (AMQP group-id, JMSXGroupID): which consumer owns each group, and the group's messages
 * that another consumer took from the entries while the owner had them in hand or no credit. Part of the
 * {@link Dispatcher}'s decision; {@link EntryList} knows nothing of groups.
 *
 * <p>A group is assigned to the consumer that takes its first message and stays with it while that consumer is
 * attached; its messages go to no other consumer meanwhile. A message of a group owned by someone else waits here
 * ({@link #admit} returns false) until its owner asks ({@link #takeWaiting}); so each entry waits at most once and
 * no consumer scans past a deep group's messages again and again. When the owner leaves ({@link #release}) its
 * groups are forgotten and their waiting messages go back to the entries, in order, for the next consumer to claim.
 * A message the owner cannot take (its selector rejects it, or it refused it) is not held for it.
 *
 * <p>The table is bounded by what is in flight: beyond {@link #IDLE_GROUPS_KEPT} groups, those with nothing waiting
 * and nothing unsettled at their owner are forgotten (their next message assigns them afresh).
 *
 * <p>Owned by the queue's executor; {@link #activeGroups()} is read from anywhere.
 */
final class MessageGroups {
    /** Groups kept assigned though nothing of theirs is in flight. */
    static final int IDLE_GROUPS_KEPT = 4096;

    private static final class Group {
        final String id;
        final QueueConsumer owner;
        /** Messages of this group taken by other consumers, waiting for the owner, in queue order. */
        final TreeMap<Long, QueueEntry> waiting = new TreeMap<>();

        Group(String id, QueueConsumer owner) {
            this.id = id;
            this.owner = owner;
        }
    }

    private final Map<String, Group> groups = new HashMap<>();
    /** Per owner, its groups that have messages waiting. */
    private final Map<QueueConsumer, Set<Group>> withWaiting = new HashMap<>();
    /** Every waiting entry by sequence (for browsers and the expiry sweep). */
    private final TreeMap<Long, QueueEntry> allWaiting = new TreeMap<>();
    private int sweepAbove = IDLE_GROUPS_KEPT;
    private volatile int activeGroups;

    /** The group of an entry's message, or null. */
    static String groupOf(QueueEntry entry) {
        return entry.message.metadata().properties().groupId();
    }

    /**
     * Whether {@code taker} may have {@code entry}: it has no group, its group is unassigned (it is now the taker's),
     * or the taker owns it, or the owner cannot take it. Otherwise the entry waits for its owner and false is
     * returned. {@code consumers} are the attached ones (to find idle groups when the table grows).
     */
    boolean admit(QueueEntry entry, QueueConsumer taker, List<QueueConsumer> consumers) {
        String id = groupOf(entry);
        if (id == null) {
            return true;
        }
        Group group = groups.get(id);
        if (group == null) {
            if (groups.size() >= sweepAbove) {
                forgetIdle(consumers);
            }
            groups.put(id, new Group(id, taker));
            activeGroups = groups.size();
            return true;
        }
        if (group.owner == taker || !ownerCanTake(group.owner, entry)) {
            return true;
        }
        hold(group, entry);
        return false;
    }

    /**
     * An entry of a group whose owner is still attached came back (released, or a transaction rolled back): it
     * waits for that owner, in its place among the group's waiting messages, and true is returned. False: the
     * caller puts it back on the entries (no group, no owner, or the owner cannot take it).
     */
    boolean holdForOwner(QueueEntry entry) {
        String id = groupOf(entry);
        Group group = id == null ? null : groups.get(id);
        if (group == null || group.owner.closed || !ownerCanTake(group.owner, entry)) {
            return false;
        }
        hold(group, entry);
        return true;
    }

    private void hold(Group group, QueueEntry entry) {
        group.waiting.put(entry.sequence, entry);
        allWaiting.put(entry.sequence, entry);
        withWaiting.computeIfAbsent(group.owner, o -> new LinkedHashSet<>(2)).add(group);
    }

    private static boolean ownerCanTake(QueueConsumer owner, QueueEntry entry) {
        return !entry.refusedBy(owner) && ownerAccepts(owner, entry);
    }

    private static boolean ownerAccepts(QueueConsumer owner, QueueEntry entry) {
        return owner.filter.isAll() || owner.filter.accepts(entry.message.metadata(),
                entry.message.publisherConnection(), entry.deliveryCount);
    }

    /** Whether any message waits for its group's owner (cheap: the dispatcher asks before each take). */
    boolean hasWaiting() {
        return !allWaiting.isEmpty();
    }

    /** Takes the oldest message waiting for {@code owner} in one of its groups, or null. */
    QueueEntry takeWaiting(QueueConsumer owner) {
        Set<Group> ready = withWaiting.get(owner);
        if (ready == null) {
            return null;
        }
        Group oldest = null;
        for (Group g : ready) {
            if (oldest == null || g.waiting.firstKey() < oldest.waiting.firstKey()) {
                oldest = g;
            }
        }
        QueueEntry entry = oldest.waiting.pollFirstEntry().getValue();
        allWaiting.remove(entry.sequence);
        if (oldest.waiting.isEmpty()) {
            ready.remove(oldest);
            if (ready.isEmpty()) {
                withWaiting.remove(owner);
            }
        }
        return entry;
    }

    /**
     * {@code owner} left: its groups are unassigned, and their waiting messages are returned (in queue order) for
     * the caller to put back on the entries.
     */
    List<QueueEntry> release(QueueConsumer owner) {
        withWaiting.remove(owner);
        List<QueueEntry> back = new ArrayList<>();
        Iterator<Group> it = groups.values().iterator();
        while (it.hasNext()) {
            Group g = it.next();
            if (g.owner == owner) {
                it.remove();
                for (QueueEntry e : g.waiting.values()) {
                    allWaiting.remove(e.sequence);
                    back.add(e);
                }
            }
        }
        activeGroups = groups.size();
        back.sort((a, b) -> Long.compare(a.sequence, b.sequence));
        return back;
    }

    /** Takes out the waiting entries that expired by {@code nowMillis}. */
    List<QueueEntry> takeExpired(long nowMillis) {
        List<QueueEntry> expired = new ArrayList<>();
        for (QueueEntry e : allWaiting.values()) {
            if (e.isExpired(nowMillis)) {
                expired.add(e);
            }
        }
        for (QueueEntry e : expired) {
            allWaiting.remove(e.sequence);
            Group g = groups.get(groupOf(e));
            g.waiting.remove(e.sequence);
            if (g.waiting.isEmpty()) {
                Set<Group> ready = withWaiting.get(g.owner);
                ready.remove(g);
                if (ready.isEmpty()) {
                    withWaiting.remove(g.owner);
                }
            }
        }
        return expired;
    }

    /** The oldest waiting entry with a sequence above {@code afterSequence}, or null (for a browser). */
    QueueEntry waitingAfter(long afterSequence) {
        Map.Entry<Long, QueueEntry> next = allWaiting.higherEntry(afterSequence);
        return next == null ? null : next.getValue();
    }

    /** Every waiting entry, oldest first. */
    List<QueueEntry> waitingEntries() {
        return new ArrayList<>(allWaiting.values());
    }

    /** Groups assigned to a consumer now (any thread; approximate). */
    int activeGroups() {
        return activeGroups;
    }

    /** The owner of a group, or null (for tests and diagnostics). */
    QueueConsumer ownerOf(String groupId) {
        Group g = groups.get(groupId);
        return g == null ? null : g.owner;
    }

    void clear() {
        groups.clear();
        withWaiting.clear();
        allWaiting.clear();
        activeGroups = 0;
    }

    /** Forgets groups with nothing waiting and nothing unsettled at their owner. */
    private void forgetIdle(List<QueueConsumer> consumers) {
        Set<String> busy = new HashSet<>();
        for (QueueConsumer c : consumers) {
            for (QueueEntry e : c.unsettled) {
                String id = groupOf(e);
                if (id != null) {
                    busy.add(id);
                }
            }
        }
        groups.values().removeIf(g -> g.waiting.isEmpty() && !busy.contains(g.id));
        activeGroups = groups.size();
        sweepAbove = Math.max(IDLE_GROUPS_KEPT, groups.size() * 2);
    }
}
