package org.tandembroker.core.vhost;

/** Life cycle of a virtual host. */
public enum VirtualHostState {
    /** Its store is open for writing; it serves clients. */
    ACTIVE,
    /** It exists on this node but may not serve clients (a replica, or waiting for its store). */
    PASSIVE,
    /** Shut down. */
    STOPPED
}
