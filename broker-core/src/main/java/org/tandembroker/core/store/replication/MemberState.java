package org.tandembroker.core.store.replication;

/** A replication group member's state as a replicated store reports it (its engine's states, mapped once). */
public enum MemberState {
    /** Elected or designated: it writes, and clients use it. */
    MASTER,
    /** It follows the master's replication stream. */
    REPLICA,
    /** A voting, acknowledging member that holds no data. */
    ARBITER,
    /** Running but not in contact with a master (no quorum, an election, opening or restarting). */
    UNKNOWN,
    /** Not part of the group's work now (closed, or stopped). */
    DETACHED
}
