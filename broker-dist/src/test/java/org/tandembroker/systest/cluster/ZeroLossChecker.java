package org.tandembroker.systest.cluster;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The ledger every zero-loss scenario keeps: what producers were told is safe, and what consumers got.
 *
 * <p>Producers ({@link CountingProducer}) number their messages per producer id (0, 1, 2, ...) and record
 * each send: {@link #attempting} before it, then {@link #settled} when {@code send} returned normally (the
 * broker confirmed the message) or {@link #failed} when it threw (the message is in doubt: it may or may not
 * have been stored). Consumers ({@link CountingConsumer}) record every message they get with
 * {@link #received}, duplicates and redeliveries included. The {@link Report} then says:
 * <ul>
 *   <li><b>lost</b>: settled messages no consumer ever got. Zero loss means none (and nothing unexpected).</li>
 *   <li><b>duplicates</b>: receipts of a message already received; counted and reported, allowed unless a
 *       scenario asserts {@link Report#assertNoDuplicates()}.</li>
 *   <li><b>order violations</b>: a consumer getting a producer's message for the first time after a later one
 *       of the same producer, when the message is not marked redelivered and its send did not fail (an in-doubt
 *       message may surface late: committed on the master without its acknowledgements, it is delivered after
 *       the next recovery). Each consumer must see each
 *       producer's messages in send order apart from redeliveries (a redelivery may come late by nature).
 *       With several consumers on one queue this holds per consumer; after a failover a broker may not know a
 *       message was delivered before, so scenarios that check order should use one consumer per queue.</li>
 *   <li><b>unexpected</b>: receipts of messages no producer attempted (or without the producer/sequence
 *       properties): a stale queue or a broken ledger, never right.</li>
 * </ul>
 * In-doubt and still-in-flight messages may be received or not; they are never counted as lost.
 *
 * <p>Thread-safe: producers and consumers record from their own threads.
 */
public final class ZeroLossChecker {
    private static final int DETAIL_LIMIT = 20;

    private final Map<String, Ledger> ledgers = new ConcurrentHashMap<>();

    // Receive side, guarded by this.
    private final Map<String, Map<Long, Integer>> receipts = new HashMap<>();
    private final Map<String, Map<String, Long>> highestFirstReceipt = new HashMap<>();
    /** Every first receipt out of order (rare), filtered in {@link #report()} to confirmed messages. */
    private final List<OrderViolation> orderViolations = new ArrayList<>();
    private final List<String> unexpected = new ArrayList<>();
    private long unexpectedCount;
    private long receivedCount;
    private long duplicateCount;

    /** Reserves and returns {@code producer}'s next sequence number (0 first), recording the attempt. */
    public long attempting(String producer) {
        return ledger(producer).next.getAndIncrement();
    }

    /** {@code send} of {@code producer}'s message {@code sequence} returned normally: it must not be lost. */
    public void settled(String producer, long sequence) {
        Ledger ledger = existingAttempt(producer, sequence);
        ledger.failed.remove(sequence);
        ledger.settled.add(sequence);
    }

    /** {@code send} of the message threw: it is in doubt (may or may not have been stored). */
    public void failed(String producer, long sequence) {
        Ledger ledger = existingAttempt(producer, sequence);
        if (!ledger.settled.contains(sequence)) {
            ledger.failed.add(sequence);
        }
    }

    /**
     * A consumer got {@code producer}'s message {@code sequence}; {@code redelivered} when the message says so
     * ({@code JMSRedelivered}, or a delivery count above 1).
     */
    public synchronized void received(String consumer, String producer, long sequence, boolean redelivered) {
        receivedCount++;
        Ledger ledger = ledgers.get(producer);
        if (ledger == null || sequence < 0 || sequence >= ledger.next.get()) {
            unexpected(consumer + " got " + producer + "#" + sequence + ", which no producer sent");
            return;
        }
        Map<Long, Integer> counts = receipts.computeIfAbsent(producer, p -> new HashMap<>());
        int times = counts.merge(sequence, 1, Integer::sum);
        if (times > 1) {
            duplicateCount++;
            return;
        }
        Map<String, Long> highest = highestFirstReceipt.computeIfAbsent(consumer, c -> new HashMap<>());
        Long before = highest.get(producer);
        if (before != null && sequence < before && !redelivered) {
            orderViolations.add(new OrderViolation(producer, sequence, consumer + " got " + producer + "#" + sequence
                    + " (not marked redelivered) after " + producer + "#" + before));
        }
        if (before == null || sequence > before) {
            highest.put(producer, sequence);
        }
    }

    /** Whether a consumer got {@code producer}'s message {@code sequence} at least once. */
    public synchronized boolean wasReceived(String producer, long sequence) {
        return receipts.getOrDefault(producer, Map.of()).containsKey(sequence);
    }

    /** A consumer got a message without the producer and sequence properties. */
    public synchronized void receivedUnidentified(String consumer, String description) {
        receivedCount++;
        unexpected(consumer + " got a message without producer/sequence properties: " + description);
    }

    /** Messages settled so far, all producers. */
    public long settledCount() {
        return ledgers.values().stream().mapToLong(l -> l.settled.size()).sum();
    }

    public long settledCount(String producer) {
        Ledger ledger = ledgers.get(producer);
        return ledger == null ? 0 : ledger.settled.size();
    }

    /** Receipts so far, duplicates included. */
    public synchronized long receivedCount() {
        return receivedCount;
    }

    /** The producers' ids, sorted. */
    public List<String> producers() {
        List<String> ids = new ArrayList<>(ledgers.keySet());
        Collections.sort(ids);
        return ids;
    }

    /** The state now. */
    public synchronized Report report() {
        long settled = 0;
        long inDoubt = 0;
        long failedSends = 0;
        long inDoubtReceived = 0;
        long distinct = 0;
        SortedMap<String, NavigableSet<Long>> lost = new TreeMap<>();
        for (String producer : producers()) {
            Ledger ledger = ledgers.get(producer);
            Map<Long, Integer> got = receipts.getOrDefault(producer, Map.of());
            distinct += got.size();
            long attempted = ledger.next.get();
            NavigableSet<Long> settledNow = new TreeSet<>(ledger.settled);
            settled += settledNow.size();
            inDoubt += attempted - settledNow.size();
            failedSends += ledger.failed.size();
            for (long sequence : got.keySet()) {
                if (!settledNow.contains(sequence)) {
                    inDoubtReceived++;
                }
            }
            for (long sequence : settledNow) {
                if (!got.containsKey(sequence)) {
                    lost.computeIfAbsent(producer, p -> new TreeSet<>()).add(sequence);
                }
            }
        }
        // A message whose send threw (in doubt) is not held to order: committed on the master without its
        // acknowledgements, it may surface only after the next recovery, long after later messages.
        List<String> violations = orderViolations.stream()
                .filter(v -> !ledgers.get(v.producer()).failed.contains(v.sequence()))
                .map(OrderViolation::text).toList();
        return new Report(settled, inDoubt, failedSends, inDoubtReceived, receivedCount, distinct, duplicateCount, lost,
                violations.size(), violations.stream().limit(DETAIL_LIMIT).toList(), unexpectedCount,
                List.copyOf(unexpected));
    }

    /**
     * Waits until every settled message has been received, then returns the report.
     *
     * @param consumers the consumers still at work: if every one of them has stopped (their connection failed
     *                  for good), waiting further is pointless and this fails at once, with their failures
     * @throws AssertionError with the report if some are still missing at the deadline
     */
    public Report awaitZeroLoss(Duration timeout, CountingConsumer... consumers) {
        return awaitZeroLossExcept(timeout, (producer, sequence) -> false, consumers);
    }

    /**
     * {@link #awaitZeroLoss} for a scenario whose guarantees do not cover every settled message: settled messages
     * for which {@code excused} holds are not waited for (they may be lost, e.g. settled under an acknowledgement
     * policy of NONE and then rolled back). The report still lists them among the lost; check the rest with
     * {@link Report#assertZeroLossExcept}.
     */
    public Report awaitZeroLossExcept(Duration timeout, BiPredicate<String, Long> excused,
                                      CountingConsumer... consumers) {
        try {
            await("every settled message received").atMost(timeout).pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        if (report().lostExcept(excused).isEmpty()) {
                            return true;
                        }
                        if (consumers.length > 0 && Arrays.stream(consumers).noneMatch(CountingConsumer::isRunning)) {
                            AssertionError stopped = new AssertionError("every consumer stopped with settled messages "
                                    + "still missing: " + report().summary());
                            for (CountingConsumer c : consumers) {
                                c.failure().ifPresent(f -> stopped.addSuppressed(
                                        new IllegalStateException(c.id() + " stopped: " + f, f)));
                            }
                            throw stopped;
                        }
                        return false;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("settled messages still missing after " + timeout + ": " + report().summary(), e);
        }
        return report();
    }

    private Ledger ledger(String producer) {
        return ledgers.computeIfAbsent(producer, p -> new Ledger());
    }

    private Ledger existingAttempt(String producer, long sequence) {
        Ledger ledger = ledgers.get(producer);
        if (ledger == null || sequence < 0 || sequence >= ledger.next.get()) {
            throw new IllegalArgumentException(producer + "#" + sequence + " was never attempted");
        }
        return ledger;
    }

    private void unexpected(String what) {
        unexpectedCount++;
        if (unexpected.size() < DETAIL_LIMIT) {
            unexpected.add(what);
        }
    }

    private record OrderViolation(String producer, long sequence, String text) {
    }

    private static final class Ledger {
        final AtomicLong next = new AtomicLong();
        final ConcurrentSkipListSet<Long> settled = new ConcurrentSkipListSet<>();
        final ConcurrentSkipListSet<Long> failed = new ConcurrentSkipListSet<>();
    }

    /**
     * What the ledger shows.
     *
     * @param settled           messages whose send returned normally
     * @param inDoubt           messages attempted but not settled (send failed, or still in flight)
     * @param failedSends       of those, how many sends threw
     * @param inDoubtReceived   of those, how many a consumer got anyway
     * @param received          receipts, duplicates included
     * @param distinctReceived  different messages received
     * @param duplicates        receipts of a message received before
     * @param lost              per producer, the settled sequence numbers never received
     * @param orderViolationCount first receipts out of send order and not marked redelivered
     * @param orderViolations   the first few of them, described
     * @param unexpectedCount   receipts of messages nobody sent (or unidentified)
     * @param unexpected        the first few of them, described
     */
    public record Report(long settled, long inDoubt, long failedSends, long inDoubtReceived, long received, long distinctReceived,
                         long duplicates, SortedMap<String, NavigableSet<Long>> lost, long orderViolationCount,
                         List<String> orderViolations, long unexpectedCount, List<String> unexpected) {

        public long lostCount() {
            return lost.values().stream().mapToLong(NavigableSet::size).sum();
        }

        /** {@link #lost()} without the messages for which {@code excused} holds. */
        public SortedMap<String, NavigableSet<Long>> lostExcept(BiPredicate<String, Long> excused) {
            SortedMap<String, NavigableSet<Long>> remaining = new TreeMap<>();
            lost.forEach((producer, sequences) -> sequences.stream()
                    .filter(sequence -> !excused.test(producer, sequence))
                    .forEach(sequence -> remaining.computeIfAbsent(producer, p -> new TreeSet<>()).add(sequence)));
            return remaining;
        }

        /** Zero loss apart from the messages for which {@code excused} holds (and nothing unexpected). */
        public Report assertZeroLossExcept(BiPredicate<String, Long> excused) {
            if (!lostExcept(excused).isEmpty() || unexpectedCount > 0) {
                throw new AssertionError("zero loss violated (apart from excused messages): " + summary());
            }
            return this;
        }

        /** No settled message missing and nothing unexpected received. */
        public boolean zeroLoss() {
            return lost.isEmpty() && unexpectedCount == 0;
        }

        public Report assertZeroLoss() {
            if (!zeroLoss()) {
                throw new AssertionError("zero loss violated: " + summary());
            }
            return this;
        }

        public Report assertInOrderApartFromRedeliveries() {
            if (orderViolationCount > 0) {
                throw new AssertionError("per-producer order violated: " + summary());
            }
            return this;
        }

        public Report assertNoDuplicates() {
            if (duplicates > 0) {
                throw new AssertionError("duplicates received: " + summary());
            }
            return this;
        }

        /** One paragraph: the counts, then the lost ranges, order violations and unexpected receipts. */
        public String summary() {
            StringBuilder text = new StringBuilder()
                    .append("settled ").append(settled)
                    .append(", in doubt ").append(inDoubt).append(" (").append(failedSends)
                    .append(" failed sends, the rest in flight; ").append(inDoubtReceived).append(" received)")
                    .append(", received ").append(received).append(" (").append(distinctReceived).append(" distinct, ")
                    .append(duplicates).append(" duplicates)")
                    .append(", lost ").append(lostCount())
                    .append(", order violations ").append(orderViolationCount)
                    .append(", unexpected ").append(unexpectedCount);
            if (!lost.isEmpty()) {
                text.append("\n  lost:");
                lost.forEach((producer, sequences) ->
                        text.append("\n    ").append(producer).append(": ").append(ranges(sequences)));
            }
            if (!orderViolations.isEmpty()) {
                text.append("\n  order violations:");
                orderViolations.forEach(v -> text.append("\n    ").append(v));
            }
            if (!unexpected.isEmpty()) {
                text.append("\n  unexpected:");
                unexpected.forEach(u -> text.append("\n    ").append(u));
            }
            return text.toString();
        }

        @Override
        public String toString() {
            return summary();
        }

        /** {@code 3-5, 9, 12-13}; at most {@value ZeroLossChecker#DETAIL_LIMIT} ranges, then "... (N more)". */
        static String ranges(NavigableSet<Long> sequences) {
            List<String> ranges = new ArrayList<>();
            Long start = null;
            Long previous = null;
            for (long s : sequences) {
                if (previous != null && s == previous + 1) {
                    previous = s;
                    continue;
                }
                if (start != null) {
                    ranges.add(start.equals(previous) ? String.valueOf(start) : start + "-" + previous);
                }
                start = s;
                previous = s;
            }
            if (start != null) {
                ranges.add(start.equals(previous) ? String.valueOf(start) : start + "-" + previous);
            }
            if (ranges.size() > DETAIL_LIMIT) {
                int more = ranges.size() - DETAIL_LIMIT;
                ranges = new ArrayList<>(ranges.subList(0, DETAIL_LIMIT));
                ranges.add("... (" + more + " more ranges)");
            }
            return String.join(", ", ranges);
        }
    }
}
