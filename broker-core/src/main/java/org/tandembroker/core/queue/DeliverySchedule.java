package org.tandembroker.core.queue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.tandembroker.core.message.ServerMessage;

/**
 * A queue's messages whose delivery time (JMS 2 delivery delay) has not come, earliest first. They are kept here,
 * outside {@link EntryList}, so consumers and browsers do not see them; when one is due the queue adds it to its
 * entries like a message just published.
 *
 * <p>The queue needs one timer, not one per message: {@link #timerNeeded()} says when a timer must be set (the
 * earliest due time, unless a timer at or before it is already set), and the queue asks its host's one scheduler
 * for it. A timer that fires early or for nothing does no harm: {@link #takeDue} takes only what is due.
 *
 * <p>Owned by the queue's executor; {@link #size()} is read from anywhere (management).
 */
final class DeliverySchedule {
    private record Scheduled(long deliverAtMillis, long order, ServerMessage message) {
    }

    private static final Comparator<Scheduled> EARLIEST_FIRST =
            Comparator.comparingLong(Scheduled::deliverAtMillis).thenComparingLong(Scheduled::order);

    private final PriorityQueue<Scheduled> waiting = new PriorityQueue<>(EARLIEST_FIRST);
    /** Arrival order, so messages due at the same millisecond keep the order they came in. */
    private long nextOrder;
    /** The due time of the earliest timer set and not yet fired, 0 for none. */
    private long timerAt;
    private volatile int size;

    /** Holds {@code message} until its {@link org.tandembroker.core.message.MessageMetadata#deliverAtMillis()}. */
    void add(ServerMessage message) {
        waiting.add(new Scheduled(message.metadata().deliverAtMillis(), nextOrder++, message));
        size = waiting.size();
    }

    /** Takes out the messages due by {@code nowMillis}, earliest first (ties in arrival order). */
    List<ServerMessage> takeDue(long nowMillis) {
        if (waiting.isEmpty() || waiting.peek().deliverAtMillis() > nowMillis) {
            return List.of();
        }
        List<ServerMessage> due = new ArrayList<>();
        while (!waiting.isEmpty() && waiting.peek().deliverAtMillis() <= nowMillis) {
            due.add(waiting.poll().message());
        }
        size = waiting.size();
        return due;
    }

    /**
     * The due time a new timer must be set for, or 0 when none is needed (nothing waits, or a timer set earlier
     * fires at or before the earliest due time). Returning a time records that the caller sets that timer.
     */
    long timerNeeded() {
        if (waiting.isEmpty()) {
            return 0;
        }
        long earliest = waiting.peek().deliverAtMillis();
        if (timerAt != 0 && timerAt <= earliest) {
            return 0;
        }
        timerAt = earliest;
        return earliest;
    }

    /** The timer set for {@code dueAtMillis} fired. */
    void timerFired(long dueAtMillis) {
        if (timerAt == dueAtMillis) {
            timerAt = 0;
        }
    }

    /** Messages waiting (any thread; approximate). */
    int size() {
        return size;
    }

    boolean isEmpty() {
        return waiting.isEmpty();
    }

    /** Every waiting message, in no particular order. */
    List<ServerMessage> messages() {
        List<ServerMessage> all = new ArrayList<>(waiting.size());
        waiting.forEach(s -> all.add(s.message()));
        return all;
    }

    void clear() {
        waiting.clear();
        size = 0;
        timerAt = 0;
    }
}
