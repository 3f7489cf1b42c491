package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BindingConfig;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.ExchangeConfig;
import org.tandembroker.core.exchange.ExchangeType;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.testing.ControlledStore;
import org.tandembroker.core.testing.LogCapture;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.VirtualHostState;

/** The core's virtual host on this store: what it keeps across a restart, and how it serves while it recovers. */
class VirtualHostOnBdbStoreTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path work;

    private Supplier<MessageStore> bdbStores(StoreFixture fixture) {
        return () -> {
            try {
                return fixture.create(Map.of(), List.of());
            } catch (ConfigException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private VirtualHostHarness host(StoreFixture fixture) {
        return new VirtualHostHarness(VirtualHostHarness.config(true, VirtualHostHarness.DEFAULTS, List.of(),
                List.of(), List.of()), bdbStores(fixture), 64L * 1024 * 1024);
    }

    private static VirtualHostHarness host(Supplier<MessageStore> stores) {
        return new VirtualHostHarness(VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS, List.of(),
                List.of(), List.of()), stores, 64L * 1024 * 1024);
    }

    /**
     * What a new master finds: queue "orders" holding {@code count} messages "m0".. in order, and one message no
     * queue holds (left by a crash between an acknowledgement and the message's removal). Returns the orphan's id.
     */
    private static long storeDeepQueue(StoreFixture fixture, int count) throws Exception {
        BdbMessageStore store = fixture.open();
        try {
            UUID queue = UUID.randomUUID();
            StoreTransaction txn = store.newTransaction();
            txn.putConfig(new ConfigRecord(queue, ConfigRecord.QUEUE, Map.of("name", "orders")));
            long orphan = store.nextMessageId();
            txn.storeMessage(orphan, metadata(6), "orphan".getBytes(StandardCharsets.UTF_8));
            for (int i = 0; i < count; i++) {
                byte[] content = ("m" + i).getBytes(StandardCharsets.UTF_8);
                long id = store.nextMessageId();
                txn.storeMessage(id, metadata(content.length), content);
                txn.enqueue(queue, id);
            }
            txn.commit().join();
            return orphan;
        } finally {
            store.close();
        }
    }

    private static byte[] metadata(int contentSize) {
        return MetadataCodec.encode(new MessageMetadata(null, null, true, 4, 0, System.currentTimeMillis(),
                contentSize));
    }

    private static List<String> texts(String prefix, int from, int to) {
        List<String> texts = new ArrayList<>();
        for (int i = from; i < to; i++) {
            texts.add(prefix + i);
        }
        return texts;
    }

    private static List<String> receive(RecordingConsumer consumer, int count, boolean accept) throws Exception {
        List<String> texts = new ArrayList<>();
        for (Delivery delivery : consumer.next(count)) {
            texts.add(VirtualHostHarness.text(delivery));
            if (accept) {
                delivery.accept(null).join();
            }
        }
        return texts;
    }

    @Test
    void aDeepQueueIsServedFromItsHeadBeforeItIsLoadedAndNewMessagesFollowTheRecoveredOnes() throws Exception {
        StoreFixture fixture = new StoreFixture(work);
        int depth = 1000;
        long orphan = storeDeepQueue(fixture, depth);
        ControlledStore store = new ControlledStore(fixture.create(Map.of(), List.of()), true);

        try (VirtualHostHarness harness = host(() -> store)) {
            BrokerQueue orders = harness.host().queue("orders").orElseThrow();
            assertThat(orders.isLoadingRecoveredEntries()).isTrue();
            assertThat(orders.depthMessages()).isEqualTo(256);
            RecordingConsumer consumer = new RecordingConsumer();
            harness.host().subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(2000);
            assertThat(receive(consumer, 256, true)).isEqualTo(texts("m", 0, 256));
            for (int i = 0; i < 3; i++) {
                harness.publish("orders", "new" + i);
            }
            assertThat(store.loadContent(orphan)).succeedsWithin(DEADLINE);

            store.releasePages();

            List<String> expected = texts("m", 256, depth);
            expected.addAll(texts("new", 0, 3));
            assertThat(receive(consumer, depth - 256 + 3, true)).isEqualTo(expected);
            await().atMost(DEADLINE).until(() -> !harness.host().recoveryInProgress());
            assertThat(store.loadContent(orphan)).failsWithin(DEADLINE);
            await().atMost(DEADLINE).until(() -> orders.depthMessages() == 0);
        }

        try (VirtualHostHarness restarted = host(fixture)) {
            assertThat(restarted.host().queue("orders").orElseThrow().depthMessages()).isZero();
            assertThat(restarted.logLines()).contains("MST-1005 : Recovered 0 messages");
        }
    }

    @Test
    void aQueueDeeperThanItsWindowIsRecoveredWithItsWindowOnlyAndDrainsCompletelyWithTheOrphanRemoved()
            throws Exception {
        StoreFixture fixture = new StoreFixture(work);
        int depth = 1000;
        int window = 100;
        long orphan = storeDeepQueue(fixture, depth);
        MessageStore[] current = new MessageStore[1];

        try (VirtualHostHarness harness = new VirtualHostHarness(VirtualHostHarness.config(false,
                VirtualHostHarness.DEFAULTS, List.of(), List.of(), List.of()), () -> current[0] =
                bdbStores(fixture).get(), 64L * 1024 * 1024, window)) {
            BrokerQueue orders = harness.host().queue("orders").orElseThrow();
            await().atMost(DEADLINE).until(() -> !harness.host().recoveryInProgress());
            assertThat(orders.depthMessages()).isEqualTo(depth);
            assertThat(orders.pagedCount()).isEqualTo(depth - window);
            assertThat(harness.logLines()).contains("MST-1005 : Recovered 1,000 messages");
            assertThat(current[0].loadContent(orphan)).as("the orphan was swept").failsWithin(DEADLINE);
            harness.publish("orders", "new");

            RecordingConsumer consumer = new RecordingConsumer();
            harness.host().subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(2000);
            List<String> expected = texts("m", 0, depth);
            expected.add("new");
            assertThat(receive(consumer, depth + 1, true)).isEqualTo(expected);
            await().atMost(DEADLINE).until(() -> orders.depthMessages() == 0 && orders.pagedCount() == 0);
        }

        try (VirtualHostHarness restarted = host(fixture)) {
            assertThat(restarted.host().queue("orders").orElseThrow().depthMessages()).isZero();
            assertThat(restarted.logLines()).contains("MST-1005 : Recovered 0 messages");
        }
    }

    @Test
    void passivatingWhileLoadingCancelsTheLoadingAndReactivationRecoversEveryMessageOnce() throws Exception {
        StoreFixture fixture = new StoreFixture(work);
        storeDeepQueue(fixture, 600);
        List<ControlledStore> stores = new ArrayList<>();
        Supplier<MessageStore> controlled = () -> {
            try {
                ControlledStore store = new ControlledStore(fixture.create(Map.of(), List.of()), stores.isEmpty());
                stores.add(store);
                return store;
            } catch (ConfigException e) {
                throw new IllegalStateException(e);
            }
        };

        try (VirtualHostHarness harness = host(controlled); LogCapture log = new LogCapture()) {
            BrokerVirtualHost host = harness.host();
            RecordingConsumer consumer = new RecordingConsumer();
            host.subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(5);
            assertThat(receive(consumer, 5, true)).isEqualTo(texts("m", 0, 5));
            await().atMost(DEADLINE).until(() -> stores.get(0).pagesRequested() == 1);

            host.passivate("operator request").join();
            stores.get(0).releasePages(); // the held read now meets a closed store
            await().atMost(DEADLINE).until(() -> stores.get(0).pagesServed() == 1);
            host.activate().join();
            await().atMost(DEADLINE).until(() -> host.state() == VirtualHostState.ACTIVE);

            RecordingConsumer again = new RecordingConsumer();
            host.subscribe("orders", again, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(1000);
            assertThat(receive(again, 595, false)).isEqualTo(texts("m", 5, 600));
            await().atMost(DEADLINE).until(() -> !host.recoveryInProgress());
            assertThat(again.pending()).isZero();
            assertThat(host.queue("orders").orElseThrow().depthMessages()).isEqualTo(595);
            assertThat(log.warnings()).isEmpty();
        }
    }

    @Test
    void unacceptedPersistentMessagesSurviveARestartInPublishOrder() throws Exception {
        StoreFixture fixture = new StoreFixture(work);
        try (VirtualHostHarness first = host(fixture)) {
            for (int i = 0; i < 5; i++) {
                first.publish("orders", "m" + i);
            }
            RecordingConsumer consumer = new RecordingConsumer();
            Subscription subscription = first.host().subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE)
                    .join();
            subscription.addCredit(2);
            for (Delivery delivery : consumer.next(2)) {
                delivery.accept(null).join();
            }
        }

        try (VirtualHostHarness second = host(fixture)) {
            RecordingConsumer consumer = new RecordingConsumer();
            second.host().subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(10);

            assertThat(consumer.next(3)).extracting(VirtualHostHarness::text).containsExactly("m2", "m3", "m4");
            assertThat(consumer.pending()).isZero();
        }
    }

    @Test
    void aMessageOnADurableAndANonDurableQueueStaysReadableForTheNonDurableOneWhenTheDurableQueueIsDeleted()
            throws Exception {
        StoreFixture fixture = new StoreFixture(work);
        VirtualHostConfig config = VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS,
                List.of(new QueueConfig("orders", true, 0, 0, 0, 0, null),
                        new QueueConfig("live", false, 0, 0, 0, 0, null)),
                List.of(new ExchangeConfig("fan", ExchangeType.FANOUT, true)),
                List.of(new BindingConfig("fan", "orders", ""), new BindingConfig("fan", "live", "")));
        // no body stays on the heap: every delivery reads the store
        try (VirtualHostHarness harness = new VirtualHostHarness(config, bdbStores(fixture), 0)) {
            harness.publish("fan", "shared");
            BrokerQueue orders = harness.host().queue("orders").orElseThrow();
            harness.host().deleteQueue(orders, "a test").get(30, java.util.concurrent.TimeUnit.SECONDS);

            RecordingConsumer live = new RecordingConsumer();
            harness.host().subscribe("live", live, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(1);
            assertThat(receive(live, 1, true)).containsExactly("shared");
        }
    }
}
