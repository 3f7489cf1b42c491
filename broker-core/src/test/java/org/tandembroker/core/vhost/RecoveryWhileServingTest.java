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
import org.tandembroker.core.testing.LogCapture;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;

/**
 * A new master serves its queues before it has loaded them: the head of every queue first, the rest in the
 * background. The {@link ControlledStore} holds the background pages, so each test knows what is loaded when.
 */
class RecoveryWhileServingTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final int HEAD = RecoveredEntryLoader.HEAD_PAGE;

    private final MemoryMessageStore stored = new MemoryMessageStore();
    private ControlledStore store;
    private VirtualHostHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    // ---- what the store holds before the virtual host starts (as a new master finds it) ----

    private UUID storedQueue(String name) {
        UUID id = UUID.randomUUID();
        StoreTransaction txn = stored.newTransaction();
        txn.putConfig(ConfigRecords.queueRecord(id, new QueueConfig(name, true, 0, 0, 0, 0, null)));
        txn.commit().join();
        return id;
    }

    /** Stores a message with an entry on each of {@code queues} (none: an orphan); returns its id. */
    private long storedMessage(String text, UUID... queues) {
        byte[] content = text.getBytes(StandardCharsets.UTF_8);
        long id = stored.nextMessageId();
        StoreTransaction txn = stored.newTransaction();
        txn.storeMessage(id, MetadataCodec.encode(new MessageMetadata(null, null, true, 4, 0,
                System.currentTimeMillis(), content.length)), content);
        for (UUID queue : queues) {
            txn.enqueue(queue, id);
        }
        txn.commit().join();
        return id;
    }

    private List<String> storedMessages(String prefix, int count, UUID queue) {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            texts.add(prefix + i);
            storedMessage(prefix + i, queue);
        }
        return texts;
    }

    private boolean inStore(long messageId) {
        return !stored.loadContent(messageId).isCompletedExceptionally();
    }

    /** Starts a host on the stored records; returns once it is ACTIVE (the harness waits for it). */
    private BrokerVirtualHost start(boolean holdPages) {
        store = new ControlledStore(stored, holdPages);
        harness = new VirtualHostHarness(VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS, List.of(),
                List.of(), List.of()), () -> store, 64L * 1024 * 1024);
        return harness.host();
    }

    private static RecordingConsumer consume(BrokerVirtualHost host, String queue, int credit) {
        RecordingConsumer consumer = new RecordingConsumer();
        host.subscribe(queue, consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(credit);
        return consumer;
    }

    private static List<String> texts(List<Delivery> deliveries) {
        return deliveries.stream().map(VirtualHostHarness::text).toList();
    }

    private List<String> linesFrom(String code) {
        return harness.logLines().stream().filter(line -> line.startsWith(code + " ")).toList();
    }

    // ---- specifications ----

    @Test
    void aDeepQueueIsServedFromItsHeadWhileTheRestLoadsAndIsCompleteOnceLoaded() throws Exception {
        UUID deep = storedQueue("deep");
        List<String> texts = storedMessages("m", 1000, deep);

        BrokerVirtualHost host = start(true);

        // Active although every background page is held: only the head was loaded.
        BrokerQueue queue = host.queue("deep").orElseThrow();
        assertThat(host.state()).isEqualTo(VirtualHostState.ACTIVE);
        assertThat(queue.isLoadingRecoveredEntries()).isTrue();
        assertThat(host.recoveryInProgress()).isTrue();
        assertThat(queue.depthMessages()).isEqualTo(HEAD);
        assertThat(harness.logLines()).containsSubsequence("MST-1004 : Recovery Start : test",
                "MST-1012 : Recovery continues in the background : 256 queue entries loaded, serving clients while "
                        + "1 queue(s) load the rest", "VHT-1002 : Activated : test");
        assertThat(linesFrom("MST-1006")).isEmpty();

        RecordingConsumer consumer = consume(host, "deep", 2000);
        List<Delivery> head = consumer.next(HEAD);
        assertThat(texts(head)).isEqualTo(texts.subList(0, HEAD));
        for (Delivery delivery : head) {
            delivery.accept(null).join();
        }
        assertThat(consumer.pending()).isZero(); // nothing else is loaded
        assertThat(queue.depthMessages()).isZero();

        store.releasePages();

        assertThat(texts(consumer.next(1000 - HEAD))).isEqualTo(texts.subList(HEAD, 1000));
        await().atMost(DEADLINE).until(() -> !host.recoveryInProgress());
        assertThat(queue.isLoadingRecoveredEntries()).isFalse();
        assertThat(queue.depthMessages()).isEqualTo(1000 - HEAD);
        assertThat(queue.depthBytes()).isEqualTo(texts.subList(HEAD, 1000).stream().mapToLong(String::length).sum());
        assertThat(harness.logLines()).containsSubsequence("VHT-1002 : Activated : test",
                "MST-1005 : Recovered 1,000 messages", "MST-1006 : Recovery Complete");
    }

    @Test
    void aShallowStoreIsRecoveredCompletelyBeforeTheHostIsActiveAsBefore() {
        UUID shallow = storedQueue("shallow");
        storedMessages("m", HEAD - 1, shallow);
        long orphan = storedMessage("orphan");

        BrokerVirtualHost host = start(true);

        assertThat(host.recoveryInProgress()).isFalse();
        assertThat(host.queue("shallow").orElseThrow().depthMessages()).isEqualTo(HEAD - 1);
        assertThat(inStore(orphan)).isFalse();
        assertThat(store.pagesRequested()).isZero();
        assertThat(harness.logLines()).containsSubsequence("MST-1004 : Recovery Start : test",
                "MST-1005 : Recovered 255 messages", "MST-1006 : Recovery Complete", "VHT-1002 : Activated : test");
        assertThat(linesFrom("MST-1012")).isEmpty();
    }

    @Test
    void messagesPublishedWhileAQueueLoadsAreDeliveredAfterEveryRecoveredEntry() throws Exception {
        UUID orders = storedQueue("orders");
        List<String> expected = new ArrayList<>(storedMessages("old", HEAD + 50, orders));
        BrokerVirtualHost host = start(true);
        RecordingConsumer consumer = consume(host, "orders", 1000);
        List<String> delivered = new ArrayList<>(texts(consumer.next(HEAD)));

        for (int i = 0; i < 5; i++) {
            harness.publish("orders", "new" + i);
            expected.add("new" + i);
        }
        assertThat(host.queue("orders").orElseThrow().depthMessages()).isEqualTo(HEAD + 5); // loaded + new
        store.releasePages();
        delivered.addAll(texts(consumer.next(50 + 5)));

        assertThat(delivered).isEqualTo(expected);
        await().atMost(DEADLINE).until(() -> !host.recoveryInProgress());
        assertThat(host.queue("orders").orElseThrow().depthMessages()).isEqualTo(HEAD + 50 + 5);
    }

    @Test
    void aMessageSharedByTwoQueuesSurvivesBeingConsumedFromOneWhileTheOtherHasNotLoadedIt() throws Exception {
        UUID first = storedQueue("first");
        UUID second = storedQueue("second");
        List<String> secondOnly = storedMessages("second-only", HEAD + 10, second);
        long shared = storedMessage("shared", first, second); // the head of "first", beyond the head of "second"
        BrokerVirtualHost host = start(true);

        Delivery fromFirst = consume(host, "first", 10).next();
        assertThat(VirtualHostHarness.text(fromFirst)).isEqualTo("shared");
        fromFirst.accept(null).join();

        assertThat(host.queue("second").orElseThrow().isLoadingRecoveredEntries()).isTrue();
        assertThat(inStore(shared)).isTrue();
        store.releasePages();
        RecordingConsumer fromSecond = consume(host, "second", 1000);
        List<Delivery> all = fromSecond.next(HEAD + 11);
        assertThat(texts(all.subList(0, HEAD + 10))).isEqualTo(secondOnly);
        Delivery sharedFromSecond = all.get(HEAD + 10);
        assertThat(VirtualHostHarness.text(sharedFromSecond)).isEqualTo("shared");

        // Consumed from both queues: then, and only then, the message leaves the store.
        await().atMost(DEADLINE).until(() -> !host.recoveryInProgress());
        assertThat(inStore(shared)).isTrue();
        sharedFromSecond.accept(null).join();
        await().atMost(DEADLINE).until(() -> !inStore(shared));
    }

    @Test
    void aSharedMessageConsumedFromEveryQueueWhileLoadingLeavesTheStoreOnceLoadingEnds() throws Exception {
        UUID first = storedQueue("first");
        UUID second = storedQueue("second");
        long shared = storedMessage("shared", first, second);
        storedMessages("more", HEAD + 10, second);
        BrokerVirtualHost host = start(true);

        consume(host, "first", 1).next().accept(null).join();
        consume(host, "second", 1).next().accept(null).join();

        assertThat(host.recoveryInProgress()).isTrue();
        assertThat(inStore(shared)).isTrue(); // the loading cannot yet know that no other queue holds it
        store.releasePages();
        await().atMost(DEADLINE).until(() -> !host.recoveryInProgress());
        assertThat(inStore(shared)).isFalse();
    }

    @Test
    void orphanMessagesAreRemovedOnceLoadingEnds() {
        UUID deep = storedQueue("deep");
        long before = storedMessage("orphan-before");
        storedMessages("m", HEAD + 10, deep);
        long after = storedMessage("orphan-after");
        BrokerVirtualHost host = start(true);

        assertThat(inStore(before)).isTrue();
        assertThat(inStore(after)).isTrue();
        store.releasePages();

        await().atMost(DEADLINE).until(() -> !host.recoveryInProgress());
        assertThat(inStore(before)).isFalse();
        assertThat(inStore(after)).isFalse();
        assertThat(linesFrom("MST-1005")).containsExactly("MST-1005 : Recovered 266 messages");
    }

    @Test
    void losingTheActiveRoleWhileLoadingCancelsTheLoadingAndTheNextActivationRecoversEverythingAfresh()
            throws Exception {
        UUID orders = storedQueue("orders");
        List<String> texts = storedMessages("m", 600, orders);
        BrokerVirtualHost host = start(true);
        RecordingConsumer consumer = consume(host, "orders", 10);
        List<Delivery> first = consumer.next(10);
        for (Delivery delivery : first.subList(0, 3)) {
            delivery.accept(null).join();
        }
        BrokerQueue passivated = host.queue("orders").orElseThrow();
        await().atMost(DEADLINE).until(() -> store.pagesRequested() == 1);

        try (LogCapture log = new LogCapture()) {
            store.becomePassive("lost the master role").join();
            assertThat(host.state()).isEqualTo(VirtualHostState.PASSIVE);
            long depthWhenPassivated = passivated.depthMessages();
            store.releasePages(); // the page that was being read arrives after the passivation
            await().atMost(DEADLINE).until(() -> store.pagesServed() == 1);
            store.becomeActive().join();

            assertThat(host.state()).isEqualTo(VirtualHostState.ACTIVE);
            assertThat(passivated.depthMessages()).isEqualTo(depthWhenPassivated); // nothing added after passivation
            BrokerQueue recovered = host.queue("orders").orElseThrow();
            assertThat(recovered).isNotSameAs(passivated);
            RecordingConsumer again = consume(host, "orders", 1000);
            assertThat(texts(again.next(597))).isEqualTo(texts.subList(3, 600));
            await().atMost(DEADLINE).until(() -> !host.recoveryInProgress());
            assertThat(again.pending()).isZero();
            assertThat(recovered.depthMessages()).isEqualTo(597);
            assertThat(log.warnings()).isEmpty();
        }
        assertThat(consumer.closedReason()).contains("lost the master role");
        assertThat(linesFrom("MST-1006")).hasSize(1); // the first activation's loading never completed
    }
}
