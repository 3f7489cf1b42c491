package org.tandembroker.management.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.security.AuthFailure;
import org.tandembroker.core.security.Permission;
import org.tandembroker.core.security.SecurityStatistics;
import org.tandembroker.core.store.CommitterStatistics;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.replication.ReplicaLag;
import org.tandembroker.core.vhost.ManagedVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;
import org.tandembroker.management.store.DiskFigures;
import org.tandembroker.management.store.LatestFigures;
import org.tandembroker.management.store.StoreFigures;

/**
 * Binds the broker's meters (names in {@link MetricNames}) to a Micrometer registry and removes them on close.
 * Gauges and function counters read live counters of the core (cheap: sums of adders, sizes of maps) or the
 * sampler's {@link LatestFigures} for anything JE knows; a figure that is unknown reads as NaN, never as 0.
 *
 * <p><b>Threads.</b> {@link #bind}, {@link #sync} and {@link #close} run on the management sampler thread (close
 * after it stopped), which owns the meter lists. Meter functions run on whichever thread scrapes.
 */
public final class BrokerMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    private final LatestFigures figures;
    private final DiskSpaceGuard guard;
    private final List<Meter> hostMeters = new ArrayList<>();
    /** Per virtual host: each queue's meters, with the queue instance they read (queues are replaced on failover). */
    private final Map<String, Map<String, QueueMeters>> queueMeters = new HashMap<>();
    private final Map<String, Map<String, List<Meter>>> replicaMeters = new HashMap<>();

    private record QueueMeters(BrokerQueue queue, List<Meter> meters) {
    }

    public BrokerMetrics(MeterRegistry registry, LatestFigures figures, DiskSpaceGuard guard) {
        this.registry = registry;
        this.figures = figures;
        this.guard = guard;
    }

    /** Registers the broker-wide security counters (authentication failures, refusals, denials). */
    public void bindSecurity(SecurityStatistics statistics) {
        for (AuthFailure kind : AuthFailure.values()) {
            hostMeters.add(FunctionCounter.builder(MetricNames.AUTH_FAILURES, statistics,
                            s -> s.authenticationFailures(kind))
                    .description("Failed authentications").tags(MetricNames.REASON, kind.tag()).register(registry));
        }
        for (String reason : SecurityStatistics.RefusalReason.ALL) {
            hostMeters.add(FunctionCounter.builder(MetricNames.CONNECTIONS_REFUSED, statistics,
                            s -> s.connectionsRefused(reason))
                    .description("Client connections refused").tags(MetricNames.REASON, reason).register(registry));
        }
        for (Permission permission : Permission.values()) {
            hostMeters.add(FunctionCounter.builder(MetricNames.ACCESS_DENIED, statistics, s -> s.denials(permission))
                    .description("Operations refused by the permissions file")
                    .tags(MetricNames.PERMISSION, permission.fileName()).register(registry));
        }
    }

    /** Registers a virtual host's own meters and its store's. */
    public void bind(ManagedVirtualHost host) {
        String name = host.name();
        Tags tags = Tags.of(MetricNames.VHOST, name);
        hostMeters.add(FunctionCounter.builder(MetricNames.MESSAGES_IN, host, h -> h.publishStatistics().messagesIn())
                .description("Messages accepted from publishers").tags(tags).register(registry));
        hostMeters.add(FunctionCounter.builder(MetricNames.MESSAGES_IN_BYTES, host,
                        h -> h.publishStatistics().bytesIn())
                .description("Content bytes of messages accepted from publishers").baseUnit("bytes").tags(tags)
                .register(registry));
        hostMeters.add(FunctionCounter.builder(MetricNames.PUBLISHES_REFUSED, host,
                        h -> h.publishStatistics().publishesRefused())
                .description("Publishes refused below the disk watermark").tags(tags).register(registry));
        hostMeters.add(Gauge.builder(MetricNames.CONNECTIONS, host, ManagedVirtualHost::connectionCount)
                .description("Open client connections").tags(tags).strongReference(true).register(registry));
        hostMeters.add(FunctionTimer.builder(MetricNames.STORE_COMMIT_LATENCY, host,
                        h -> h.publishStatistics().storeCommits(), h -> h.publishStatistics().storeCommitNanos(),
                        TimeUnit.NANOSECONDS)
                .description("Publish commits: from the store commit to durability (fsync, replica acks)")
                .tags(tags).register(registry));

        hostMeters.add(committerCounter(MetricNames.STORE_COMMITS, name, tags, CommitterStatistics::commits,
                "Commits the store completed"));
        hostMeters.add(committerCounter(MetricNames.STORE_COMMIT_FAILURES, name, tags, CommitterStatistics::failures,
                "Commits that failed"));
        hostMeters.add(committerCounter(MetricNames.STORE_FLUSHES, name, tags, CommitterStatistics::flushes,
                "Coalesced flushes, one fsync each"));
        hostMeters.add(committerCounter(MetricNames.STORE_FLUSHED_COMMITS, name, tags, CommitterStatistics::flushedCommits,
                "Commits made durable by coalesced flushes"));
        hostMeters.add(storeGauge(MetricNames.STORE_LARGEST_BATCH, name, tags, null,
                f -> f.committer().map(c -> (double) c.largestBatch()).orElse(Double.NaN),
                "Most commits one flush made durable"));
        hostMeters.add(FunctionCounter.builder(MetricNames.STORE_FSYNCS, figures,
                        latest -> unknownIfNegative(latest.of(name).logFsyncs()))
                .description("fsyncs of JE's log").tags(tags).register(registry));
        for (String role : MetricNames.ROLES) {
            hostMeters.add(storeGauge(MetricNames.STORE_ROLE, name, tags.and(MetricNames.ROLE, role), null,
                    f -> f.role().equals(role) ? 1 : 0, "1 for the store's current role"));
        }
        hostMeters.add(storeGauge(MetricNames.STORE_WRITABLE, name, tags, null, f -> f.writable() ? 1 : 0,
                "1 when commits can succeed"));
        hostMeters.add(diskGauge(MetricNames.STORE_LOG_AVAILABLE, name, tags, DiskFigures::available,
                "Bytes the store may still write before JE's disk limits stop it"));
        hostMeters.add(diskGauge(MetricNames.STORE_LOG_TOTAL, name, tags, DiskFigures::total,
                "Bytes of JE log files"));
        hostMeters.add(diskGauge(MetricNames.STORE_LOG_ACTIVE, name, tags, DiskFigures::active,
                "Bytes of log files with live data"));
        hostMeters.add(diskGauge(MetricNames.STORE_LOG_RESERVED, name, tags, DiskFigures::reserved,
                "Bytes of cleaned log files kept for replicas (absent or lagging)"));
        hostMeters.add(diskGauge(MetricNames.STORE_LOG_PROTECTED, name, tags, DiskFigures::protectedBytes,
                "Bytes of reserved log files in use by a replica or a backup"));
        hostMeters.add(Gauge.builder(MetricNames.DISK_WATERMARK, guard, DiskSpaceGuard::watermark)
                .description("The disk watermark (0: off)").baseUnit("bytes").tags(tags).strongReference(true)
                .register(registry));
        hostMeters.add(Gauge.builder(MetricNames.DISK_LOW, guard, g -> g.isLow(name) ? 1 : 0)
                .description("1 while the store is below the disk watermark").tags(tags).strongReference(true)
                .register(registry));
        if (host.store().flatMap(MessageStore::replication).isPresent()) {
            hostMeters.add(Gauge.builder(MetricNames.HA_DESIGNATED_PRIMARY, host, BrokerMetrics::designatedPrimary)
                    .description("1 when this node is designated primary").tags(tags).strongReference(true)
                    .register(registry));
        }
    }

    /** Adds meters of new queues and replicas, removes those of queues that are gone. */
    public void sync(ManagedVirtualHost host) {
        String name = host.name();
        Map<String, QueueMeters> known = queueMeters.computeIfAbsent(name, n -> new HashMap<>());
        Map<String, BrokerQueue> current = host.queues();
        known.entrySet().removeIf(entry -> {
            if (current.get(entry.getKey()) != entry.getValue().queue()) {
                entry.getValue().meters().forEach(registry::remove);
                return true;
            }
            return false;
        });
        for (Map.Entry<String, BrokerQueue> entry : current.entrySet()) {
            if (!known.containsKey(entry.getKey())) {
                known.put(entry.getKey(), new QueueMeters(entry.getValue(), queueMeters(name, entry.getValue())));
            }
        }
        Map<String, List<Meter>> replicas = replicaMeters.computeIfAbsent(name, n -> new HashMap<>());
        for (String replica : figures.of(name).replicaLags().keySet()) {
            replicas.computeIfAbsent(replica, r -> replicaMeters(name, r));
        }
    }

    private List<Meter> queueMeters(String vhost, BrokerQueue queue) {
        Tags tags = Tags.of(MetricNames.VHOST, vhost, MetricNames.QUEUE, queue.name());
        return List.of(
                Gauge.builder(MetricNames.QUEUE_DEPTH_MESSAGES, queue, BrokerQueue::depthMessages)
                        .description("Messages on the queue").tags(tags).register(registry),
                Gauge.builder(MetricNames.QUEUE_DEPTH_BYTES, queue, BrokerQueue::depthBytes)
                        .description("Content bytes on the queue").baseUnit("bytes").tags(tags).register(registry),
                Gauge.builder(MetricNames.QUEUE_CONSUMERS, queue, BrokerQueue::consumerCount)
                        .description("Consumers attached").tags(tags).register(registry),
                FunctionCounter.builder(MetricNames.QUEUE_MESSAGES_IN, queue, BrokerQueue::enqueuedTotal)
                        .description("Messages enqueued").tags(tags).register(registry),
                FunctionCounter.builder(MetricNames.QUEUE_MESSAGES_OUT, queue, BrokerQueue::dequeuedTotal)
                        .description("Messages removed (consumed, expired, dead-lettered)").tags(tags)
                        .register(registry),
                FunctionCounter.builder(MetricNames.QUEUE_BYTES_IN, queue, BrokerQueue::enqueuedBytes)
                        .description("Content bytes enqueued").baseUnit("bytes").tags(tags).register(registry),
                FunctionCounter.builder(MetricNames.QUEUE_BYTES_OUT, queue, BrokerQueue::dequeuedBytes)
                        .description("Content bytes removed").baseUnit("bytes").tags(tags).register(registry),
                FunctionCounter.builder(MetricNames.QUEUE_MESSAGES_BROWSED, queue, BrokerQueue::browsedTotal)
                        .description("Copies delivered to browsers").tags(tags).register(registry),
                FunctionCounter.builder(MetricNames.QUEUE_MESSAGES_REPLACED, queue,
                                BrokerQueue::lastValueReplacementsTotal)
                        .description("Messages replaced by a newer one with the same last-value key")
                        .tags(tags).register(registry),
                Gauge.builder(MetricNames.QUEUE_MESSAGES_DELAYED, queue, BrokerQueue::delayedCount)
                        .description("Messages waiting for their delivery time").tags(tags).register(registry),
                Gauge.builder(MetricNames.QUEUE_MESSAGES_PAGED, queue, BrokerQueue::pagedCount)
                        .description("Messages beyond the heap window, kept in the store only").tags(tags)
                        .register(registry),
                Gauge.builder(MetricNames.QUEUE_GROUPS_ACTIVE, queue, BrokerQueue::activeGroupCount)
                        .description("Message groups assigned to a consumer").tags(tags).register(registry));
    }

    private List<Meter> replicaMeters(String vhost, String replica) {
        Tags tags = Tags.of(MetricNames.VHOST, vhost, MetricNames.REPLICA, replica);
        return List.of(
                Gauge.builder(MetricNames.HA_REPLICA_LAG_VLSN, figures,
                                latest -> lag(latest, vhost, replica, ReplicaLag::vlsnLag))
                        .description("Replication stream entries the replica has not acknowledged").tags(tags)
                        .strongReference(true).register(registry),
                TimeGauge.builder(MetricNames.HA_REPLICA_LAG_TIME, figures, TimeUnit.MILLISECONDS,
                                latest -> lag(latest, vhost, replica, ReplicaLag::delayMillis))
                        .description("Age of the last transaction the replica acknowledged, when it did")
                        .tags(tags).strongReference(true).register(registry));
    }

    private static double lag(LatestFigures latest, String vhost, String replica,
                              ToDoubleFunction<ReplicaLag> value) {
        ReplicaLag lag = latest.of(vhost).replicaLags().get(replica);
        return lag == null ? Double.NaN : unknownIfNegative((long) value.applyAsDouble(lag));
    }

    private Meter committerCounter(String metric, String vhost, Tags tags, ToDoubleFunction<CommitterStatistics> value,
                                   String description) {
        return FunctionCounter.builder(metric, figures, latest -> latest.of(vhost).committer()
                        .map(value::applyAsDouble).orElse(Double.NaN))
                .description(description).tags(tags).register(registry);
    }

    private Meter storeGauge(String metric, String vhost, Tags tags, String baseUnit,
                             ToDoubleFunction<StoreFigures> value, String description) {
        return Gauge.builder(metric, figures, latest -> value.applyAsDouble(latest.of(vhost)))
                .description(description).baseUnit(baseUnit).tags(tags).strongReference(true).register(registry);
    }

    private Meter diskGauge(String metric, String vhost, Tags tags, ToDoubleFunction<DiskFigures> value,
                            String description) {
        return storeGauge(metric, vhost, tags, "bytes", f -> f.disk()
                .map(d -> unknownIfNegative((long) value.applyAsDouble(d))).orElse(Double.NaN), description);
    }

    private static double designatedPrimary(ManagedVirtualHost host) {
        return host.store().flatMap(MessageStore::replication).map(r -> r.isDesignatedPrimary() ? 1.0 : 0.0)
                .orElse(Double.NaN);
    }

    private static double unknownIfNegative(long value) {
        return value < 0 ? Double.NaN : value;
    }

    /** Removes every meter this instance registered. */
    @Override
    public void close() {
        hostMeters.forEach(registry::remove);
        hostMeters.clear();
        queueMeters.values().forEach(byQueue -> byQueue.values()
                .forEach(q -> q.meters().forEach(registry::remove)));
        queueMeters.clear();
        replicaMeters.values().forEach(byReplica -> byReplica.values().forEach(m -> m.forEach(registry::remove)));
        replicaMeters.clear();
    }
}
