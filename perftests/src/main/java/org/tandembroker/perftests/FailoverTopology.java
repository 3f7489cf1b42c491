package org.tandembroker.perftests;

import java.util.List;

/**
 * A group shape for the failover-under-load benchmark, as written on the command line: {@code 3} (three brokers,
 * an election), {@code 2+arbiter} (two brokers and {@code bin/arbiter}, an election) or {@code 2} (two brokers, the
 * survivor designated primary by the harness right after the kill).
 */
public enum FailoverTopology {
    THREE_NODES("3", 3, false),
    TWO_NODES_AND_ARBITER("2+arbiter", 2, true),
    TWO_NODES_DESIGNATED("2", 2, false);

    private final String option;
    private final int brokers;
    private final boolean arbiter;

    FailoverTopology(String option, int brokers, boolean arbiter) {
        this.option = option;
        this.brokers = brokers;
        this.arbiter = arbiter;
    }

    /** The topology named {@code text} ({@code 3}, {@code 2+arbiter} or {@code 2}). */
    public static FailoverTopology parse(String text) {
        for (FailoverTopology topology : values()) {
            if (topology.option.equals(text.trim())) {
                return topology;
            }
        }
        throw new IllegalArgumentException("unknown topology '" + text + "'; topologies: "
                + String.join(", ", List.of(values()).stream().map(t -> t.option).toList()));
    }

    public String option() {
        return option;
    }

    public int brokers() {
        return brokers;
    }

    public boolean arbiter() {
        return arbiter;
    }

    /** Two brokers without an arbiter: the harness designates the survivor after the kill. */
    public boolean byDesignation() {
        return brokers == 2 && !arbiter;
    }

    /** {@code 3 nodes}, {@code 2 nodes + arbiter}, {@code 2 nodes, designation}. */
    public String label() {
        return switch (this) {
            case THREE_NODES -> "3 nodes";
            case TWO_NODES_AND_ARBITER -> "2 nodes + arbiter";
            case TWO_NODES_DESIGNATED -> "2 nodes, designation";
        };
    }
}
