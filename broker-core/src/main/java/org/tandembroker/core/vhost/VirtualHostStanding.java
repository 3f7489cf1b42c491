package org.tandembroker.core.vhost;

/**
 * Whether a virtual host does its part on this node, for the broker's {@code Ready} line and the health endpoint.
 * A node is ready when each of its virtual hosts is {@link #SERVING} or a {@link #REPLICA}.
 */
public enum VirtualHostStanding {
    /** It serves clients: a standalone store, or the master of its group. */
    SERVING,
    /** A replica in its group: it follows the master and can take over; clients are redirected. */
    REPLICA,
    /** Not serving yet and not a replica: opening, recovering, electing, or a group member without a master. */
    WAITING,
    /** Its store cannot serve on this node (it did not open, or stopped for good); the reason says why. */
    FAILED,
    /** Shut down. */
    STOPPED;

    /** Whether a node whose hosts all stand so is ready. */
    public boolean ready() {
        return this == SERVING || this == REPLICA;
    }
}
