package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.QueueOptions;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.testing.VirtualHostHarness;

/** A durable queue declared in the virtual host file, then edited in the file while it exists in the store. */
class EditedQueueDeclarationTest {
    private static final QueueConfig ORIGINAL = new QueueConfig("prices", true, 0, 0, 0, 0, null,
            new QueueOptions(true, "symbol"));
    private static final QueueConfig EDITED = new QueueConfig("prices", true, 2, 4096, 60_000, 3, "prices.dlq",
            new QueueOptions(false, "isin"));

    private final MemoryMessageStore store = new MemoryMessageStore();

    /** The memory store as a restarted broker finds its disk: stopping the host does not close it. */
    private final MessageStore surviving = (MessageStore) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[]{MessageStore.class}, (proxy, method, args) -> {
                if (method.getName().equals("close")) {
                    return null;
                }
                try {
                    return method.invoke(store, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });

    private VirtualHostHarness start(QueueConfig declared) {
        return new VirtualHostHarness(VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS, List.of(declared),
                List.of(), List.of()), () -> surviving, 64L * 1024 * 1024);
    }

    @Test
    void editedLimitsAreAppliedAndStoredWhileEditedOrderAndKeyAreKeptWithOneWarningNamingThem() {
        try (VirtualHostHarness first = start(ORIGINAL)) {
            first.publish("prices", "kept across the restart");
        }
        try (VirtualHostHarness restarted = start(EDITED)) {
            QueueConfig running = restarted.host().queue("prices").orElseThrow().config();
            assertThat(running).isEqualTo(new QueueConfig("prices", true, 2, 4096, 60_000, 3, "prices.dlq",
                    new QueueOptions(true, "symbol")));
            assertThat(restarted.host().queue("prices").orElseThrow().depthMessages()).isEqualTo(1);
            assertThat(restarted.logLines()).filteredOn(line -> line.contains("VHT-1009")).singleElement()
                    .asString().contains("prices", "maxDepthMessages 0 -> 2", "maxDepthBytes 0 -> 4096",
                            "messageTtl 0 ms -> 60000 ms", "maxDeliveries 0 -> 3", "deadLetterQueue (none) -> prices.dlq");
            assertThat(restarted.logLines()).filteredOn(line -> line.contains("VHT-1010")).singleElement()
                    .asString().contains("prices", "priority stored true, file false",
                            "lastValueKey stored symbol, file isin", "delete the queue");
        }
        try (VirtualHostHarness again = start(EDITED)) {
            assertThat(again.host().queue("prices").orElseThrow().config().maxDepthMessages()).isEqualTo(2);
            assertThat(again.logLines()).as("the applied limits were stored").noneMatch(line -> line.contains("VHT-1009"));
            assertThat(again.logLines()).filteredOn(line -> line.contains("VHT-1010")).hasSize(1);
        }
    }

    @Test
    void anUneditedDeclarationLogsNothingAboutTheQueue() {
        try (VirtualHostHarness first = start(ORIGINAL)) {
            first.publish("prices", "one");
        }
        try (VirtualHostHarness restarted = start(ORIGINAL)) {
            assertThat(restarted.logLines()).noneMatch(line -> line.contains("VHT-1009") || line.contains("VHT-1010"));
            assertThat(restarted.host().queue("prices").orElseThrow().config()).isEqualTo(ORIGINAL);
        }
    }
}
