package org.tandembroker.core.store;

import java.util.Optional;

/**
 * How a store tells its virtual host whether this node may serve clients. Calls arrive on a store thread
 * (never JE's own listener thread, never a network thread), one at a time, and may block while the virtual
 * host recovers or passivates.
 */
public interface StoreRoleListener {

    /** This node now owns the store for writing: recover and serve clients. */
    void becameActive();

    /**
     * This node may no longer write: close client connections and stop serving.
     *
     * @param activeNodeClientAddress where clients should go instead ({@code host:port} of the active node's
     *                                client listener), when known
     * @param reason                  one line for the operational log
     */
    void becamePassive(Optional<String> activeNodeClientAddress, String reason);
}
