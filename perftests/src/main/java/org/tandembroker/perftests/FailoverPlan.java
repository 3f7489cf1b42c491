package org.tandembroker.perftests;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The cells of a failover run, in the order they run: each group size, then each message size, then each depth
 * (so that one chart series fills in left to right). A cell whose queue would hold more than {@code
 * maxQueuedBytes} of message bodies is kept in the plan as skipped, with the reason, so that the results list it
 * instead of silently leaving it out.
 */
public record FailoverPlan(List<Entry> entries, long maxQueuedBytes) {

    /** A cell, and why it is skipped (empty: it runs). */
    public record Entry(FailoverCell cell, Optional<String> skipReason) {
        public boolean runs() {
            return skipReason.isEmpty();
        }
    }

    public FailoverPlan {
        entries = List.copyOf(entries);
    }

    /**
     * Every combination of {@code groups} x {@code sizes} x {@code depths} (duplicates in a list count once).
     *
     * @throws IllegalArgumentException when a list is empty or holds an impossible value
     */
    public static FailoverPlan of(List<Integer> groups, List<Long> depths, List<Integer> sizes, long maxQueuedBytes) {
        if (groups.isEmpty() || depths.isEmpty() || sizes.isEmpty()) {
            throw new IllegalArgumentException("the failover matrix needs at least one group size, one depth and one"
                    + " message size");
        }
        if (maxQueuedBytes <= 0) {
            throw new IllegalArgumentException("--max-queued-bytes must be positive, not " + maxQueuedBytes);
        }
        List<Entry> entries = new ArrayList<>();
        for (int nodes : new LinkedHashSet<>(groups)) {
            for (int size : new LinkedHashSet<>(sizes)) {
                for (long depth : new LinkedHashSet<>(depths)) {
                    FailoverCell cell = new FailoverCell(nodes, depth, size);
                    entries.add(new Entry(cell, tooLarge(cell, maxQueuedBytes)));
                }
            }
        }
        return new FailoverPlan(entries, maxQueuedBytes);
    }

    private static Optional<String> tooLarge(FailoverCell cell, long maxQueuedBytes) {
        long queued;
        try {
            queued = cell.queuedBytes();
        } catch (ArithmeticException e) {
            queued = Long.MAX_VALUE;
        }
        if (queued <= maxQueuedBytes) {
            return Optional.empty();
        }
        return Optional.of(String.format(Locale.ROOT, "%,d x %s = %s queued exceeds --max-queued-bytes %s",
                cell.depth(), ByteSizeConverter.format(cell.bodySize()), ByteSizeConverter.format(queued),
                ByteSizeConverter.format(maxQueuedBytes)));
    }

    /** The cells that run, in order. */
    public List<FailoverCell> cellsToRun() {
        return entries.stream().filter(Entry::runs).map(Entry::cell).toList();
    }
}
