package org.tandembroker.core.vhost;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.store.MessageStore;

/**
 * A virtual host as a management plugin sees it (where {@link VirtualHost} is the protocol front end's view): its
 * state, its store, its queues and connections, its counters, and the publish refusal the disk watermark uses. It
 * sits beside {@link VirtualHost} rather than in {@code core.management} so that the virtual host implementing it
 * does not make the two packages depend on each other.
 *
 * <p><b>Threads.</b> Every method may be called from any thread and returns at once; collections are snapshots.
 */
public interface ManagedVirtualHost {

    String name();

    VirtualHostState state();

    /** Whether this host does its part on this node: serving, a replica, waiting, failed or stopped. */
    VirtualHostStanding standing();

    /** Why this host does not serve now (the store's last reason, or why it failed), or "serving". */
    String standingReason();

    VirtualHostConfig config();

    /**
     * The store while one is open (empty while passivated or stopped). An operator's passivate and activate
     * replace it with a new store of the same type: look it up at each use, never keep it.
     */
    Optional<MessageStore> store();

    /** Queues by name (a snapshot; a queue is replaced by a new instance when the host is recovered again). */
    Map<String, BrokerQueue> queues();

    int connectionCount();

    /** Each open client connection's {@link ClientConnection#describe()} (a snapshot). */
    List<String> connectionDescriptions();

    /**
     * Closes the client connections whose {@link ClientConnection#describe()} equals {@code description}, telling
     * the client {@code reason}. Returns how many were asked to close (0: no such connection).
     */
    int closeConnection(String description, String reason);

    /**
     * Refuses every new publish with {@code RESOURCE_LIMIT_EXCEEDED} and {@code reason} until
     * {@link #acceptPublishes()}; consumers and acknowledgements carry on.
     */
    void refusePublishes(String reason);

    /** Accepts publishes again after {@link #refusePublishes}. */
    void acceptPublishes();

    /** Why publishes are refused, when they are. */
    Optional<String> publishRefusal();

    /** Counters since this host was created. */
    PublishStatistics publishStatistics();
}
