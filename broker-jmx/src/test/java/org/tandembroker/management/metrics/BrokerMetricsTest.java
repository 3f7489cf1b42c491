package org.tandembroker.management.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;
import org.tandembroker.management.store.DiskFigures;
import org.tandembroker.management.store.LatestFigures;
import org.tandembroker.management.store.StoreFigures;

/** Meters follow the host's queues and are all removed on close; unknown figures read as NaN, not 0. */
class BrokerMetricsTest {
    private final VirtualHostHarness harness = VirtualHostHarness.memory(true, VirtualHostHarness.DEFAULTS,
            List.of(new QueueConfig("orders", true, 0, 0, 0, 0, null)), List.of(), List.of());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final LatestFigures figures = new LatestFigures();
    private final BrokerMetrics metrics = new BrokerMetrics(registry, figures,
            new DiskSpaceGuard(0, new OperationalLog()));

    @AfterEach
    void close() {
        harness.close();
    }

    @Test
    void queueMetersFollowTheQueuesAndEveryMeterGoesOnClose() {
        BrokerVirtualHost host = harness.host();
        metrics.bind(host);
        metrics.sync(host);
        harness.publish("orders", "one");
        harness.publish("invoices", "two");

        metrics.sync(host);

        assertThat(registry.get(MetricNames.QUEUE_DEPTH_MESSAGES).tag(MetricNames.QUEUE, "orders").gauge().value())
                .isEqualTo(1);
        assertThat(registry.get(MetricNames.QUEUE_MESSAGES_IN).tag(MetricNames.QUEUE, "invoices").functionCounter()
                .count()).isEqualTo(1);
        assertThat(registry.get(MetricNames.MESSAGES_IN).tag(MetricNames.VHOST, "test").functionCounter().count())
                .isEqualTo(2);
        host.deleteQueue(host.queue("invoices").orElseThrow(), "test").join();
        metrics.sync(host);
        assertThat(registry.find(MetricNames.QUEUE_DEPTH_MESSAGES).tag(MetricNames.QUEUE, "invoices").gauge())
                .isNull();

        metrics.close();

        assertThat(registry.getMeters()).extracting(Meter::getId).isEmpty();
    }

    @Test
    void storeFiguresAreNaNUntilKnownThenTheSamplersValues() {
        BrokerVirtualHost host = harness.host();
        metrics.bind(host);

        assertThat(registry.get(MetricNames.STORE_LOG_AVAILABLE).gauge().value()).isNaN();
        assertThat(registry.get(MetricNames.STORE_FSYNCS).functionCounter().count()).isNaN();

        figures.put("test", new StoreFigures("bdb-ha", "MASTER", true,
                Optional.of(new DiskFigures(5000, 800, 600, 200, 100)), Optional.empty(), 42, new TreeMap<>()));

        assertThat(registry.get(MetricNames.STORE_LOG_AVAILABLE).gauge().value()).isEqualTo(5000);
        assertThat(registry.get(MetricNames.STORE_LOG_RESERVED).gauge().value()).isEqualTo(200);
        assertThat(registry.get(MetricNames.STORE_FSYNCS).functionCounter().count()).isEqualTo(42);
        assertThat(registry.get(MetricNames.STORE_ROLE).tag(MetricNames.ROLE, "MASTER").gauge().value()).isEqualTo(1);
        assertThat(registry.get(MetricNames.STORE_ROLE).tag(MetricNames.ROLE, "REPLICA").gauge().value()).isZero();
        metrics.close();
    }
}
