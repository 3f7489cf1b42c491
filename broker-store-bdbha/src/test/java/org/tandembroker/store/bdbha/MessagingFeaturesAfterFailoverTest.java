package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.selector.Selector;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.MessageFilter;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.vhost.AddressKind;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.Destination;
import org.tandembroker.core.vhost.VirtualHostState;
import org.tandembroker.store.bdbha.HaGroup.Node;

/**
 * The messaging features' state on a two-node group: what a consumer relies on (a topic subscription's binding, its
 * messages) is on the replica when it takes over.
 */
class MessagingFeaturesAfterFailoverTest {
    private static final VirtualHostConfig CONFIG = VirtualHostHarness.config(true, VirtualHostHarness.DEFAULTS,
            List.of(), List.of(), List.of());

    @TempDir
    Path work;
    private final ExecutorService queuePool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private final List<BrokerVirtualHost> hosts = new ArrayList<>();
    private HaGroup group;
    private BrokerVirtualHost master;
    private BrokerVirtualHost replica;
    private Node second;

    @AfterEach
    void close() {
        hosts.forEach(host -> host.stop().join());
        if (group != null) {
            group.close();
        }
        queuePool.shutdownNow();
        housekeeping.shutdownNow();
    }

    private BrokerVirtualHost host(Node node) {
        BrokerVirtualHost host = new BrokerVirtualHost(CONFIG, node::newStore, node.operationalLog,
                new ContentBudget(64L * 1024 * 1024), queuePool, housekeeping);
        hosts.add(host);
        host.start();
        return host;
    }

    private void startGroup(String name) {
        group = new HaGroup(work, name);
        Node first = group.prepare("first", HaGroup.options());
        master = host(first);
        await().atMost(ROLE_DEADLINE).until(() -> master.state() == VirtualHostState.ACTIVE);
        second = group.prepare("second", HaGroup.options());
        replica = host(second);
        assertThat(replica.firstRoleDecided()).succeedsWithin(ROLE_DEADLINE).isEqualTo(VirtualHostState.PASSIVE);
    }

    /** The master's host stops; an operator designates the replica, which takes over. */
    private BrokerVirtualHost failOver() {
        master.stop().join();
        hosts.remove(master);
        await().atMost(ROLE_DEADLINE).until(() -> second.store.nodeState().equals("UNKNOWN"));
        assertThat(second.store.setDesignatedPrimary(true)).succeedsWithin(ROLE_DEADLINE);
        await().atMost(ROLE_DEADLINE).until(() -> replica.state() == VirtualHostState.ACTIVE);
        return replica;
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
        SubscriptionOptions durable = new SubscriptionOptions(false, "ticker:quotes", AddressKind.TOPIC,
                MessageFilter.ALL);
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
}
