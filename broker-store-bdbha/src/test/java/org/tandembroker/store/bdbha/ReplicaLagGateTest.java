package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.COMMIT_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.options;

import com.sleepycat.je.rep.impl.node.Feeder;
import com.sleepycat.je.rep.stream.Protocol;
import com.sleepycat.je.utilint.TestHookAdapter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdbha.HaGroup.Commit;
import org.tandembroker.store.bdbha.HaGroup.Node;

/**
 * Consumers' removals wait for no acknowledgement, yet do not run more than about half a second ahead of the
 * replicas: otherwise a drain without publishers outruns a slower replica until the master loses its quorum.
 *
 * <p>The replica is held back by JE's feeder test hook (it runs under {@code -ea}, which Surefire sets): while
 * {@link #streamHeld} is set, the master ships nothing.
 */
class ReplicaLagGateTest {
    private static volatile boolean streamHeld;

    @TempDir
    Path work;
    private HaGroup group;

    @BeforeEach
    void holdableStream() {
        streamHeld = false;
        Feeder.setInitialWriteMessageHook(new TestHookAdapter<Protocol.Message>() {
            @Override
            public void doHook(Protocol.Message message) {
                while (streamHeld) {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        });
    }

    @AfterEach
    void close() {
        streamHeld = false;
        try {
            if (group != null) {
                group.close();
            }
        } finally {
            Feeder.setInitialWriteMessageHook(null);
        }
    }

    @Test
    void aRemovalPassesAtOnceWhileNothingWaitsForAcknowledgementsOrOnlyBriefly() {
        ReplicaLagGate gate = new ReplicaLagGate(60_000);
        assertThat(passes(gate)).succeedsWithin(COMMIT_DEADLINE);

        gate.awaitingAcknowledgements();
        assertThat(passes(gate)).succeedsWithin(COMMIT_DEADLINE);
        assertThat(gate.held()).isZero();
    }

    @Test
    void aRemovalWaitsWhileAnAcknowledgementIsOverdueUntilThatCommitEnds() {
        ReplicaLagGate gate = new ReplicaLagGate(0);
        gate.awaitingAcknowledgements();

        CompletableFuture<Void> removal = passes(gate);
        await().atMost(COMMIT_DEADLINE).until(() -> gate.held() == 1);
        assertThat(removal).isNotDone();

        gate.acknowledgementsEnded();
        assertThat(removal).succeedsWithin(COMMIT_DEADLINE);
        assertThat(passes(gate)).as("nothing awaits any more").succeedsWithin(COMMIT_DEADLINE);
        assertThat(gate.held()).isEqualTo(1);
    }

    @Test
    void aRemovalCommitsOnlyOnceTheLaggingReplicaHasCaughtUpAndTheMasterKeepsServing() throws Exception {
        group = new HaGroup(work, "lag");
        // the heartbeat waits for its acknowledgement as long as the stream is held, without losing the quorum
        Node master = group.start("master", options().rep("je.rep.replicaAckTimeout", "60 s")).awaitActive();
        Node replica = group.start("replica").awaitRedirectTo(master);
        await().atMost(ROLE_DEADLINE).until(() -> master.store.replicaLags().containsKey("replica"));
        List<Commit> stored = master.publishAll("m", 2);
        assertThat(master.acknowledge(stored.get(0).id())).as("a removal while the replica keeps up")
                .succeedsWithin(COMMIT_DEADLINE);

        streamHeld = true;
        // the next heartbeat (at most a second away) then waits longer than the gate's limit
        Thread.sleep(QuorumHeartbeat.INTERVAL_MILLIS + 2 * ReplicaLagGate.LIMIT_MILLIS);
        CompletableFuture<Void> removal = master.acknowledge(stored.get(1).id());
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> !removal.isDone());

        streamHeld = false;
        assertThat(removal).succeedsWithin(COMMIT_DEADLINE);
        assertThat(master.listener.isActive()).isTrue();
        assertThat(master.linesWithCode("HA-1005")).as("no quorum lost").isZero();
        assertThat(replica.store.nodeState()).isEqualTo("REPLICA");
    }

    private static CompletableFuture<Void> passes(ReplicaLagGate gate) {
        return CompletableFuture.runAsync(gate::passRemoval);
    }
}
