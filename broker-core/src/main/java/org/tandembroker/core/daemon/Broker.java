package org.tandembroker.core.daemon;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.frontend.ProtocolFrontEndFactory;
import org.tandembroker.core.management.ManagementContext;
import org.tandembroker.core.management.ManagementPlugin;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.security.AccessControl;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.security.SecurityStatistics;
import org.tandembroker.core.security.FileAuthenticator;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.BrokerVirtualHosts;
import org.tandembroker.core.vhost.ManagedVirtualHost;

/**
 * A running broker: virtual hosts with their stores, and the protocol front ends, found with
 * {@link ServiceLoader}. Usable embedded (tests) and from {@link BrokerMain}.
 *
 * <p>Start-up and {@link #close()} run on the caller's thread; everything else runs on the threads the parts own.
 */
public final class Broker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    /** How long start-up waits for each virtual host's store to say whether this node is active. */
    private static final Duration ROLE_WAIT = Duration.ofMinutes(10);

    private final BrokerConfig config;
    private final OperationalLog operationalLog;
    private final ExecutorService queuePool;
    private final ScheduledExecutorService housekeeping;
    private final BrokerVirtualHosts virtualHosts;
    private final List<ProtocolFrontEnd> frontEnds = new ArrayList<>();
    private final List<ManagementPlugin> managementPlugins = new ArrayList<>();
    private final List<String> boundAddresses = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final BrokerReadiness readiness;
    private final AccessControl accessControl;

    private Broker(BrokerConfig config, OperationalLog operationalLog, ExecutorService queuePool,
                   ScheduledExecutorService housekeeping, BrokerVirtualHosts virtualHosts,
                   AccessControl accessControl) {
        this.accessControl = accessControl;
        this.config = config;
        this.operationalLog = operationalLog;
        this.queuePool = queuePool;
        this.housekeeping = housekeeping;
        this.virtualHosts = virtualHosts;
        this.readiness = new BrokerReadiness(List.copyOf(virtualHosts.all()), operationalLog);
    }

    /** Starts a broker and returns when it is ready (virtual hosts decided, listeners bound). */
    public static Broker start(BrokerConfig config, Path workDirectory) throws Exception {
        return start(config, workDirectory, new OperationalLog());
    }

    /**
     * Starts a broker and returns once its listeners are bound and each virtual host's store has said whether this
     * node serves. {@code BRK-1004 : Ready} follows when every virtual host serves or is a replica
     * ({@link #isReady()}, {@link #ready()}), at once or later (a group member waiting for a master).
     *
     * @throws StartupFailure one line: a port that cannot be bound (checked before any store opens), a store that
     *                        cannot serve on this node (unless {@code onStoreFailure="stay-up"})
     * @throws ConfigException a virtual host's store settings are invalid
     */
    public static Broker start(BrokerConfig config, Path workDirectory, OperationalLog operationalLog)
            throws Exception {
        try {
            return startOrThrow(config, workDirectory, operationalLog);
        } catch (ConfigException e) {
            operationalLog.log(LogCode.BRK_1007, "configuration error: " + e.getMessage());
            LOG.debug("Start-up failed", e);
            throw e;
        } catch (StartupFailure e) {
            operationalLog.log(LogCode.BRK_1007, e.getMessage());
            LOG.debug("Start-up failed", e);
            throw e;
        } catch (Exception | Error e) {
            operationalLog.log(LogCode.BRK_1007, String.valueOf(e));
            LOG.debug("Start-up failed", e);
            throw e;
        }
    }

    private static Broker startOrThrow(BrokerConfig config, Path workDirectory, OperationalLog operationalLog)
            throws Exception {
        operationalLog.log(LogCode.BRK_1001, version(), System.getProperty("java.version"),
                "pid " + ProcessHandle.current().pid());
        operationalLog.log(LogCode.BRK_1006, config.sourceFile());
        PortCheck.requireFree(config);
        Authenticator authenticator = FileAuthenticator.fromConfig(config);
        SecurityStatistics securityStatistics = new SecurityStatistics();
        AccessControl accessControl = config.security().permissionsFile().isPresent()
                ? AccessControl.load(config.security().permissionsFile().get(), operationalLog, securityStatistics)
                : AccessControl.unrestricted(operationalLog, securityStatistics, "no permissions file ("
                        + config.sourceFile().resolveSibling(BrokerConfigLoader.DEFAULT_PERMISSIONS_FILE)
                        + " does not exist and security@permissionsFile is not set): every authenticated user "
                        + "may do everything");
        Map<String, MessageStoreFactory> storeFactories = storeFactories();
        Rehearsal.runIfConfigured(config, workDirectory, storeFactories, operationalLog);
        int workers = Math.max(2, Runtime.getRuntime().availableProcessors());
        ExecutorService queuePool = Executors.newFixedThreadPool(workers, new NamedThreadFactory("queue-worker", true));
        ScheduledExecutorService housekeeping =
                Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("housekeeping", true));
        ContentBudget contentBudget = new ContentBudget(config.messageMemoryBudget());

        Map<String, BrokerVirtualHost> hosts = new LinkedHashMap<>();
        for (VirtualHostConfig vhc : config.virtualHosts()) {
            StoreContext context = new StoreContext(vhc.name(), workDirectory, config.advertisedClientAddress(),
                    operationalLog, managementAddress(config));
            MessageStoreFactory factory = storeFactories.get(vhc.store().type());
            if (factory == null) {
                queuePool.shutdown();
                housekeeping.shutdown();
                throw ConfigException.invalidValue(vhc.sourceFile(), "store@type", vhc.store().type(),
                        String.join(", ", new TreeSet<>(storeFactories.keySet())));
            }
            MessageStore first;
            try {
                first = factory.create(vhc.store(), context);
            } catch (ConfigException e) {
                throw vhc.store().namingSources(e);
            }
            hosts.put(vhc.name(), new BrokerVirtualHost(vhc, new StoreSupplier(first, factory, vhc, context),
                    operationalLog, contentBudget, config.queueWindow(), queuePool, housekeeping));
        }
        Set<String> ownNames = new java.util.HashSet<>();
        String advertisedHost = hostOf(config.advertisedClientAddress());
        if (advertisedHost != null) {
            ownNames.add(advertisedHost);
        }
        for (ListenerConfig listener : config.listeners()) {
            ownNames.add(listener.host());
        }
        BrokerVirtualHosts registry =
                new BrokerVirtualHosts(hosts, config.defaultVirtualHost(), ownNames);
        Broker broker = new Broker(config, operationalLog, queuePool, housekeeping, registry, accessControl);
        try {
            broker.startVirtualHosts();
            broker.startFrontEnds(new FrontEndContext(config, config.sourceFile().toAbsolutePath().getParent(),
                    registry, authenticator, operationalLog, accessControl));
            broker.startManagement(new ManagementContext(config, workDirectory,
                    List.<ManagedVirtualHost>copyOf(registry.all()), authenticator,
                    operationalLog, broker::isReady, accessControl));
        } catch (Exception | Error e) {
            broker.close();
            throw e;
        }
        broker.readiness.watch();
        return broker;
    }

    /**
     * Where operators' tools reach this node's JMX connector: its rmiHostname, else its bind address unless a
     * wildcard, else the host clients are told; null without JMX.
     */
    static String managementAddress(BrokerConfig config) {
        var jmx = config.management().jmx();
        if (!jmx.enabled()) {
            return null;
        }
        String host = jmx.rmiHostname().orElse(null);
        if (host == null && !jmx.host().equals("0.0.0.0") && !jmx.host().equals("::")) {
            host = jmx.host();
        }
        if (host == null) {
            host = hostOf(config.advertisedClientAddress());
        }
        return host == null ? null : host + ":" + jmx.port();
    }

    private static String hostOf(String hostPort) {
        if (hostPort == null) {
            return null;
        }
        int colon = hostPort.lastIndexOf(':');
        return colon > 0 ? hostPort.substring(0, colon) : hostPort;
    }

    private static Map<String, MessageStoreFactory> storeFactories() {
        Map<String, MessageStoreFactory> factories = new LinkedHashMap<>();
        for (MessageStoreFactory factory : ServiceLoader.load(MessageStoreFactory.class)) {
            factories.put(factory.type(), factory);
        }
        return factories;
    }

    /** The first store was created (and its settings validated) at start-up; re-activation creates a new one. */
    private static final class StoreSupplier implements java.util.function.Supplier<MessageStore> {
        private MessageStore first;
        private final MessageStoreFactory factory;
        private final VirtualHostConfig vhc;
        private final StoreContext context;

        StoreSupplier(MessageStore first, MessageStoreFactory factory, VirtualHostConfig vhc, StoreContext context) {
            this.first = first;
            this.factory = factory;
            this.vhc = vhc;
            this.context = context;
        }

        @Override
        public synchronized MessageStore get() {
            if (first != null) {
                MessageStore store = first;
                first = null;
                return store;
            }
            try {
                return factory.create(vhc.store(), context);
            } catch (ConfigException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }

    private void startVirtualHosts() throws Exception {
        for (BrokerVirtualHost host : virtualHosts.all()) {
            host.start();
        }
        for (BrokerVirtualHost host : virtualHosts.all()) {
            try {
                host.firstRoleDecided().get(ROLE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                LOG.warn("Virtual host '{}' has not become active or passive within {}; continuing start-up",
                        host.name(), ROLE_WAIT);
            } catch (ExecutionException e) {
                String reason = "virtual host '" + host.name() + "' cannot serve on this node: "
                        + host.standingReason();
                if (config.onStoreFailure() == BrokerConfig.OnStoreFailure.EXIT) {
                    throw new StartupFailure(reason, e.getCause());
                }
                LOG.warn("{}; staying up (onStoreFailure=\"stay-up\"): this node is not ready", reason);
            }
        }
    }

    private void startFrontEnds(FrontEndContext context) throws Exception {
        for (ProtocolFrontEndFactory factory : ServiceLoader.load(ProtocolFrontEndFactory.class)) {
            ProtocolFrontEnd frontEnd = factory.create(context);
            frontEnds.add(frontEnd);
            frontEnd.start();
            for (String address : frontEnd.boundAddresses()) {
                boundAddresses.add(address);
                operationalLog.log(LogCode.BRK_1002, address);
            }
        }
        if (frontEnds.isEmpty()) {
            LOG.warn("No protocol front end on the class path: clients cannot connect");
        }
    }

    private void startManagement(ManagementContext context) throws Exception {
        for (ManagementPlugin plugin : ServiceLoader.load(ManagementPlugin.class)) {
            managementPlugins.add(plugin);
            plugin.start(context);
            LOG.info("Management plugin '{}' started", plugin.name());
        }
    }

    public BrokerConfig config() {
        return config;
    }

    public List<String> boundAddresses() {
        return List.copyOf(boundAddresses);
    }

    public BrokerVirtualHosts virtualHosts() {
        return virtualHosts;
    }

    public BrokerVirtualHost virtualHost(String name) {
        return virtualHosts.all().stream().filter(h -> h.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no virtual host " + name));
    }

    /** Whether every virtual host serves or is a replica in its group now (any thread). */
    public boolean isReady() {
        return readiness.isReady() && !closed.get();
    }

    /** Completes the first time the broker is ready ({@code BRK-1004}); never, if it never is. */
    public CompletableFuture<Void> ready() {
        return readiness.firstReady();
    }

    public OperationalLog operationalLog() {
        return operationalLog;
    }

    /** The client permissions in force; {@link AccessControl#reload()} re-reads the permissions file. */
    public AccessControl accessControl() {
        return accessControl;
    }

    /** Stops accepting, closes connections, closes the stores. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        operationalLog.log(LogCode.BRK_1003);
        for (ManagementPlugin plugin : managementPlugins) {
            try {
                plugin.close();
            } catch (RuntimeException e) {
                LOG.warn("Closing management plugin '{}' failed", plugin.name(), e);
            }
        }
        for (ProtocolFrontEnd frontEnd : frontEnds) {
            try {
                frontEnd.close();
            } catch (RuntimeException e) {
                LOG.warn("Closing a front end failed", e);
            }
        }
        for (BrokerVirtualHost host : virtualHosts.all()) {
            try {
                host.stop().get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("Stopping virtual host '{}' failed", host.name(), e);
            }
        }
        housekeeping.shutdownNow();
        queuePool.shutdown();
        operationalLog.log(LogCode.BRK_1005);
    }

    static String version() {
        String v = Broker.class.getPackage().getImplementationVersion();
        return v != null ? v : "0.1.0-SNAPSHOT";
    }
}
