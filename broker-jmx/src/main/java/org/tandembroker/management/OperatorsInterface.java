package org.tandembroker.management;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.util.HierarchicalNameMapper;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.config.ManagementConfig;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.management.ManagementContext;
import org.tandembroker.core.management.ManagementPlugin;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.vhost.ManagedVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;
import org.tandembroker.management.http.OperatorsHttpEndpoint;
import org.tandembroker.management.jmx.ManagementBeans;
import org.tandembroker.management.jmx.ObjectNames;
import org.tandembroker.management.jmx.RmiConnector;
import org.tandembroker.management.metrics.BrokerMetrics;
import org.tandembroker.management.store.LatestFigures;
import org.tandembroker.management.store.StoreFigureReader;
import org.tandembroker.management.store.StoreFigures;

/**
 * The operators' interface, as configured by {@code <management>} in the broker file: the JMX connector with the
 * MBeans, Micrometer metrics (into JMX and onto the HTTP endpoint, beside the health checks) and the disk watermark. Found with
 * {@link java.util.ServiceLoader}; does nothing when the broker file has no {@code <management>}.
 *
 * <p><b>Threads.</b> {@link #start} and {@link #close} run on the broker's caller thread. Everything that reads
 * the stores or changes the set of meters and beans runs on one thread, {@code management-sampler}: every
 * {@code <disk checkInterval>} it reads each store's figures ({@link StoreFigureReader}), publishes them
 * ({@link LatestFigures}), applies the disk watermark ({@link DiskSpaceGuard}) and brings queue and replica meters
 * and beans up to date. JMX calls and metric scrapes (RMI and HTTP threads) only read.
 */
