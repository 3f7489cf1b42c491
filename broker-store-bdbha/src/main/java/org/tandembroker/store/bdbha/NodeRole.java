package org.tandembroker.store.bdbha;

import com.sleepycat.je.rep.ReplicatedEnvironment;

/**
 * This node's role in its replication group: JE's four states (mapped from JE's enum here, and only here) and the
 * store's own states around them. {@link NodeRoleMachine} decides the role; management shows {@link #reported()}.
 */
enum NodeRole {
    /** JE elected (or an operator designated) this node master. */
    MASTER,
    /** JE follows a master. */
    REPLICA,
    /** JE knows no master: no quorum reachable, an election pending. */
    UNKNOWN,
    /** JE left the group; the environment is restarted at once. */
    DETACHED,
    /** The environment is being opened for the first time. */
    OPENING,
    /** The environment is being closed and opened again (JE required it). */
    RESTARTING,
    /** The node stopped for good (the store's status says why); reported as JE's DETACHED. */
    FAILED,
    /** The store closed. */
    CLOSED;

    static NodeRole of(ReplicatedEnvironment.State state) {
        return switch (state) {
            case MASTER -> MASTER;
            case REPLICA -> REPLICA;
            case UNKNOWN -> UNKNOWN;
            case DETACHED -> DETACHED;
        };
    }

    /** JE's "active": the node knows a master (it is one, or follows one). */
    boolean knowsMaster() {
        return this == MASTER || this == REPLICA;
    }

    /** The name management and the store's status show: MASTER, REPLICA, UNKNOWN, DETACHED, OPENING, ... */
    String reported() {
        return this == FAILED ? DETACHED.name() : name();
    }
}
