package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;

/** The core's virtual host on this store: what it keeps across a restart. */
class VirtualHostOnBdbStoreTest {
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
}
