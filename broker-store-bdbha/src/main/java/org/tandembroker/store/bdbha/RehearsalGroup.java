package org.tandembroker.store.bdbha;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.store.StoreRoleListener;

/**
 * The start-up warm-up's scratch replication group ({@link ReplicatedMessageStoreFactory#rehearsalStore}): a master
 * and a replica of a group of two, both in this JVM, so that the rehearsal runs every replicated path a node of a
 * real group takes: the master's commit path waiting for the replica's acknowledgement, JE's feeder that streams to
 * it, and the replica's replay. The virtual host sees the master, a plain {@link ReplicatedMessageStore} (so the
 * code compiled for it is the code the real store runs); the master holds this group, which starts the replica once
 * the master is active and tells the virtual host that the master is active once the replica has joined (or after
 * {@link #JOIN_LIMIT}, or when the replica failed: then the master, designated primary, rehearses alone). The master
 * closes the replica after itself.
 */
final class RehearsalGroup {
    private static final Logger LOG = LoggerFactory.getLogger(RehearsalGroup.class);
    /** How long the master waits for the replica to join before it rehearses alone. */
    static final Duration JOIN_LIMIT = Duration.ofSeconds(20);
    private static final long POLL_MILLIS = 50;
    private static final String JOINED = NodeRole.REPLICA.reported();
    /** The roles a store reports once it stopped (a failed node reports itself DETACHED). */
    private static final Set<String> GAVE_UP = Set.of(NodeRole.DETACHED.reported(), NodeRole.CLOSED.reported());

    private final ReplicatedMessageStore replica;
    private final AtomicBoolean replicaStarted = new AtomicBoolean();

    RehearsalGroup(ReplicatedMessageStore replica) {
        this.replica = replica;
    }

    ReplicatedMessageStore replica() {
        return replica;
    }

    /**
     * The master's role listener: {@code listener}, except that the master's first activation starts the replica
     * (on a thread of its own, {@code warm-up-replica-join}) and reaches {@code listener} once the replica joined.
     */
    StoreRoleListener activeOnceJoined(StoreRoleListener listener) {
        return new StoreRoleListener() {
            @Override
            public CompletableFuture<Void> becameActive() {
                if (!replicaStarted.compareAndSet(false, true)) {
                    return listener.becameActive();
                }
                CompletableFuture<Void> joined = new CompletableFuture<>();
                Thread joining = new Thread(() -> startReplicaAndAwaitJoin(joined), "warm-up-replica-join");
                joining.setDaemon(true);
                joining.start();
                return joined.thenCompose(ignored -> listener.becameActive());
            }

            @Override
            public CompletableFuture<Void> becamePassive(Optional<String> activeNodeClientAddress, String reason) {
                return listener.becamePassive(activeNodeClientAddress, reason);
            }

            @Override
            public CompletableFuture<Void> failed(String reason) {
                return listener.failed(reason);
            }
        };
    }

    /** Called by the master once it has closed: a master whose replica went first would wait for it. */
    void closeReplica() {
        replica.close();
    }

    private void startReplicaAndAwaitJoin(CompletableFuture<Void> joined) {
        try {
            replica.start(FollowingOnly.INSTANCE);
            long deadline = System.nanoTime() + JOIN_LIMIT.toNanos();
            String role = replica.status().role();
            while (!role.equals(JOINED) && !GAVE_UP.contains(role) && System.nanoTime() - deadline < 0) {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
                role = replica.status().role();
            }
            if (!role.equals(JOINED)) {
                LOG.debug("The warm-up's replica did not join ({}): the master rehearses alone", replica.status());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debug("The warm-up's replica did not start: the master rehearses alone", e);
        } finally {
            joined.complete(null);
        }
    }

    /** The replica's listener: it serves no virtual host, so it has nothing to recover or to stop. */
    private enum FollowingOnly implements StoreRoleListener {
        INSTANCE;

        @Override
        public CompletableFuture<Void> becameActive() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> becamePassive(Optional<String> activeNodeClientAddress, String reason) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
