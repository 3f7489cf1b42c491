package org.tandembroker.systest.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.tandembroker.systest.cluster.ZeroLossChecker;

/**
 * What a soak found: the faults injected per kind, the checker's counts per queue and in total, the failover
 * times, the consistency check, and every violation. {@link #passed()} is true when there is none.
 *
 * @param lostUnderPolicy confirmed messages never consumed that the durability policy in force allows to be lost
 *                        ({@link ChaosSoak#LOSSY_DURABILITY}); under every other policy they are in {@link #lost}
 */
public record ChaosResult(ChaosOptions options, Duration elapsed, int steps, Map<String, Integer> faults,
                          long confirmed, long inDoubt, long consumed, long distinct, long duplicates, long lost,
                          long lostUnderPolicy, long orderViolations, long unexpected, long transactionsCommitted,
                          long transactionsRolledBack, long transactionsPartial, List<ChaosLedger.FailoverTime> failovers,
                          List<String> unresolvedFailovers, List<ChaosLedger.FailoverTime> producerResumes,
                          List<String> unresolvedProducerResumes, int guardRefusals, int designations,
                          Map<String, String> digests, Map<String, String> perQueue, List<String> events,
                          List<String> failures) {

    static ChaosResult of(ChaosOptions options, ChaosLedger ledger, Map<FaultPlan.Kind, Integer> injected, int steps,
                          List<String> events, int guardRefusals, int designations, Map<String, String> digests,
                          List<String> failuresSoFar, Duration elapsed) {
        boolean lossy = ChaosSoak.LOSSY_DURABILITY.equals(options.durability());
        List<String> failures = new ArrayList<>(failuresSoFar);
        // A soak that stopped before its drain leaves confirmed messages on the queues: not lost, not checked.
        boolean drained = failuresSoFar.stream().noneMatch(f -> f.startsWith(ChaosSoak.STOPPED));
        if (!drained) {
            failures.add("the loss and transaction checks were skipped: the soak stopped before draining the queues");
        }
        long confirmed = 0;
        long inDoubt = 0;
        long consumed = 0;
        long distinct = 0;
        long duplicates = 0;
        long lost = 0;
        long lostUnderPolicy = 0;
        long orderViolations = 0;
        long unexpected = 0;
        Map<String, String> perQueue = new TreeMap<>();
        for (Map.Entry<String, ZeroLossChecker> queue : ledger.queues().entrySet()) {
            ZeroLossChecker.Report report = queue.getValue().report();
            confirmed += report.settled();
            inDoubt += report.inDoubt();
            consumed += report.received();
            distinct += report.distinctReceived();
            duplicates += report.duplicates();
            if (lossy) {
                lostUnderPolicy += report.lostCount();
            } else {
                lost += report.lostCount();
            }
            orderViolations += report.orderViolationCount();
            unexpected += report.unexpectedCount();
            perQueue.put(queue.getKey(), report.summary());
            if (drained && !lossy && report.lostCount() > 0) {
                failures.add(queue.getKey() + ": confirmed messages lost: " + report.summary());
            }
            if (report.unexpectedCount() > 0) {
                failures.add(queue.getKey() + ": consumed messages never sent: " + report.summary());
            }
            if (report.orderViolationCount() > 0) {
                failures.add(queue.getKey() + ": per-producer order violated: " + report.summary());
            }
        }
        long committed = 0;
        long rolledBack = 0;
        long partial = 0;
        for (ChaosLedger.Transaction txn : ledger.transactions()) {
            if (txn.committed()) {
                committed++;
            } else {
                rolledBack++;
            }
            for (String queue : txn.queues()) {
                ZeroLossChecker checker = ledger.queue(queue);
                long seen = 0;
                for (long s = txn.first(); s <= txn.last(); s++) {
                    if (checker.wasReceived(txn.producer(), s)) {
                        seen++;
                    }
                }
                long size = txn.last() - txn.first() + 1;
                boolean whole = seen == size;
                boolean allowed = txn.committed() ? whole || lossy && seen == 0 : whole || seen == 0;
                if (!allowed && drained) {
                    partial++;
                    failures.add("transaction " + txn.producer() + "#" + txn.first() + ".." + txn.last() + " ("
                            + txn.outcome() + ") partly visible on " + queue + ": "
                            + seen + " of " + size);
                }
            }
        }
        Map<String, Integer> faults = new TreeMap<>();
        injected.forEach((kind, count) -> faults.put(kind.label(), count));
        return new ChaosResult(options, elapsed, steps, faults, confirmed, inDoubt, consumed, distinct, duplicates,
                lost, lostUnderPolicy, orderViolations, unexpected, committed, rolledBack, partial,
                ledger.failoverTimes(), ledger.unresolvedFailovers(), ledger.producerResumeTimes(),
                ledger.unresolvedProducerResumes(), guardRefusals, designations, digests, perQueue,
                List.copyOf(events), List.copyOf(failures));
    }

    public boolean passed() {
        return failures.isEmpty();
    }

    /** The {@code p}-th percentile (0-100) of the failover times after faults whose label matches, or -1. */
    public long failoverPercentile(double p, boolean masterFaultsOnly) {
        return percentile(failovers, p, masterFaultsOnly);
    }

    /** The {@code p}-th percentile of the producers' resume times (see {@link ChaosLedger}), or -1. */
    public long producerResumePercentile(double p, boolean masterFaultsOnly) {
        return percentile(producerResumes, p, masterFaultsOnly);
    }

    private static long percentile(List<ChaosLedger.FailoverTime> times, double p, boolean masterFaultsOnly) {
        long[] sorted = times.stream()
                .filter(f -> !masterFaultsOnly || f.kind().endsWith("-master"))
                .mapToLong(ChaosLedger.FailoverTime::millis).sorted().toArray();
        if (sorted.length == 0) {
            return -1;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    public String describe() {
        StringBuilder text = new StringBuilder();
        text.append("chaos soak: topology ").append(options.topology().label())
                .append(", durability ").append(options.durabilityLabel())
                .append(", seed ").append(options.seed())
                .append(", ran ").append(elapsed.toSeconds()).append(" s, ").append(steps).append(" fault steps\n");
        text.append("result: ").append(passed() ? "PASSED" : "FAILED").append('\n');
        text.append("faults injected: ").append(faults).append('\n');
        text.append("messages: confirmed ").append(confirmed).append(", in doubt ").append(inDoubt)
                .append(", consumed ").append(consumed).append(" (").append(distinct).append(" distinct, ")
                .append(duplicates).append(" duplicates), lost ").append(lost)
                .append(", lost under the ").append(ChaosSoak.LOSSY_DURABILITY).append(" policy ").append(lostUnderPolicy)
                .append(", order violations ").append(orderViolations).append(", never sent ").append(unexpected)
                .append('\n');
        text.append("transactions: committed ").append(transactionsCommitted).append(", rolled back or in doubt ")
                .append(transactionsRolledBack).append(", partly visible ").append(transactionsPartial).append('\n');
        text.append("failover (fault to first consumed message sent after it), master faults: p50 ")
                .append(failoverPercentile(50, true)).append(" ms, p99 ").append(failoverPercentile(99, true))
                .append(" ms, max ").append(failoverPercentile(100, true)).append(" ms; all faults: p50 ")
                .append(failoverPercentile(50, false)).append(" ms, p99 ").append(failoverPercentile(99, false))
                .append(" ms, max ").append(failoverPercentile(100, false)).append(" ms (")
                .append(failovers.size()).append(" measured)\n");
        text.append("failover times: ").append(failovers).append('\n');
        text.append("producers resumed (fault to the last working producer's first confirmed send attempted after it),"
                        + " master faults: p50 ").append(producerResumePercentile(50, true)).append(" ms, p99 ")
                .append(producerResumePercentile(99, true)).append(" ms, max ").append(producerResumePercentile(100, true))
                .append(" ms; all faults: p50 ").append(producerResumePercentile(50, false)).append(" ms, p99 ")
                .append(producerResumePercentile(99, false)).append(" ms, max ")
                .append(producerResumePercentile(100, false)).append(" ms (").append(producerResumes.size())
                .append(" measured, ").append(unresolvedProducerResumes.size()).append(" never resumed)\n");
        text.append("producers resumed times: ").append(producerResumes).append('\n');
        if (!unresolvedProducerResumes.isEmpty()) {
            text.append("faults after which a producer never resumed: ").append(unresolvedProducerResumes).append('\n');
        }
        if (options.topology().operator) {
            text.append("operator: ").append(designations).append(" designations after a kill, ")
                    .append(guardRefusals).append(" split-brain guard refusals checked\n");
        }
        text.append("consistency (store-digest of every stopped node):\n");
        digests.forEach((node, digest) -> text.append("  ").append(node).append(":\n")
                .append(digest.strip().indent(4)));
        text.append("per queue:\n");
        perQueue.forEach((queue, summary) -> text.append("  ").append(queue).append(": ").append(summary).append('\n'));
        text.append("events:\n");
        events.forEach(e -> text.append("  ").append(e).append('\n'));
        if (!failures.isEmpty()) {
            text.append("FAILURES:\n");
            failures.forEach(f -> text.append("  - ").append(f).append('\n'));
        }
        return text.toString();
    }
}
