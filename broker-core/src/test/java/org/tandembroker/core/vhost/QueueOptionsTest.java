package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.QueueOptions;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;

/** Priority order, last-value queues and the queue options that set them, through a virtual host. */
class QueueOptionsTest {
    private static final QueueConfig PRICES = new QueueConfig("prices", true, 0, 0, 0, 0, null,
            new QueueOptions(true, "symbol"));

    private final MemoryMessageStore store = new MemoryMessageStore();
    private final VirtualHostHarness harness = new VirtualHostHarness(VirtualHostHarness.config(true,
            VirtualHostHarness.DEFAULTS, List.of(PRICES), List.of(), List.of()), () -> store, 64L * 1024 * 1024);

    @AfterEach
    void close() {
        harness.close();
    }

    private static IncomingMessage message(String text, int priority, Map<String, Object> properties) {
        byte[] content = text.getBytes(StandardCharsets.UTF_8);
        return new IncomingMessage(new MessageMetadata(null, null, true, priority, 0, System.currentTimeMillis(),
                content.length, new MessageProperties(null, null, null, null, null, 0, properties)), content);
    }

    private List<String> consume(String address, int count) throws InterruptedException {
        RecordingConsumer consumer = new RecordingConsumer();
        harness.host().subscribe(address, consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(count + 1);
        List<String> texts = new ArrayList<>();
        for (Delivery delivery : consumer.next(count)) {
            texts.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
        }
        assertThat(consumer.pending()).as("nothing more").isZero();
        return texts;
    }

    private long storedMessages() {
        return store.recover(record -> { }).messageIds(0, 1_000).join().length;
    }

    @Test
    void aQueueDeliversHigherPriorityFirstAndFifoWithinAPriority() throws Exception {
        int[] priorities = {1, 8, 4, 8, 0, 9};
        for (int i = 0; i < priorities.length; i++) {
            harness.publish("jobs", message("p" + priorities[i] + "-" + i, priorities[i], Map.of()));
        }

        assertThat(consume("jobs", 6)).containsExactly("p9-5", "p8-1", "p8-3", "p4-2", "p1-0", "p0-4");
    }

    @Test
    void aReleasedMessageGoesBackToItsPlaceInPriorityOrder() throws Exception {
        harness.publish("released", message("low", 2, Map.of()));
        harness.publish("released", message("high", 7, Map.of()));
        RecordingConsumer first = new RecordingConsumer();
        harness.host().subscribe("released", first, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(1);
        Delivery high = first.next();
        assertThat(VirtualHostHarness.text(high)).isEqualTo("high");
        harness.publish("released", message("middle", 5, Map.of()));
        high.release();

        assertThat(consume("released", 3)).containsExactly("high", "middle", "low");
    }

    @Test
    void aLastValueQueueKeepsTheNewestMessagePerKeyAndRemovesTheReplacedOnesFromTheStore() throws Exception {
        harness.publish("prices", message("IBM 1", 4, Map.of("symbol", "IBM")));
        harness.publish("prices", message("RHT 1", 4, Map.of("symbol", "RHT")));
        harness.publish("prices", message("IBM 2", 4, Map.of("symbol", "IBM")));
        harness.publish("prices", message("IBM 3", 4, Map.of("symbol", "IBM")));
        harness.publish("prices", message("no key", 4, Map.of()));
        BrokerQueue prices = harness.host().queue("prices").orElseThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> storedMessages() == 3);
        assertThat(prices.lastValueReplacementsTotal()).isEqualTo(2);
        assertThat(prices.depthMessages()).isEqualTo(3);
        assertThat(consume("prices", 3)).containsExactly("RHT 1", "IBM 3", "no key");
        await().atMost(Duration.ofSeconds(10)).until(() -> storedMessages() == 0);
    }

    @Test
    void aDeliveredUnsettledMessageIsNotReplacedAndTheNewOneQueuesBehindIt() throws Exception {
        harness.publish("prices", message("IBM 1", 4, Map.of("symbol", "IBM")));
        RecordingConsumer holder = new RecordingConsumer();
        harness.host().subscribe("prices", holder, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(1);
        Delivery held = holder.next();
        harness.publish("prices", message("IBM 2", 4, Map.of("symbol", "IBM")));

        assertThat(consume("prices", 1)).containsExactly("IBM 2");
        held.accept(null).join();
        assertThat(harness.host().queue("prices").orElseThrow().lastValueReplacementsTotal()).isZero();
    }

    @Test
    void anAddressWithOptionsCreatesTheQueueWithThemAndAnotherAddressFindsIt() throws Exception {
        harness.publish("ticks?last-value-key=symbol&priority=false", message("A 1", 9, Map.of("symbol", "A")));
        harness.publish("ticks", message("B 1", 1, Map.of("symbol", "B")));
        harness.publish("ticks?last-value-key=symbol", message("A 2", 1, Map.of("symbol", "A")));

        assertThat(harness.host().queue("ticks").orElseThrow().config().options())
                .isEqualTo(new QueueOptions(false, "symbol"));
        assertThat(consume("ticks?priority=false", 2)).containsExactly("B 1", "A 2");
    }

    @Test
    void artemisLastValueTrueKeysOnItsDefaultProperty() throws Exception {
        harness.publish("artemis?last-value=true", message("x", 4, Map.of("_AMQ_LVQ_NAME", "k")));

        assertThat(harness.host().queue("artemis").orElseThrow().config().options().lastValueKey())
                .isEqualTo(QueueOptions.ARTEMIS_LAST_VALUE_KEY);
    }

    @Test
    void anAddressAskingForOtherOptionsThanTheQueueHasIsRefused() {
        assertThat(harness.host().resolveDestination("prices?last-value-key=isin"))
                .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(Exception.class)
                .havingRootCause().isInstanceOfSatisfying(BrokerException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.NOT_ALLOWED);
                    assertThat(e.getMessage()).contains("'prices'", "last-value-key=symbol", "asks for: last-value-key=isin");
                });
    }

    @Test
    void anAddressTurningPriorityOffOnAPriorityQueueIsRefusedNamingTheOption() throws Exception {
        assertThat(harness.host().resolveDestination("prices?priority=false"))
                .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(Exception.class)
                .havingRootCause().isInstanceOfSatisfying(BrokerException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.NOT_ALLOWED);
                    assertThat(e.getMessage()).contains("'prices'", "priority=true", "asks for: priority=false");
                });
        harness.publish("prices?priority=true&last-value-key=symbol", message("A 1", 4, Map.of("symbol", "A")));
        assertThat(harness.host().queue("prices").orElseThrow().config().options())
                .isEqualTo(new QueueOptions(true, "symbol"));
    }

    @Test
    void anUnknownOrMalformedOptionIsRefusedNamingTheAllowedOnes() {
        for (String address : List.of("q?colour=red", "q?priority=maybe", "q?priority", "?priority=true")) {
            assertThat(harness.host().resolveDestination(address)).as(address)
                    .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(Exception.class)
                    .havingRootCause().isInstanceOfSatisfying(BrokerException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_FIELD);
                        assertThat(e.getMessage()).contains(address, "last-value-key=");
                    });
        }
        assertThat(harness.host().queue("q")).isEmpty();
    }
}
