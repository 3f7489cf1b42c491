package org.tandembroker.core.store;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * How a store tells its virtual host whether this node may serve clients. Calls arrive on a store thread
 * (never JE's own listener thread, never a network thread), one at a time. They return at once: the virtual host
 * recovers or passivates on its own thread and completes the returned future when done, so a store that must
 * wait (e.g. for every client transaction to end before restarting its environment) can, and one that need not
 * can ignore it.
 */
public interface StoreRoleListener {

    /** This node now owns the store for writing: recover and serve clients. */
    CompletableFuture<Void> becameActive();

    /**
     * This node may no longer write: close client connections and stop serving.
     *
     * @param activeNodeClientAddress where clients should go instead ({@code host:port} of the active node's
     *                                client listener), when known
     * @param reason                  one line for the operational log
     */
    CompletableFuture<Void> becamePassive(Optional<String> activeNodeClientAddress, String reason);

    /**
     * The store cannot serve on this node at all: it did not open (its directory is in use, its files are damaged,
     * its node is refused by its group) or it stopped for good. The virtual host stops serving, tells clients why
     * without sending them to another node, and reports itself failed; a broker that is starting stops with
     * {@code reason} unless it is configured to stay up.
     *
     * @param reason one line for the operator, naming what to fix
     */
    default CompletableFuture<Void> failed(String reason) {
        return becamePassive(Optional.empty(), reason);
    }
}
