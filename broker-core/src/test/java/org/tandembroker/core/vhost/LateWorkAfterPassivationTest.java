package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.testing.ControlledStore;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;

/**
 * Work that the queues of an activation finish after the host passivated never writes to the store, which belongs
 * to the next activation by then. The two-node soak saw a publish whose commit completed just after a quorum loss
 * remove its own message from the store while the quickly re-activated host had already loaded its entry: the entry
 * could then not be read, and stalled its queue (docs/reliability.md, finding 4).
 */
class LateWorkAfterPassivationTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final MemoryMessageStore stored = new MemoryMessageStore();
    private final ControlledStore store = new ControlledStore(stored, false);
    private final VirtualHostHarness harness = new VirtualHostHarness(VirtualHostHarness.config(false,
            VirtualHostHarness.DEFAULTS, List.of(new QueueConfig("orders", true, 0, 0, 0, 0, null)), List.of(),
            List.of()), () -> store, Long.MAX_VALUE);

    @AfterEach
    void close() {
        harness.close();
    }

    @Test
    void aPublishCommittedAfterThePassivationKeepsItsMessageInTheStoreForTheNextActivation() throws Exception {
        CompletableFuture<Void> commitGate = store.holdNextCommit();
        CompletableFuture<?> publish = harness.host().resolveDestination("orders").join()
                .publish(VirtualHostHarness.message("late", null, true, 0), null);
        store.heldCommitStarted().get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);

        store.becomePassive("quorum lost").join();
        store.becomeActive().join(); // re-activated before the commit completed
        await().atMost(DEADLINE).until(() -> harness.host().state() == VirtualHostState.ACTIVE);
        commitGate.complete(null); // the message is stored now; the old activation's queue hears of it
        assertThat(publish).succeedsWithin(DEADLINE);

        // The old queue must not have removed what it could not enqueue: the next activation finds the message.
        store.becomePassive("quorum lost again").join();
        store.becomeActive().join();
        await().atMost(DEADLINE).until(() -> harness.host().state() == VirtualHostState.ACTIVE);
        RecordingConsumer consumer = new RecordingConsumer();
        harness.host().subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(10);
        assertThat(VirtualHostHarness.text(consumer.next(DEADLINE))).isEqualTo("late");
    }
}
