package org.tandembroker.amqp.rehearsal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.amqp.AmqpFrontEndFactory;
import org.tandembroker.amqp.fake.FakeAuthenticator;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.BrokerVirtualHosts;
import org.tandembroker.core.vhost.VirtualHostState;

/** The warm-up's AMQP client against the real front end and virtual host (memory store). */
class AmqpRehearsalClientTest {
    private static final String HOST = "scratch";

    private final ExecutorService queuePool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private BrokerVirtualHost virtualHost;
    private ProtocolFrontEnd frontEnd;

    @AfterEach
    void stop() throws Exception {
        if (frontEnd != null) {
            frontEnd.close();
        }
        if (virtualHost != null) {
            virtualHost.stop().get(10, TimeUnit.SECONDS);
        }
        queuePool.shutdownNow();
        housekeeping.shutdownNow();
    }

    @Test
    void thePairsShareOneQueueAndEveryMessageThePublishersHadAcceptedIsConsumed() throws Exception {
        InetSocketAddress address = start(true);
        AtomicInteger asked = new AtomicInteger();

        long consumed = new AmqpRehearsalClient().rehearse(address, HOST, 3, () -> asked.incrementAndGet() < 600);

        assertThat(consumed).isPositive();
        assertThat(virtualHost.queues().keySet()).containsExactly(AmqpRehearsalClient.QUEUE);
        var queue = virtualHost.queue(AmqpRehearsalClient.QUEUE).orElseThrow();
        assertThat(queue.depthMessages()).as("left on the queue").isZero();
        assertThat(consumed).as("consumed, against what the queue counted in").isEqualTo(queue.enqueuedTotal());
    }

    @Test
    void aBrokerThatRefusesTheQueuesFailsTheRehearsalPromptlySayingWhy() throws Exception {
        InetSocketAddress address = start(false);
        long started = System.nanoTime();

        Throwable failure = catchThrowable(() -> new AmqpRehearsalClient().rehearse(address, HOST, 2, () -> true));

        assertThat(failure).hasMessageContaining("the broker closed the link");
        assertThat(System.nanoTime() - started).as("no waiting for a stall")
                .isLessThan(TimeUnit.SECONDS.toNanos(RehearsalConnection.STALL.toSeconds() / 2));
    }

    /** A front end on loopback for SASL ANONYMOUS clients; queues are created on attach when {@code autoCreate}. */
    private InetSocketAddress start(boolean autoCreate) throws Exception {
        OperationalLog log = OperationalLog.unlogged();
        VirtualHostConfig hostConfig = new VirtualHostConfig(Path.of("scratch.xml"), HOST,
                new StoreSettings(Path.of("scratch.xml"), "memory", Map.of(), List.of(), List.of()), autoCreate,
                new QueueConfig("defaults", true, 0, 0, 0, 0, null), List.of(), List.of(), List.of());
        virtualHost = new BrokerVirtualHost(hostConfig, MemoryMessageStore::new, log, new ContentBudget(64L << 20),
                queuePool, housekeeping);
        virtualHost.start();
        assertThat(virtualHost.firstRoleDecided().get(10, TimeUnit.SECONDS)).isEqualTo(VirtualHostState.ACTIVE);
        BrokerConfig config = new BrokerConfig(Path.of("broker.xml"),
                List.of(new ListenerConfig("amqp", "127.0.0.1", 0, Optional.empty())), null, Path.of("users"),
                true, ConnectionLimits.DEFAULTS, 64L << 20, List.of(hostConfig), HOST);
        frontEnd = new AmqpFrontEndFactory().create(new FrontEndContext(config, Path.of("."),
                new BrokerVirtualHosts(Map.of(HOST, virtualHost), HOST, Set.of()),
                new FakeAuthenticator(Map.of(), true), log));
        frontEnd.start();
        String bound = frontEnd.boundAddresses().get(0);
        return new InetSocketAddress("127.0.0.1", Integer.parseInt(bound.substring(bound.lastIndexOf(':') + 1)));
    }
}
