package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.selector.Selector;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.MessageFilter;
import org.tandembroker.core.queue.NamedSubscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.vhost.AddressKind;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.Destination;

/**
 * The messaging features' state on a two-node group: what a consumer relies on (a topic subscription's binding, its
 * messages) is on the replica when it takes over.
 */
class MessagingFeaturesAfterFailoverTest {
    private static final VirtualHostConfig CONFIG = VirtualHostHarness.config(true, VirtualHostHarness.DEFAULTS,
            List.of(), List.of(), List.of());

    @TempDir
    Path work;
    private VirtualHostPair pair;
    private BrokerVirtualHost master;
    private BrokerVirtualHost replica;

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    private void startGroup(String name) {
        pair = VirtualHostPair.start(work, name, CONFIG);
        master = pair.master();
        replica = pair.replica();
    }

    /** The master's host stops; an operator designates the replica, which takes over. */
    private BrokerVirtualHost failOver() {
        return pair.failOver();
    }

    private static List<String> texts(RecordingConsumer consumer, int count) throws InterruptedException {
        List<String> texts = new ArrayList<>();
        for (Delivery delivery : consumer.next(count)) {
            texts.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
        }
        return texts;
    }

    private static void publish(Destination destination, IncomingMessage message) {
        destination.publish(message, null).join();
    }

    @Test
    void aDurableSubscriptionToANamedTopicKeepsItsMessagesAndItsBindingAfterFailover() throws Exception {
        startGroup("topics");
        SubscriptionOptions durable = new SubscriptionOptions(false,
                new NamedSubscription("quotes", "ticker", true, false), AddressKind.TOPIC, MessageFilter.ALL);
        master.subscribe("quotes", new RecordingConsumer(), durable).join().close();
        Destination quotes = master.resolveDestination("quotes", AddressKind.TOPIC, ClientAccess.UNRESTRICTED).join();
        publish(quotes, VirtualHostHarness.message("before", null, true, 0));

        BrokerVirtualHost active = failOver();
        publish(active.resolveDestination("quotes", AddressKind.TOPIC, ClientAccess.UNRESTRICTED).join(),
                VirtualHostHarness.message("after", null, true, 0));
        RecordingConsumer consumer = new RecordingConsumer();
        active.subscribe("quotes", consumer, durable).join().addCredit(10);
        assertThat(texts(consumer, 2)).containsExactly("before", "after");
        assertThat(consumer.pending()).isZero();
    }

    private static IncomingMessage coloured(String text, String colour) {
        IncomingMessage plain = VirtualHostHarness.message(text, null, true, 0);
        MessageMetadata m = plain.metadata();
        return new IncomingMessage(new MessageMetadata(m.to(), m.subject(), m.persistent(), m.priority(),
                m.expiresAtMillis(), m.arrivalMillis(), m.contentSize(),
                new MessageProperties("ID:" + text, null, null, null, null, 0, Map.of("colour", colour))),
                plain.content());
    }

    @Test
    void aSelectorOnTheNewMasterSeesThePropertiesStoredBeforeFailover() throws Exception {
        startGroup("selectors");
        Destination orders = master.resolveDestination("orders").join();
        for (int i = 0; i < 6; i++) {
            publish(orders, coloured("m" + i, i % 2 == 0 ? "red" : "blue"));
        }

        BrokerVirtualHost active = failOver();
        RecordingConsumer reds = new RecordingConsumer();
        active.subscribe("orders", reds, new SubscriptionOptions(false, null, AddressKind.QUEUE,
                new MessageFilter(Selector.parse("colour = 'red' AND JMSMessageID <> 'ID:m0'"), null)))
                .join().addCredit(10);
        assertThat(texts(reds, 2)).containsExactly("m2", "m4");
        RecordingConsumer everyone = new RecordingConsumer();
        active.subscribe("orders", everyone, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(10);
        assertThat(texts(everyone, 4)).containsExactly("m0", "m1", "m3", "m5");
        assertThat(reds.pending()).isZero();
    }

    @Test
    void aBrowserOnTheNewMasterSeesEveryMessageAndTakesNone() throws Exception {
        startGroup("browsing");
        Destination orders = master.resolveDestination("orders").join();
        for (int i = 0; i < 4; i++) {
            publish(orders, coloured("m" + i, i % 2 == 0 ? "red" : "blue"));
        }

        BrokerVirtualHost active = failOver();
        RecordingConsumer browser = new RecordingConsumer();
        active.subscribe("orders", browser, new SubscriptionOptions(false, null, AddressKind.QUEUE,
                new MessageFilter(Selector.parse("colour = 'blue'"), null), true)).join().addCredit(10);
        assertThat(texts(browser, 2)).containsExactly("m1", "m3");
        RecordingConsumer consumer = new RecordingConsumer();
        active.subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(10);
        assertThat(texts(consumer, 4)).containsExactly("m0", "m1", "m2", "m3");
        assertThat(active.queue("orders").orElseThrow().browsedTotal()).isEqualTo(2);
    }

    @Test
    void aSharedDurableSubscriptionKeepsItsSelectorAfterFailoverAndCanBeFoundAndUnsubscribedThere() throws Exception {
        startGroup("subscriptions");
        NamedSubscription reds = new NamedSubscription("reds", null, true, true);
        SubscriptionOptions shared = new SubscriptionOptions(false, reds, AddressKind.TOPIC,
                new MessageFilter(Selector.parse("colour = 'red'"), null));
        master.subscribe("paint", new RecordingConsumer(), shared).join().close();
        Destination paint = master.resolveDestination("paint", AddressKind.TOPIC, ClientAccess.UNRESTRICTED).join();
        publish(paint, coloured("red before", "red"));
        publish(paint, coloured("blue before", "blue"));

        BrokerVirtualHost active = failOver();
        assertThat(active.findSubscription(reds, ClientAccess.UNRESTRICTED).join()).hasValueSatisfying(terms -> {
            assertThat(terms.address()).isEqualTo("paint");
            assertThat(terms.selector()).isEqualTo("colour = 'red'");
            assertThat(terms.subscription().shared()).isTrue();
        });
        Destination paintNow = active.resolveDestination("paint", AddressKind.TOPIC, ClientAccess.UNRESTRICTED)
                .join();
        publish(paintNow, coloured("blue after", "blue"));
        publish(paintNow, coloured("red after", "red"));
        RecordingConsumer first = new RecordingConsumer();
        RecordingConsumer second = new RecordingConsumer();
        var one = active.subscribe("paint", first, shared).join();
        var two = active.subscribe("paint", second, shared).join();
        one.addCredit(1);
        two.addCredit(1);
        List<String> received = new ArrayList<>(texts(first, 1));
        received.addAll(texts(second, 1));
        assertThat(received).as("the recovered subscription still admits only red").containsExactlyInAnyOrder(
                "red before", "red after");
        assertThat(active.queue("reds|global").orElseThrow().depthMessages()).isZero();

        assertThat(active.unsubscribe(reds, ClientAccess.UNRESTRICTED)).failsWithin(ROLE_DEADLINE)
                .withThrowableThat().withMessageContaining("2 active consumers");
        one.close();
        two.close();
        assertThat(active.unsubscribe(reds, ClientAccess.UNRESTRICTED)).succeedsWithin(ROLE_DEADLINE);
        publish(paintNow, coloured("red unsubscribed", "red"));
        assertThat(active.queue("reds|global")).isEmpty();
        assertThat(active.findSubscription(reds, ClientAccess.UNRESTRICTED).join()).isEmpty();
    }
}
