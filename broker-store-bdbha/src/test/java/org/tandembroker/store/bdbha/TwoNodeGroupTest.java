package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.COMMIT_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.failureKind;
import static org.tandembroker.store.bdbha.HaGroup.failureMessage;
import static org.tandembroker.store.bdbha.HaGroup.options;

import com.sleepycat.je.Durability;
import com.sleepycat.je.TransactionConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.store.bdbha.HaGroup.Commit;
import org.tandembroker.store.bdbha.HaGroup.Node;

/** Two-node groups as the spec's figures 1.3 to 1.5 describe them, in one JVM. */
class TwoNodeGroupTest {
    @TempDir
    Path work;
    private HaGroup group;

    @BeforeEach
    void group() {
        group = new HaGroup(work, "two");
    }

    @AfterEach
    void close() {
        group.close();
    }

    @Test
    void masterFailureNeedsADesignationAfterWhichTheReplicaServesEveryCommittedMessage() {
        Node first = group.start("first").awaitActive();
        assertThat(first.linesWith("HA-1001")).anyMatch(line -> line.contains("node first is now MASTER"));
        assertThat(first.store.status()).extracting(StoreStatus::role, StoreStatus::writable)
                .containsExactly("MASTER", true);

        Node second = group.start("second").awaitRedirectTo(first);
        assertThat(second.store.status().role()).isEqualTo("REPLICA");
        assertThat(second.store.status().writable()).isFalse();
        assertThat(second.listener.everActive()).isFalse();
        assertThat(first.store.groupMembers()).extracting(GroupMember::name).containsExactly("first", "second");
        await().atMost(ROLE_DEADLINE).until(() -> first.store.replicaLags().containsKey("second"));

        List<Commit> committed = first.publishAll("m", 50);

        // Figure 1.3, 2: the master fails; the replica cannot tell a failure from a partition and waits.
        first.close();
        second.awaitState("UNKNOWN");
        assertThat(second.listener.isActive()).isFalse();
        assertThat(second.listener.lastPassive()).hasValueSatisfying(event -> assertThat(event.reason())
                .contains("no master"));

        // 3: an operator designates the replica, which becomes master and serves every committed message.
        assertThat(second.store.setDesignatedPrimary(true)).succeedsWithin(COMMIT_DEADLINE);
        second.awaitActive();
        assertThat(second.linesWith("HA-1002")).anyMatch(line -> line.contains("node second : true"));
        assertThat(second.store.isDesignatedPrimary()).isTrue();
        HaGroup.Recovered recovered = second.recover();
        assertThat(recovered.entries).containsExactlyElementsOf(committed.stream().map(Commit::id).toList());
        assertThat(second.content(committed.get(49).id())).isEqualTo("m49");
        assertThat(second.publish("after").future()).succeedsWithin(COMMIT_DEADLINE);

        // 5: the old master comes back and rejoins as a replica of the new one.
        Node rejoined = group.start("first").awaitRedirectTo(second);
        assertThat(rejoined.listener.everActive()).isFalse();
    }

    @Test
    void aDesignatedPrimaryMasterKeepsCommittingAloneWhenTheReplicaFails() {
        Node master = group.start("master", options().designated(true)).awaitActive();
        Node replica = group.start("replica").awaitRedirectTo(master);
        master.publishAll("before", 5);

        replica.close();

        List<Commit> alone = master.publishAll("alone", 20);
        assertThat(alone).hasSize(20);
        assertThat(master.listener.isActive()).isTrue();
        assertThat(master.linesWith("HA-1005")).noneMatch(line -> line.contains("lost"));
        assertThat(master.store.status().writable()).isTrue();
    }

    @Test
    void aMasterThatIsNotDesignatedStopsServingWhenTheReplicaFailsUntilItReturns() {
        Node master = group.start("master", options().rep("je.rep.insufficientReplicasTimeout", "2 s"))
                .awaitActive();
        Node replica = group.start("replica").awaitRedirectTo(master);
        master.publishAll("before", 5);

        replica.close();
        CompletableFuture<Void> commit = master.publish("unreplicated").future();

        ErrorKind kind = failureKind(commit, COMMIT_DEADLINE);
        assertThat(kind).isIn(ErrorKind.RESOURCE_LIMIT_EXCEEDED, ErrorKind.IN_DOUBT, ErrorKind.NOT_ACTIVE);
        if (kind == ErrorKind.RESOURCE_LIMIT_EXCEEDED) {
            assertThat(failureMessage(commit)).contains("not enough replicas")
                    .contains("(ack policy SIMPLE_MAJORITY)").contains("nothing was stored");
        }
        await().atMost(ROLE_DEADLINE).until(() -> !master.listener.isActive());
        await().atMost(ROLE_DEADLINE).until(() -> master.linesWith("HA-1005").stream()
                .anyMatch(line -> line.contains("lost")));
        assertThat(master.store.status().writable()).isFalse();
        assertThat(master.store.status().description()).contains("not serving");
        assertThat(failureKind(master.publishOrFail("later"), COMMIT_DEADLINE)).isEqualTo(ErrorKind.NOT_ACTIVE);
        // What a client is told when JE finds too few replicas (here provoked on the still-MASTER environment).
        Throwable tooFewReplicas = catchThrowable(() -> master.store.environment().orElseThrow().beginTransaction(
                null, new TransactionConfig().setDurability(new Durability(Durability.SyncPolicy.NO_SYNC,
                        Durability.SyncPolicy.NO_SYNC, Durability.ReplicaAckPolicy.SIMPLE_MAJORITY))).abort());
        assertThat(ReplicationFailures.classify(tooFewReplicas, "master")).hasValueSatisfying(verdict -> {
            assertThat(verdict.error().kind()).isEqualTo(ErrorKind.RESOURCE_LIMIT_EXCEEDED);
            assertThat(verdict.error().getMessage()).isEqualTo("not enough replicas to commit on node master: "
                    + "2 nodes including this master needed, replicas connected: [] (ack policy SIMPLE_MAJORITY); "
                    + "nothing was stored");
        });

        // Figure 1.4, 3-4: the replica returns; the master serves again without an operator.
        group.start("replica").awaitRedirectTo(master);
        master.awaitActive();
        assertThat(master.linesWith("HA-1005")).anyMatch(line -> line.contains("regained"));
        assertThat(master.publish("replicated again").future()).succeedsWithin(COMMIT_DEADLINE);
    }

    @Test
    void twoNodesConfiguredAsDesignatedPrimaryRefuseToFormAGroup() {
        Node first = group.start("first", options().designated(true)).awaitActive();

        Node second = group.start("second", options().designated(true));

        await().atMost(ROLE_DEADLINE).until(() -> second.store.status().role().equals("DETACHED"));
        assertThat(second.store.status().description()).contains("designated primary");
        assertThat(second.listener.everActive()).isFalse();
        assertThat(first.listener.isActive()).isTrue();
    }
}
