package org.tandembroker.systest.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.tandembroker.systest.cluster.ZeroLossChecker;

/**
 * Everything the soak's checker needs: one {@link ZeroLossChecker} per consumed queue (a message published to the
 * topic exchange is expected on every queue its key is bound to), every producer transaction with its outcome,
 * and two failover clocks: the time from a fault to the first consumed message that was sent after it, and the
 * time from a fault until every producer that was working at the fault had a send attempted after it confirmed
 * (the producers' side: a producer blocked in a send during the whole failover shows here, not in the first).
 *
 * <p>Thread-safe: producers and consumers record from their own threads, the nemesis from its own.
 */
final class ChaosLedger {
    private final Map<String, ZeroLossChecker> queues = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> nextSequence = new ConcurrentHashMap<>();
    private final List<Transaction> transactions = new CopyOnWriteArrayList<>();
    private final List<PendingFailover> pending = new CopyOnWriteArrayList<>();
    private final List<FailoverTime> failovers = new CopyOnWriteArrayList<>();
    private final List<PendingResume> pendingResumes = new CopyOnWriteArrayList<>();
    private final List<FailoverTime> producerResumes = new CopyOnWriteArrayList<>();

    /**
     * A producer transaction: sequences {@code first..last} of {@code producer}, to {@code queues}; when its outcome
     * was known ({@code atMillis} after the ledger was made, the run's clock) and through which broker
     * ({@code via}: the client's connected address, or "-"), so that a failure can be found in the nodes' logs.
     */
    record Transaction(String producer, long first, long last, List<String> queues, boolean committed, long atMillis,
                       String via) {
        /** "committed at 952.3 s via amqp://127.0.0.1:26436" or "in doubt at ...". */
        String outcome() {
            return (committed ? "committed" : "in doubt") + String.format(java.util.Locale.ROOT, " at %.1f s via %s",
                    atMillis / 1000.0, via);
        }
    }

    private final long createdNanos = System.nanoTime();

    /** Milliseconds since this ledger was made (the run's clock in the report's events). */
    long elapsedMillis() {
        return (System.nanoTime() - createdNanos) / 1_000_000;
    }

    /** How long after a fault of {@code kind} the first message sent after it was consumed. */
    record FailoverTime(String kind, long millis) {
    }

    private record PendingFailover(String kind, long atNanos, Map<String, Long> nextAtFault) {
    }

    /** The producers that have not yet had a send attempted after the fault confirmed, with their next sequence. */
    private record PendingResume(String kind, long atNanos, Map<String, Long> waiting) {
    }

    ZeroLossChecker queue(String name) {
        return queues.computeIfAbsent(name, n -> new ZeroLossChecker());
    }

    SortedMap<String, ZeroLossChecker> queues() {
        return new TreeMap<>(queues);
    }

    /** Reserves {@code producer}'s next sequence number in every target queue's ledger (the same number in each). */
    long attempting(String producer, List<String> targets) {
        long sequence = -1;
        for (String target : targets) {
            long s = queue(target).attempting(producer);
            if (sequence >= 0 && s != sequence) {
                throw new IllegalStateException(producer + ": ledgers out of step (" + s + " vs " + sequence + ")");
            }
            sequence = s;
        }
        nextSequence.computeIfAbsent(producer, p -> new AtomicLong()).set(sequence + 1);
        return sequence;
    }

    void settled(String producer, long sequence, List<String> targets) {
        targets.forEach(t -> queue(t).settled(producer, sequence));
        if (pendingResumes.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (PendingResume p : pendingResumes) {
            boolean last;
            synchronized (p) {
                Long next = p.waiting().get(producer);
                if (next == null || sequence < next) {
                    continue;
                }
                p.waiting().remove(producer);
                last = p.waiting().isEmpty();
            }
            if (last && pendingResumes.remove(p)) {
                producerResumes.add(new FailoverTime(p.kind(), (now - p.atNanos()) / 1_000_000));
            }
        }
    }

    void failed(String producer, long sequence, List<String> targets) {
        targets.forEach(t -> queue(t).failed(producer, sequence));
    }

    void transaction(Transaction transaction) {
        transactions.add(transaction);
    }

    List<Transaction> transactions() {
        return List.copyOf(transactions);
    }

    /** A consumer of {@code queue} got {@code producer}'s {@code sequence}. */
    void received(String consumer, String queue, String producer, long sequence, boolean redelivered) {
        queue(queue).received(consumer, producer, sequence, redelivered);
        if (pending.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (PendingFailover p : pending) {
            Long next = p.nextAtFault().get(producer);
            if (next != null && sequence >= next && pending.remove(p)) {
                failovers.add(new FailoverTime(p.kind(), (now - p.atNanos()) / 1_000_000));
            }
        }
    }

    /** Starts the failover clock for a fault of {@code kind} injected now. */
    void faultInjected(String kind) {
        Map<String, Long> next = new TreeMap<>();
        nextSequence.forEach((producer, n) -> next.put(producer, n.get()));
        long now = System.nanoTime();
        pending.add(new PendingFailover(kind, now, next));
        if (!next.isEmpty()) {
            pendingResumes.add(new PendingResume(kind, now, new TreeMap<>(next)));
        }
    }

    /** Per fault, how long until the last producer working at the fault had a later send confirmed. */
    List<FailoverTime> producerResumeTimes() {
        return List.copyOf(producerResumes);
    }

    /** Faults after which some producer never had a later send confirmed (it stopped, or is still blocked). */
    List<String> unresolvedProducerResumes() {
        List<String> kinds = new ArrayList<>();
        pendingResumes.forEach(p -> {
            synchronized (p) {
                kinds.add(p.kind() + " (waiting for " + p.waiting().keySet() + ")");
            }
        });
        return kinds;
    }

    List<FailoverTime> failoverTimes() {
        return List.copyOf(failovers);
    }

    /** Faults after which nothing sent later was consumed (yet). */
    List<String> unresolvedFailovers() {
        List<String> kinds = new ArrayList<>();
        pending.forEach(p -> kinds.add(p.kind()));
        return kinds;
    }
}
