package org.tandembroker.amqp.fuzz;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.tandembroker.amqp.AmqpFrontEndFactory;
import org.tandembroker.amqp.AmqpServer;
import org.tandembroker.amqp.fake.FakeAuthenticator;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.ManagementConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.config.TlsConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.BrokerVirtualHosts;
import org.tandembroker.core.vhost.VirtualHostState;

/**
 * The AMQP front end in front of the core's real virtual host (memory store), for hostile-input and abuse tests.
 * Besides what its {@link ProblemWatch} sees, an internal error in the operational log (CON-1005 "internal error",
 * the connection handler's last line of defence) is a problem.
 */
public final class FuzzedBroker implements AutoCloseable {
    public static final String USER = "guest";
    public static final String PASSWORD = "guest-secret";
    public static final String HOST = "fuzz";

    final OperationalLog log = new OperationalLog();
    final ProblemWatch watch;
    public final BrokerVirtualHost virtualHost;
    private final ExecutorService queuePool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private final ProtocolFrontEnd frontEnd;

    FuzzedBroker(ProblemWatch watch, ConnectionLimits limits, Optional<TlsConfig> tls, long contentBudget)
            throws Exception {
        this(watch, limits, tls, contentBudget, List.of());
    }

    /** A broker whose virtual host declares {@code queues}. */
    public FuzzedBroker(ProblemWatch watch, ConnectionLimits limits, Optional<TlsConfig> tls, long contentBudget,
                        List<QueueConfig> queues) throws Exception {
        this.watch = watch;
        log.addObserver(line -> {
            if (line.contains("internal error")) {
                watch.add("operational log: " + line);
            }
        });
        VirtualHostConfig hostConfig = new VirtualHostConfig(Path.of("fuzz.xml"), HOST,
                new StoreSettings(Path.of("fuzz.xml"), "memory", Map.of(), List.of(), List.of()), true,
                new QueueConfig("defaults", true, 0, 0, 0, 0, null), queues, List.of(), List.of());
        virtualHost = new BrokerVirtualHost(hostConfig, MemoryMessageStore::new, log, new ContentBudget(contentBudget),
                queuePool, housekeeping);
        virtualHost.start();
        if (virtualHost.firstRoleDecided().get(10, TimeUnit.SECONDS) != VirtualHostState.ACTIVE) {
            throw new IllegalStateException("the virtual host did not become active");
        }
        BrokerConfig config = new BrokerConfig(Path.of("broker.xml"),
                List.of(new ListenerConfig(tls.isPresent() ? "amqps" : "amqp", "127.0.0.1", 0, tls)), null,
                Path.of("users"), false, limits, contentBudget, List.of(hostConfig), HOST, ManagementConfig.OFF,
                // No delay after failed logins: the generated inputs fail SASL from 127.0.0.1 all the time, and the
                // throttle (AuthenticationThrottleTest) would hold every later outcome back for up to 5 s.
                new SecurityConfig(Optional.empty(), SecurityConfig.DEFAULTS.allowPlainWithoutTls(), Duration.ZERO,
                        Duration.ZERO));
        frontEnd = new AmqpFrontEndFactory().create(new FrontEndContext(config, Path.of("."),
                new BrokerVirtualHosts(Map.of(HOST, virtualHost), HOST, Set.of()),
                new FakeAuthenticator(Map.of(USER, PASSWORD), false), log));
        frontEnd.start();
    }

    public static ConnectionLimits limits() {
        return new ConnectionLimits(64 * 1024, 4L * 1024 * 1024, Duration.ofSeconds(30), 200, 50);
    }

    public int port() {
        String address = frontEnd.boundAddresses().get(0);
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    public String uri() {
        return "amqp://127.0.0.1:" + port();
    }

    public int connectionCount() {
        return ((AmqpServer) frontEnd).connectionCount();
    }

    @Override
    public void close() throws Exception {
        try {
            frontEnd.close();
            virtualHost.stop().get(10, TimeUnit.SECONDS);
        } finally {
            queuePool.shutdownNow();
            housekeeping.shutdownNow();
        }
    }
}
