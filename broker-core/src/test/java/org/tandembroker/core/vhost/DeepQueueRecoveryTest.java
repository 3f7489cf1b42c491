package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.testing.ControlledStore;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;

/**
 * A new master (or a restarted broker) recovers a queue deeper than its heap window by creating messages for the
 * window only: the rest stays in the store, by id, and is read back as consumers take the head.
 */
class DeepQueueRecoveryTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final int WINDOW = 50;

    private final MemoryMessageStore stored = new MemoryMessageStore();
    private VirtualHostHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    private UUID storedQueue(String name) {
        UUID id = UUID.randomUUID();
        StoreTransaction txn = stored.newTransaction();
        txn.putConfig(ConfigRecords.queueRecord(id, new QueueConfig(name, true, 0, 0, 0, 0, null)));
        txn.commit().join();
        return id;
    }

    private long storedMessage(String text, int priority, UUID... queues) {
        byte[] content = text.getBytes(StandardCharsets.UTF_8);
        long id = stored.nextMessageId();
        StoreTransaction txn = stored.newTransaction();
        txn.storeMessage(id, MetadataCodec.encode(new MessageMetadata(null, null, true, priority, 0,
                System.currentTimeMillis(), content.length)), content);
        for (UUID queue : queues) {
            txn.enqueue(queue, id);
        }
        txn.commit().join();
        return id;
    }

    private List<String> storedMessages(String prefix, int count, UUID... queues) {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            texts.add(prefix + i);
            storedMessage(prefix + i, 4, queues);
        }
        return texts;
    }

    private long messagesInStore() {
        return stored.recover(record -> { }).messageIds(0, 1_000_000).join().length;
    }

    private ControlledStore controlled;

    private BrokerVirtualHost start() {
        harness = new VirtualHostHarness(VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS, List.of(),
                List.of(), List.of()), () -> controlled = new ControlledStore(stored, false), 64L * 1024 * 1024,
                WINDOW);
        return harness.host();
    }

    private static BrokerQueue loaded(BrokerVirtualHost host, String name) {
        BrokerQueue queue = host.queue(name).orElseThrow();
        await().atMost(DEADLINE).until(() -> !queue.isLoadingRecoveredEntries() && !host.recoveryInProgress());
        return queue;
    }

    private static List<String> consumeAll(BrokerVirtualHost host, String queue, int count) throws Exception {
        RecordingConsumer consumer = new RecordingConsumer();
        host.subscribe(queue, consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(count + 10);
        List<String> texts = new ArrayList<>();
        for (Delivery delivery : consumer.next(count)) {
            texts.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
        }
        return texts;
    }

    @Test
    void recoveringADeepQueueCreatesMessagesForItsWindowOnlyAndDeliversEverythingInOrder() throws Exception {
        UUID deep = storedQueue("deep");
        List<String> texts = storedMessages("m", 1000, deep);

        BrokerVirtualHost host = start();
        BrokerQueue queue = loaded(host, "deep");

        assertThat(queue.depthMessages()).isEqualTo(1000);
        assertThat(queue.depthBytes()).isEqualTo(texts.stream().mapToLong(String::length).sum());
        assertThat(queue.pagedCount()).as("the store holds the rest").isEqualTo(1000 - WINDOW);
        assertThat(messagesInStore()).as("no entry beyond the window was taken for an orphan").isEqualTo(1000);
        assertThat(consumeAll(host, "deep", 1000)).isEqualTo(texts);
        await().atMost(DEADLINE).until(() -> messagesInStore() == 0);
        assertThat(queue.depthMessages()).isZero();
    }

    @Test
    void entriesBeyondTheWindowAreReadAsSummariesWithoutTheirMessagesAfterTheHeadPage() throws Exception {
        UUID deep = storedQueue("deep");
        List<String> texts = storedMessages("m", 1000, deep);

        BrokerVirtualHost host = start();
        BrokerQueue queue = loaded(host, "deep");

        assertThat(controlled.entriesRead()).as("read with their metadata: the head page only")
                .isEqualTo(RecoveredEntryLoader.HEAD_PAGE);
        assertThat(controlled.summariesRead()).isEqualTo(1000 - RecoveredEntryLoader.HEAD_PAGE);
        assertThat(queue.depthBytes()).isEqualTo(texts.stream().mapToLong(String::length).sum());
        assertThat(consumeAll(host, "deep", 1000)).isEqualTo(texts);
    }

    @Test
    void messagesPublishedWhileADeepQueueLoadsFollowItsRecoveredOnes() throws Exception {
        UUID deep = storedQueue("deep");
        List<String> texts = storedMessages("m", 300, deep);

        BrokerVirtualHost host = start();
        harness.publish("deep", "new");
        loaded(host, "deep");

        List<String> expected = new ArrayList<>(texts);
        expected.add("new");
        assertThat(consumeAll(host, "deep", 301)).isEqualTo(expected);
    }

    @Test
    void aMessageOnTwoDeepQueuesLeavesTheStoreOnlyWhenBothTookIt() throws Exception {
        UUID first = storedQueue("first");
        UUID second = storedQueue("second");
        List<String> shared = storedMessages("s", 200, first, second);
        List<String> ownOnly = storedMessages("o", 100, first);

        BrokerVirtualHost host = start();
        loaded(host, "first");
        loaded(host, "second");

        List<String> expectedFirst = new ArrayList<>(shared);
        expectedFirst.addAll(ownOnly);
        assertThat(consumeAll(host, "first", 300)).isEqualTo(expectedFirst);
        await().atMost(DEADLINE).until(() -> messagesInStore() == 200);
        assertThat(consumeAll(host, "second", 200)).isEqualTo(shared);
        await().atMost(DEADLINE).until(() -> messagesInStore() == 0);
    }

    @Test
    void aRecoveredMessageBeyondTheWindowWhoseDeliveryTimeHasNotComeWaitsForIt() throws Exception {
        UUID deep = storedQueue("deep");
        List<String> texts = storedMessages("m", 100, deep);
        byte[] content = "delayed".getBytes(StandardCharsets.UTF_8);
        long id = stored.nextMessageId();
        StoreTransaction txn = stored.newTransaction();
        long now = System.currentTimeMillis();
        txn.storeMessage(id, MetadataCodec.encode(new MessageMetadata(null, null, true, 4, 0, now, content.length,
                null, now + 600_000)), content);
        txn.enqueue(deep, id);
        txn.commit().join();

        BrokerVirtualHost host = start();
        BrokerQueue queue = loaded(host, "deep");

        assertThat(consumeAll(host, "deep", 100)).isEqualTo(texts);
        await().atMost(DEADLINE).until(() -> queue.delayedCount() == 1);
        assertThat(queue.depthMessages()).isEqualTo(1);
    }

    @Test
    void aRecoveredHighPriorityMessageBeyondTheWindowIsNotOvertakenByLaterLowerOnes() throws Exception {
        UUID deep = storedQueue("deep");
        List<String> texts = storedMessages("m", 100, deep);
        storedMessage("urgent", 9, deep);

        BrokerVirtualHost host = start();
        loaded(host, "deep");
        harness.publish("deep", "later");

        List<String> delivered = consumeAll(host, "deep", 102);
        assertThat(delivered).containsSubsequence("urgent", "later");
        assertThat(delivered).containsExactlyInAnyOrderElementsOf(
                java.util.stream.Stream.concat(texts.stream(), java.util.stream.Stream.of("urgent", "later")).toList());
    }
}
