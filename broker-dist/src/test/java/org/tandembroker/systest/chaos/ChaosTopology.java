package org.tandembroker.systest.chaos;

/**
 * The groups the soak runs against.
 * <ul>
 *   <li>{@link #THREE_NODES}: three brokers; JE elects a new master on its own.</li>
 *   <li>{@link #TWO_NODES_OPERATOR}: two brokers, neither designated primary; the harness acts as the operator
 *       and designates the survivor with {@code ha-admin designate-primary} only when the other node is really
 *       down (killed), undesignates it once the other rejoined and caught up, and checks at every quiet moment
 *       that the split-brain guard refuses a designation while both nodes answer.</li>
 *   <li>{@link #TWO_NODES_ARBITER}: two brokers and a JE arbiter, which gives the survivor its majority.</li>
 * </ul>
 */
public enum ChaosTopology {
    THREE_NODES(3, false, false),
    TWO_NODES_OPERATOR(2, true, false),
    TWO_NODES_ARBITER(2, false, true);

    final int brokers;
    final boolean operator;
    final boolean arbiter;

    ChaosTopology(int brokers, boolean operator, boolean arbiter) {
        this.brokers = brokers;
        this.operator = operator;
        this.arbiter = arbiter;
    }

    /** {@code three}, {@code two-operator}, {@code arbiter} (or the enum name). */
    public static ChaosTopology parse(String text) {
        return switch (text.toLowerCase(java.util.Locale.ROOT)) {
            case "three", "three_nodes", "three-nodes" -> THREE_NODES;
            case "two", "two-operator", "two_nodes_operator", "operator" -> TWO_NODES_OPERATOR;
            case "arbiter", "two-arbiter", "two_nodes_arbiter" -> TWO_NODES_ARBITER;
            default -> throw new IllegalArgumentException("topology " + text
                    + ": one of three, two-operator, arbiter");
        };
    }

    public String label() {
        return switch (this) {
            case THREE_NODES -> "three";
            case TWO_NODES_OPERATOR -> "two-operator";
            case TWO_NODES_ARBITER -> "arbiter";
        };
    }
}
