package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.COMMIT_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.QUEUE;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.store.bdb.StoreDatabases;

/**
 * The warm-up's store on a replicated node ({@link ReplicatedMessageStoreFactory#rehearsalStore}): a scratch group
 * of two in this JVM, so that the rehearsal runs the master's acknowledged commits, JE's feeder and the replica's
 * replay.
 */
class RehearsalGroupTest {
    @TempDir
    Path work;

    @Test
    void theWarmUpStoreServesAsMasterOnlyOnceItsScratchReplicaHasJoinedAndItsCommitsReachThatReplica()
            throws Exception {
        ReplicatedMessageStore master = (ReplicatedMessageStore) new ReplicatedMessageStoreFactory()
                .rehearsalStore(work.resolve("store"), context("warm-up")).orElseThrow();
        ReplicatedMessageStore replica = master.rehearsalReplica().orElseThrow();
        RoleAtActivation listener = new RoleAtActivation(replica);
        try {
            master.start(listener);
            await().atMost(ROLE_DEADLINE).until(() -> !listener.replicaRoles.isEmpty());
            assertThat(listener.replicaRoles).as("the replica's role when the master became active")
                    .containsExactly("REPLICA");
            assertThat(master.status().role()).isEqualTo("MASTER");
            assertThat(master.status().description())
                    .contains("durability " + ReplicatedStoreSettings.DEFAULT_DURABILITY);

            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long id = master.nextMessageId();
                StoreTransaction txn = master.newTransaction();
                txn.storeMessage(id, "meta".getBytes(StandardCharsets.UTF_8),
                        ("rehearsed " + i).getBytes(StandardCharsets.UTF_8));
                txn.enqueue(QUEUE, id);
                CompletableFuture<Void> committed = txn.commit();
                assertThat(committed).succeedsWithin(COMMIT_DEADLINE);
                ids.add(id);
            }
            // SIMPLE_MAJORITY of two: each commit completed only once the replica had acknowledged it.
            StoreDatabases onReplica = StoreDatabases.open(replica.environment().orElseThrow(),
                    Set.of(QuorumHeartbeat.DATABASE));
            try {
                assertThat(ids).allSatisfy(id -> assertThat(onReplica.readContent(id)).isPresent());
            } finally {
                onReplica.close();
            }
        } finally {
            master.close();
        }
        assertThat(master.status().role()).isEqualTo("CLOSED");
        assertThat(replica.status().role()).isEqualTo("CLOSED");
        assertThat(Files.list(work.resolve("store")).map(p -> p.getFileName().toString()))
                .containsExactlyInAnyOrder("master", "replica");
    }

    @Test
    void aScratchReplicaThatCannotJoinLeavesItsDesignatedMasterRehearsingAlone() throws Exception {
        ReplicatedMessageStoreFactory factory = new ReplicatedMessageStoreFactory();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String masterHostPort = "127.0.0.1:" + freePort();
            // The replica's port is held by another socket: it cannot listen, so it never joins.
            ReplicatedMessageStore replica = (ReplicatedMessageStore) factory.create(node("warm-up-replica",
                    "127.0.0.1:" + taken.getLocalPort(), masterHostPort, false), context("warm-up-replica"));
            ReplicatedMessageStore master = new ReplicatedMessageStore(ReplicatedStoreSettings.from(node("warm-up",
                    masterHostPort, masterHostPort, true), context("warm-up")), context("warm-up"),
                    new RehearsalGroup(replica));
            RoleAtActivation listener = new RoleAtActivation(replica);
            try {
                master.start(listener);
                await().atMost(RehearsalGroup.JOIN_LIMIT.plus(ROLE_DEADLINE)).until(() -> !listener.replicaRoles
                        .isEmpty());
                assertThat(listener.replicaRoles.get(0)).isNotEqualTo("REPLICA");
                long id = master.nextMessageId();
                StoreTransaction txn = master.newTransaction();
                txn.storeMessage(id, new byte[0], "alone".getBytes(StandardCharsets.UTF_8));
                txn.enqueue(QUEUE, id);
                assertThat(txn.commit()).succeedsWithin(COMMIT_DEADLINE);
            } finally {
                master.close();
            }
            assertThat(replica.status().role()).as("the master closes its replica").isEqualTo("CLOSED");
        }
    }

    private StoreSettings node(String name, String hostPort, String helper, boolean designated) {
        return new StoreSettings(work.resolve("rehearsal.xml"), ReplicatedMessageStore.TYPE, Map.of(
                ReplicatedStoreSettings.STORE_PATH, work.resolve(name).toString(),
                ReplicatedStoreSettings.GROUP_NAME, "tandem-warm-up",
                ReplicatedStoreSettings.NODE_NAME, name,
                ReplicatedStoreSettings.NODE_HOST_PORT, hostPort,
                ReplicatedStoreSettings.HELPER_HOST_PORT, helper,
                ReplicatedStoreSettings.DESIGNATED_PRIMARY, Boolean.toString(designated)), List.of(), List.of());
    }

    private StoreContext context(String virtualHost) {
        return new StoreContext(virtualHost, work, null, OperationalLog.unlogged());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Records the scratch replica's role at the moment the master tells its virtual host that it is active. */
    private static final class RoleAtActivation implements StoreRoleListener {
        final List<String> replicaRoles = new CopyOnWriteArrayList<>();
        private final MessageStore replica;

        RoleAtActivation(MessageStore replica) {
            this.replica = replica;
        }

        @Override
        public CompletableFuture<Void> becameActive() {
            replicaRoles.add(replica.status().role());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> becamePassive(Optional<String> activeNodeClientAddress, String reason) {
            return CompletableFuture.completedFuture(null);
        }
    }
}
