package org.tandembroker.core.vhost;

import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * A virtual host as a protocol front end sees it. Every method may be called from a network thread and never
 * blocks: anything that needs the store returns a future.
 *
 * <h2>Addresses</h2>
 * <ul>
 *   <li>{@code name} of a queue: publish to and consume from that queue (created if unknown and auto-create is
 *   on; otherwise {@code NOT_FOUND}).</li>
 *   <li>{@code name} of an exchange: publish with the message's subject as routing key; consume through a
 *   private temporary queue bound with key {@code #} (topic), {@code ""} (direct) or none (fanout).</li>
 *   <li>{@code exchange/key}: publish with routing key {@code key}; consume through a private queue bound with
 *   binding key {@code key}.</li>
 *   <li>with {@link AddressKind#TOPIC}, a {@code name} that is no exchange address: {@code amq.topic/name}.</li>
 * </ul>
 */
public interface VirtualHost {

    String name();

    VirtualHostState state();

    /** Admits a new client connection, or refuses it (e.g. this node is a replica: redirect to the master). */
    Admission admit(ClientConnection connection);

    /**
     * Like {@link #admit}, but while this node neither serves nor knows which node does (a replication group
     * electing a master, a new master activating, a broker starting) the answer waits, at most a few seconds, until
     * it does: then the connection is admitted, or refused with a redirect. A failover client held this way
     * connects as soon as a node serves, instead of backing off after a refusal. The future may complete on any
     * thread; a connection that closed meanwhile must deregister an admission it no longer wants.
     */
    default CompletableFuture<Admission> admitWhenDecided(ClientConnection connection) {
        return CompletableFuture.completedFuture(admit(connection));
    }

    /**
     * Resolves a publishing link's target address of the given kind (see the class comment) for a client that may do
     * what {@code access} allows: it needs {@code send} on the address, and {@code create} when the address names no
     * queue or exchange yet and the virtual host auto-creates it. Fails with NOT_FOUND, NOT_ACTIVE or
     * UNAUTHORIZED_ACCESS.
     */
    CompletableFuture<Destination> resolveDestination(String address, AddressKind kind, ClientAccess access);

    /** A plain address, for an embedded caller that may do everything. */
    default CompletableFuture<Destination> resolveDestination(String address) {
        return resolveDestination(address, AddressKind.UNSPECIFIED, ClientAccess.UNRESTRICTED);
    }

    /**
     * Attaches a consumer to the queue an address denotes (see the class comment). The client needs
     * {@code consume} on the address, and {@code create} for a queue the virtual host auto-creates.
     */
    CompletableFuture<Subscription> subscribe(String address, ConsumerTarget target, SubscriptionOptions options,
                                              ClientAccess access);

    /** {@link #subscribe(String, ConsumerTarget, SubscriptionOptions, ClientAccess)} with every permission. */
    default CompletableFuture<Subscription> subscribe(String address, ConsumerTarget target,
                                                      SubscriptionOptions options) {
        return subscribe(address, target, options, ClientAccess.UNRESTRICTED);
    }

    /**
     * Creates a temporary queue owned by {@code owner}, deleted when that connection deregisters.
     * Completes with the queue's address.
     */
    CompletableFuture<String> createTemporaryQueue(ClientConnection owner);

    /** Starts a local transaction (AMQP coordinator declare). */
    LocalTransaction beginTransaction();
}
