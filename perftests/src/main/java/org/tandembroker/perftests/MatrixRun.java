package org.tandembroker.perftests;

import java.util.List;
import java.util.Locale;

/**
 * One cell of the durability matrix: a configuration under N producers and N consumers.
 *
 * @param configuration      the column
 * @param clients            N
 * @param result             what {@link PairedLoad} measured, or null when the run never happened (the
 *                           configuration failed to start, or its broker exited during an earlier run)
 * @param replicaCpuPercent  CPU of the replicas over the whole run (warm-up, window, drain), % of one core; 0 for
 *                           a standalone or external broker
 * @param error              why the run did not happen, or null
 */
public record MatrixRun(MatrixConfiguration configuration, int clients, PairedLoad.Result result,
                        double replicaCpuPercent, String error) {

    /** A run that did not happen, for {@code why}. */
    public static MatrixRun failed(MatrixConfiguration configuration, int clients, String why) {
        return new MatrixRun(configuration, clients, null, 0, why);
    }

    /**
     * Null when the run measured messages and every confirmed message was received; otherwise why not: the
     * figures of such a run are kept in the CSV but the tables show it as failed.
     */
    public String failure() {
        if (error != null) {
            return error;
        }
        if (!result.errors().isEmpty()) {
            List<String> errors = result.errors();
            return "client error: " + errors.get(0) + (errors.size() > 1 ? " (and " + (errors.size() - 1)
                    + " more)" : "");
        }
        if (result.consumedInWindow() == 0) {
            return "no message was consumed in the measured window";
        }
        DeliveryLedger.Check check = result.ledger();
        if (!result.drained()) {
            return String.format(Locale.ROOT, "the backlog did not drain in time (%,d of %,d confirmed"
                    + " messages received)", check.received() - check.unconfirmedArrivals(), check.confirmed());
        }
        if (!check.complete()) {
            return String.format(Locale.ROOT, "%,d confirmed messages were never received",
                    check.missing());
        }
        return null;
    }

    public boolean measured() {
        return failure() == null;
    }

    /** Body kilobytes (1 KB = 1,024 bytes) consumed per second in the window. */
    public double kbPerSecond() {
        return result.consumedPerSecond() * result.bodySize() / 1024.0;
    }

    public double messagesPerSecond() {
        return result.consumedPerSecond();
    }
}
