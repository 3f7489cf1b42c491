package org.tandembroker.perftests;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The failover matrix's results as tables: {@link #markdown} for people (units in the cells, targets as met or
 * MISSED) and {@link #csv} for tools (plain numbers, seconds). Skipped and failed cells are rows too, with the
 * reason in the note.
 */
public final class FailoverReport {
    private final List<FailoverResult> results;

    public FailoverReport(List<FailoverResult> results) {
        this.results = List.copyOf(results);
    }

    public Table markdown() {
        Table table = new Table(List.of("group", "depth", "body", "queued", "measured from", "first message",
                "designation call", "to first message", "to drained", "recovered", "duplicates", "target", "note"));
        for (FailoverResult r : results) {
            FailoverCell cell = r.cell();
            boolean measured = r.status() == FailoverResult.Status.MEASURED;
            table.add(List.of(cell.nodes() + " nodes", String.format(Locale.ROOT, "%,d", cell.depth()),
                    ByteSizeConverter.format(cell.bodySize()), ByteSizeConverter.format(cell.queuedBytes()),
                    cell.measuredFrom(), firstMessage(r),
                    r.designationCall().map(FailoverReport::seconds).orElse("-"),
                    measured ? r.toFirst().map(FailoverReport::seconds).orElse("none") : "-",
                    measured ? toDrained(r) : "-",
                    measured ? String.format(Locale.ROOT, "%,d of %,d", r.recovered(), r.expected()) : "-",
                    measured ? String.format(Locale.ROOT, "%,d", r.duplicates()) : "-",
                    target(r), note(r)));
        }
        return table;
    }

    public Table csv() {
        Table table = new Table(List.of("nodes", "depth", "body_bytes", "queued_bytes", "status", "measured_from",
                "first_message", "designation_call_s", "to_first_s", "to_drained_s", "expected", "recovered",
                "duplicates", "target_s", "target_met", "note"));
        for (FailoverResult r : results) {
            FailoverCell cell = r.cell();
            boolean measured = r.status() == FailoverResult.Status.MEASURED;
            table.add(List.of(Integer.toString(cell.nodes()), Long.toString(cell.depth()),
                    Integer.toString(cell.bodySize()), Long.toString(cell.queuedBytes()),
                    r.status().name().toLowerCase(Locale.ROOT), cell.byDesignation() ? "designation" : "kill",
                    r.firstPublishedAfterFailover() ? "published-after-failover" : "queued",
                    r.designationCall().map(FailoverReport::plainSeconds).orElse(""),
                    r.toFirst().map(FailoverReport::plainSeconds).orElse(""),
                    r.toDrained().map(FailoverReport::plainSeconds).orElse(""),
                    measured ? Long.toString(r.expected()) : "", measured ? Long.toString(r.recovered()) : "",
                    measured ? Long.toString(r.duplicates()) : "",
                    cell.target().map(FailoverReport::plainSeconds).orElse(""),
                    r.targetMet().map(met -> met ? "met" : "missed").orElse(""), r.note()));
        }
        return table;
    }

    /**
     * One sentence per target cell of the plan: met, MISSED (with the time), or not measured (with why). Empty
     * when the run held no target cell.
     */
    public List<String> targetVerdicts() {
        List<String> lines = new ArrayList<>();
        for (FailoverResult r : results) {
            Optional<Duration> bound = r.cell().target();
            if (bound.isEmpty()) {
                continue;
            }
            String what = String.format(Locale.ROOT, "%s: first message at most %s after the %s", r.cell().label(),
                    seconds(bound.get()), r.cell().measuredFrom());
            lines.add(switch (r.status()) {
                case SKIPPED -> what + ": not measured (skipped: " + r.note() + ")";
                case FAILED -> what + ": not measured (failed: " + r.note() + ")";
                case MEASURED -> what + ": " + (r.targetMet().orElse(false) ? "met" : "**MISSED**") + " ("
                        + r.toFirst().map(FailoverReport::seconds).orElse("no message arrived") + ")";
            });
        }
        return lines;
    }

    private static String firstMessage(FailoverResult r) {
        return r.firstPublishedAfterFailover() ? "published after the failover" : "queued";
    }

    private static String toDrained(FailoverResult r) {
        if (r.firstPublishedAfterFailover()) {
            return "-";
        }
        return r.toDrained().map(FailoverReport::seconds).orElse("timed out");
    }

    private static String target(FailoverResult r) {
        Optional<Duration> bound = r.cell().target();
        if (bound.isEmpty()) {
            return "-";
        }
        String limit = "≤ " + seconds(bound.get());
        return r.targetMet().map(met -> limit + ": " + (met ? "met" : "**MISSED**"))
                .orElse(limit + ": not measured");
    }

    private static String note(FailoverResult r) {
        return switch (r.status()) {
            case SKIPPED -> "skipped: " + r.note();
            case FAILED -> "failed: " + r.note();
            case MEASURED -> r.note();
        };
    }

    static String seconds(Duration d) {
        double s = d.toNanos() / 1e9;
        return s == Math.rint(s) && s >= 1 ? String.format(Locale.ROOT, "%d s", (long) s)
                : String.format(Locale.ROOT, "%.3f s", s);
    }

    private static String plainSeconds(Duration d) {
        return String.format(Locale.ROOT, "%.3f", d.toNanos() / 1e9);
    }
}
