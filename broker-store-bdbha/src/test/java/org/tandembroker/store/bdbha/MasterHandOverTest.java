package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.COMMIT_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import com.sleepycat.je.rep.impl.node.Feeder;
import com.sleepycat.je.rep.stream.Protocol;
import com.sleepycat.je.utilint.TestHookAdapter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdbha.HaGroup.Commit;
import org.tandembroker.store.bdbha.HaGroup.Node;

/**
 * A master that stops while it is still master (a broker shut down for maintenance) leaves its replicas holding
 * everything it committed, consumers' removals included, although removals commit without waiting for
 * acknowledgements: otherwise the next master would deliver those messages again.
 *
 * <p>The replica is held back by JE's feeder test hook (it runs under {@code -ea}, which Surefire sets): while
 * {@link #streamDelayMillis} is positive, every record the master ships waits that long first.
 */
class MasterHandOverTest {
    private static volatile long streamDelayMillis;

    @TempDir
    Path work;
    private HaGroup group;

    @BeforeEach
    void group() {
        streamDelayMillis = 0;
        Feeder.setInitialWriteMessageHook(new TestHookAdapter<Protocol.Message>() {
            @Override
            public void doHook(Protocol.Message message) {
                long delay = streamDelayMillis;
                if (delay > 0) {
                    try {
                        Thread.sleep(delay);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        });
        group = new HaGroup(work, "handover");
    }

    @AfterEach
    void close() {
        streamDelayMillis = 0;
        try {
            group.close();
        } finally {
            Feeder.setInitialWriteMessageHook(null);
        }
    }

    @Test
    void aMasterThatStopsLetsItsReplicaCatchUpSoThatConsumedMessagesAreNotDeliveredAgain() {
        Node first = group.start("first").awaitActive();
        Node second = group.start("second").awaitRedirectTo(first);
        await().atMost(ROLE_DEADLINE).until(() -> first.store.replicaLags().containsKey("second"));
        List<Commit> published = first.publishAll("m", 10);
        Commit kept = first.publish("kept");
        assertThat(kept.future()).succeedsWithin(COMMIT_DEADLINE);

        // The replica falls behind; consumers acknowledge; the broker is stopped right after.
        streamDelayMillis = 20;
        List<CompletableFuture<Void>> removals = published.stream().map(m -> first.acknowledge(m.id())).toList();
        removals.forEach(removal -> assertThat(removal).succeedsWithin(COMMIT_DEADLINE));
        first.close();
        streamDelayMillis = 0;

        second.awaitState("UNKNOWN");
        assertThat(second.store.setDesignatedPrimary(true)).succeedsWithin(COMMIT_DEADLINE);
        second.awaitActive();
        assertThat(second.recover().entries).containsExactly(kept.id());
        assertThat(first.linesWith("HA-1007")).singleElement().asString()
                .contains("node first : a majority acknowledged everything this master committed");
    }
}
