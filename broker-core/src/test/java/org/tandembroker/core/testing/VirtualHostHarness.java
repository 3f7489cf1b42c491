package org.tandembroker.core.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.tandembroker.core.config.BindingConfig;
import org.tandembroker.core.config.ExchangeConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.vhost.Destination;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.VirtualHostState;

/** A started virtual host on a given store, for tests. Close it. */
public final class VirtualHostHarness implements AutoCloseable {
    public static final QueueConfig DEFAULTS = new QueueConfig("", true, 0, 0, 0, 0, null);

    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private final OperationalLog operationalLog = new OperationalLog();
    private final List<String> logLines = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final BrokerVirtualHost host;

    public VirtualHostHarness(VirtualHostConfig config, Supplier<MessageStore> stores, long contentBudget) {
        this(config, stores, contentBudget, 0);
    }

    /** A host whose durable queues keep {@code queueWindow} entries on the heap (0: all). */
    public VirtualHostHarness(VirtualHostConfig config, Supplier<MessageStore> stores, long contentBudget,
                              int queueWindow) {
        operationalLog.addObserver(logLines::add);
        host = new BrokerVirtualHost(config, stores, operationalLog, new ContentBudget(contentBudget), queueWindow,
                pool, housekeeping);
        host.start();
        try {
            VirtualHostState state = host.firstRoleDecided().get(10, TimeUnit.SECONDS);
            if (state != VirtualHostState.ACTIVE) {
                throw new AssertionError("virtual host did not become active: " + state);
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** A host on a fresh memory store with the given queues, exchanges and bindings. */
    public static VirtualHostHarness memory(boolean autoCreate, QueueConfig defaults, List<QueueConfig> queues,
                                            List<ExchangeConfig> exchanges, List<BindingConfig> bindings) {
        return new VirtualHostHarness(config(autoCreate, defaults, queues, exchanges, bindings),
                MemoryMessageStore::new, 64L * 1024 * 1024);
    }

    public static VirtualHostConfig config(boolean autoCreate, QueueConfig defaults, List<QueueConfig> queues,
                                           List<ExchangeConfig> exchanges, List<BindingConfig> bindings) {
        StoreSettings store = new StoreSettings(Path.of("test.xml"), "memory", java.util.Map.of(), List.of(), List.of());
        return new VirtualHostConfig(Path.of("test.xml"), "test", store, autoCreate, defaults, queues, exchanges,
                bindings);
    }

    public BrokerVirtualHost host() {
        return host;
    }

    public List<String> logLines() {
        return logLines;
    }

    /** Resolves and publishes one persistent text message, waiting for the publish to complete. */
    public void publish(String address, String text) {
        publish(address, message(text, null, true, 0));
    }

    public void publish(String address, IncomingMessage message) {
        Destination d = host.resolveDestination(address).join();
        d.publish(message, null).join();
    }

    public static IncomingMessage message(String text, String subject, boolean persistent, long expiresAt) {
        byte[] content = text.getBytes(StandardCharsets.UTF_8);
        return new IncomingMessage(new MessageMetadata(null, subject, persistent, 4, expiresAt,
                System.currentTimeMillis(), content.length), content);
    }

    public static String text(org.tandembroker.core.queue.Delivery d) {
        return new String(d.content(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        host.stop().join();
        pool.shutdownNow();
        housekeeping.shutdownNow();
    }
}
