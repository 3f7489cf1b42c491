package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.QueueOptions;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.Destination;

/**
 * Priority order and last-value queues on a two-node group: the replica that takes over delivers in priority order,
 * has only the newest message per key, and knows the options of a queue a client created with address parameters.
 */
class QueueOrderAfterFailoverTest {
    private static final QueueConfig PRICES = new QueueConfig("prices", true, 0, 0, 0, 0, null,
            new QueueOptions(true, "symbol"));
    private static final VirtualHostConfig CONFIG = VirtualHostHarness.config(true, VirtualHostHarness.DEFAULTS,
            List.of(PRICES), List.of(), List.of());

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

    private static IncomingMessage message(String text, int priority, Map<String, Object> properties) {
        byte[] content = text.getBytes(StandardCharsets.UTF_8);
        return new IncomingMessage(new MessageMetadata(null, null, true, priority, 0, System.currentTimeMillis(),
                content.length, new MessageProperties(null, null, null, null, null, 0, properties)), content);
    }

    private static List<String> consume(BrokerVirtualHost host, String address, int count) throws Exception {
        RecordingConsumer consumer = new RecordingConsumer();
        host.subscribe(address, consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(count + 1);
        List<String> texts = new ArrayList<>();
        for (Delivery delivery : consumer.next(count)) {
            texts.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
        }
        assertThat(consumer.pending()).isZero();
        return texts;
    }

    @Test
    void theNewMasterDeliversTheQueueInPriorityOrder() throws Exception {
        startGroup("priority");
        Destination jobs = master.resolveDestination("jobs").join();
        int[] priorities = {0, 4, 9, 4, 7, 0};
        for (int i = 0; i < priorities.length; i++) {
            jobs.publish(message("p" + priorities[i] + "-" + i, priorities[i], Map.of()), null).join();
        }

        BrokerVirtualHost active = failOver();
        assertThat(consume(active, "jobs", 6)).containsExactly("p9-2", "p7-4", "p4-1", "p4-3", "p0-0", "p0-5");
    }

    @Test
    void theNewMasterHasOnlyTheNewestMessagePerKeyAndKeepsReplacing() throws Exception {
        startGroup("last-value");
        Destination prices = master.resolveDestination("prices").join();
        for (int i = 1; i <= 3; i++) {
            prices.publish(message("IBM " + i, 4, Map.of("symbol", "IBM")), null).join();
            prices.publish(message("RHT " + i, 4, Map.of("symbol", "RHT")), null).join();
        }
        await().atMost(ROLE_DEADLINE).until(() -> master.queue("prices").orElseThrow()
                .lastValueReplacementsTotal() == 4);

        BrokerVirtualHost active = failOver();
        BrokerQueue recovered = active.queue("prices").orElseThrow();
        await().atMost(ROLE_DEADLINE).until(() -> !recovered.isLoadingRecoveredEntries());
        assertThat(recovered.depthMessages()).as("the replaced messages are not in the replica's store").isEqualTo(2);
        assertThat(recovered.lastValueReplacementsTotal()).isZero();
        active.resolveDestination("prices").join().publish(message("IBM 4", 4, Map.of("symbol", "IBM")), null).join();
        assertThat(consume(active, "prices", 2)).containsExactly("RHT 3", "IBM 4");
    }

    @Test
    void aQueueCreatedWithAddressOptionsKeepsThemAfterFailover() throws Exception {
        startGroup("options");
        Destination ticks = master.resolveDestination("ticks?last-value-key=symbol&priority=false").join();
        ticks.publish(message("A 1", 1, Map.of("symbol", "A")), null).join();
        ticks.publish(message("B 1", 9, Map.of("symbol", "B")), null).join();

        BrokerVirtualHost active = failOver();
        assertThat(active.queue("ticks").orElseThrow().config().options()).isEqualTo(new QueueOptions(false, "symbol"));
        active.resolveDestination("ticks").join().publish(message("A 2", 9, Map.of("symbol", "A")), null).join();
        assertThat(consume(active, "ticks", 2)).as("arrival order, A 1 replaced").containsExactly("B 1", "A 2");
    }
}