public final class OperatorsInterface implements ManagementPlugin {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorsInterface.class);
    private static final long SAMPLE_WAIT_SECONDS = 30;

    private ManagementContext context;
    private CompositeMeterRegistry registry;
    private JvmGcMetrics gcMetrics;
    private RmiConnector connector;
    private OperatorsHttpEndpoint endpoint;
    private ScheduledExecutorService sampler;
    private StoreFigureReader reader;
    private LatestFigures figures;
    private DiskSpaceGuard guard;
    private BrokerMetrics metrics;
    private ManagementBeans beans;
    private boolean closed;

    @Override
    public String name() {
        return "operators' interface (JMX, metrics, disk watermark)";
    }

    @Override
    public void start(ManagementContext context) throws Exception {
        ManagementConfig config = context.config().management();
        if (!config.anyEnabled()) {
            LOG.debug("No <management> in {}: JMX, metrics and the disk watermark are off",
                    context.config().sourceFile());
            return;
        }
        this.context = context;
        try {
            startEverything(context, config);
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private void startEverything(ManagementContext context, ManagementConfig config) throws Exception {
        List<ManagedVirtualHost> hosts = context.virtualHosts();
        reader = new StoreFigureReader();
        figures = new LatestFigures();
        guard = new DiskSpaceGuard(config.diskWatermark().freeBytes(), context.operationalLog());
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                new NamedThreadFactory("management-sampler", true));
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        sampler = executor;

        registry = new CompositeMeterRegistry();
        PrometheusMeterRegistry prometheus = null;
        if (config.metrics().enabled()) {
            prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry.add(prometheus);
        }
        if (config.jmx().enabled()) {
            beans = new ManagementBeans(figures, guard);
            MetricRegistry dropwizard = new MetricRegistry();
            JmxReporter reporter = JmxReporter.forRegistry(dropwizard).registerWith(beans.server())
                    .inDomain(ObjectNames.METRICS_DOMAIN).build();
            registry.add(new JmxMeterRegistry(JmxConfig.DEFAULT, Clock.SYSTEM, HierarchicalNameMapper.DEFAULT,
                    dropwizard, reporter));
        }
        if (!registry.getRegistries().isEmpty()) {
            bindJvmMetrics(registry);
            metrics = new BrokerMetrics(registry, figures, guard);
        }

        onSampler(() -> {
            for (ManagedVirtualHost host : hosts) {
                if (metrics != null) {
                    metrics.bind(host);
                }
                if (beans != null) {
                    beans.bind(host);
                }
            }
            if (beans != null) {
                beans.bindPermissions(context.accessControl());
            }
            if (metrics != null) {
                metrics.bindSecurity(context.accessControl().statistics());
            }
            if (beans != null) {
                beans.bindDiskWatermark(config.diskWatermark().checkInterval().toMillis(), hosts, this::sampleNow);
            }
            sample();
        });
        long interval = config.diskWatermark().checkInterval().toMillis();
        sampler.scheduleWithFixedDelay(this::sample, interval, interval, TimeUnit.MILLISECONDS);

        if (config.jmx().enabled()) {
            connector = RmiConnector.start(config.jmx(), beans.server(), context.authenticator(),
                    context.operationalLog());
            context.operationalLog().log(LogCode.BRK_1002, "JMX " + connector.clientUrl());
        }
        if (prometheus != null) {
            endpoint = OperatorsHttpEndpoint.start(config.metrics(), prometheus, hosts, context.brokerReady(),
                    context.authenticator(), context.operationalLog());
            String base = endpoint.scheme() + "://" + config.metrics().host() + ":" + endpoint.address().getPort();
            context.operationalLog().log(LogCode.BRK_1002, "metrics " + base + "/metrics, health " + base
                    + "/health" + (config.metrics().authentication() == ManagementConfig.HttpAuthentication.USERS
                    ? " (basic authentication: a user with role monitor or admin)" : ""));
        }
        if (config.diskWatermark().enabled()) {
            LOG.info("Disk watermark: publishes are refused while a store may write less than {} bytes (checked "
                    + "every {} ms)", config.diskWatermark().freeBytes(), interval);
        }
    }

    private void bindJvmMetrics(MeterRegistry registry) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        gcMetrics = new JvmGcMetrics();
        gcMetrics.bindTo(registry);
    }

    /** One round on the sampler thread: read each store, apply the watermark, follow queues and replicas. */
    private void sample() {
        for (ManagedVirtualHost host : context.virtualHosts()) {
            try {
                StoreFigures latest = reader.read(host);
                figures.put(host.name(), latest);
                guard.check(host, latest);
                if (metrics != null) {
                    metrics.sync(host);
                }
                if (beans != null) {
                    beans.sync(host);
                }
            } catch (RuntimeException e) {
                LOG.warn("Reading the figures of virtual host '{}' failed: {}", host.name(), e.toString(), e);
            }
        }
    }

    /** Samples at once (an operator changed the watermark) and returns when done. Any thread but the sampler. */
    private void sampleNow() {
        onSampler(this::sample);
    }

    private void onSampler(Runnable work) {
        Future<?> done = sampler.submit(work);
        try {
            done.get(SAMPLE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("management sampler failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("management sampler did not finish within " + SAMPLE_WAIT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the management sampler");
        }
    }

    /**
     * Stops serving (JMX connections end, the ports close), removes meters and beans, accepts publishes again.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (context == null) {
            return; // never started: nothing was enabled
        }
        closeQuietly(endpoint);
        closeQuietly(connector);
        if (sampler != null) {
            sampler.shutdownNow();
            try {
                if (!sampler.awaitTermination(SAMPLE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    LOG.warn("The management sampler did not stop within {} s", SAMPLE_WAIT_SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // The sampler has stopped: what it owned is this thread's now.
        closeQuietly(metrics);
        closeQuietly(beans);
        if (guard != null) {
            context.virtualHosts().forEach(guard::release);
        }
        closeQuietly(gcMetrics);
        if (registry != null) {
            registry.close();
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.warn("Closing {} failed: {}", closeable, e.toString());
        }
    }
}
