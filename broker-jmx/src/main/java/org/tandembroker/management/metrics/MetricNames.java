package org.tandembroker.management.metrics;

import java.util.List;

/**
 * Every metric Tandem publishes, in one place. Names are Micrometer's (dotted); Prometheus shows them in snake case
 * with its suffixes: counters end in {@code _total}, byte gauges in {@code _bytes}, timers in {@code _seconds}
 * ({@code tandem.store.commit.latency} becomes {@code tandem_store_commit_latency_seconds_count} and
 * {@code _sum}). Every meter but the security counters carries the tag {@value #VHOST}; queue meters also {@value #QUEUE}, replica meters
 * {@value #REPLICA}. Never rename one: dashboards and alerts use them.
 */
public final class MetricNames {
    // ---- tags ----
    public static final String VHOST = "vhost";
    public static final String QUEUE = "queue";
    public static final String REPLICA = "replica";
    public static final String ROLE = "role";
    /** Tag of the security counters: why (an AuthFailure or a refusal reason, lower case). */
    public static final String REASON = "reason";
    /** Tag of {@link #ACCESS_DENIED}: the permission refused. */
    public static final String PERMISSION = "permission";

    // ---- security (broker-wide: no vhost tag) ----
    /**
     * Counter, per {@value #REASON}: failed authentications (unknown_user, wrong_password, loopback_only,
     * no_credential, mechanism, malformed, other).
     */
    public static final String AUTH_FAILURES = "tandem.auth.failures";
    /**
     * Counter, per {@value #REASON}: connections refused (authentication, connection_limit, unknown_virtual_host,
     * not_active, protocol).
     */
    public static final String CONNECTIONS_REFUSED = "tandem.connections.refused";
    /** Counter, per {@value #PERMISSION}: operations refused by the permissions file. */
    public static final String ACCESS_DENIED = "tandem.access.denied";

    // ---- virtual host ----
    /** Counter: messages accepted from publishers (each counted once, whatever the number of queues). */
    public static final String MESSAGES_IN = "tandem.messages.in";
    /** Counter (bytes): their content bytes. */
    public static final String MESSAGES_IN_BYTES = "tandem.messages.in.bytes";
    /** Counter: publishes refused because the store's disk space is below the watermark. */
    public static final String PUBLISHES_REFUSED = "tandem.publishes.refused";
    /** Gauge: open client connections. */
    public static final String CONNECTIONS = "tandem.connections";

    // ---- queues ----
    /** Gauge: messages on the queue (including those delivered and not yet settled). */
    public static final String QUEUE_DEPTH_MESSAGES = "tandem.queue.depth.messages";
    /** Gauge (bytes): their content bytes. */
    public static final String QUEUE_DEPTH_BYTES = "tandem.queue.depth.bytes";
    /** Gauge: consumers attached. */
    public static final String QUEUE_CONSUMERS = "tandem.queue.consumers";
    /** Counter: messages enqueued since the queue was created or recovered on this node. */
    public static final String QUEUE_MESSAGES_IN = "tandem.queue.messages.in";
    /** Counter: messages removed (consumed, expired or dead-lettered) since then. */
    public static final String QUEUE_MESSAGES_OUT = "tandem.queue.messages.out";
    /** Counter (bytes): content bytes enqueued since the queue was created or recovered on this node. */
    public static final String QUEUE_BYTES_IN = "tandem.queue.bytes.in";
    /** Counter (bytes): content bytes removed since then. */
    public static final String QUEUE_BYTES_OUT = "tandem.queue.bytes.out";
    /** Counter: copies delivered to browsers (JMS QueueBrowser, distribution-mode copy) since then. */
    public static final String QUEUE_MESSAGES_BROWSED = "tandem.queue.messages.browsed";
    /** Counter: messages a newer one with the same last-value key replaced before delivery, since then. */
    public static final String QUEUE_MESSAGES_REPLACED = "tandem.queue.messages.replaced";
    /** Gauge: messages waiting for their delivery time (JMS delivery delay; counted in the depth too). */
    public static final String QUEUE_MESSAGES_DELAYED = "tandem.queue.messages.delayed";
    /** Gauge: messages beyond the queue's heap window, kept in the store only (counted in the depth too). */
    public static final String QUEUE_MESSAGES_PAGED = "tandem.queue.messages.paged";
    /** Gauge: message groups (JMSXGroupID) assigned to a consumer. */
    public static final String QUEUE_GROUPS_ACTIVE = "tandem.queue.groups.active";

    // ---- store ----
    /** Timer: latency of publish commits (from the store commit to its future completing: fsync and acks). */
    public static final String STORE_COMMIT_LATENCY = "tandem.store.commit.latency";
    /** Counter: commits the store's committer completed (all kinds: publishes, acknowledgements, declarations). */
    public static final String STORE_COMMITS = "tandem.store.commits";
    /** Counter: commits that failed. */
    public static final String STORE_COMMIT_FAILURES = "tandem.store.commit.failures";
    /** Counter: coalesced flushes (one fsync each). Batch size = rate(flushed.commits) / rate(flushes). */
    public static final String STORE_FLUSHES = "tandem.store.flushes";
    /** Counter: commits made durable by those flushes. */
    public static final String STORE_FLUSHED_COMMITS = "tandem.store.flushed.commits";
    /** Gauge: the largest number of commits one flush made durable. */
    public static final String STORE_LARGEST_BATCH = "tandem.store.batch.largest";
    /** Counter: fsyncs of JE's log (every cause: commits, flushes, checkpoints). */
    public static final String STORE_FSYNCS = "tandem.store.fsyncs";
    /** Gauge, one per {@value #ROLE}: 1 for the store's current role, 0 for the others. */
    public static final String STORE_ROLE = "tandem.store.role";
    /** Gauge: 1 when commits can succeed now. */
    public static final String STORE_WRITABLE = "tandem.store.writable";
    /** Gauge (bytes): what the store may still write before JE's disk limits stop it. */
    public static final String STORE_LOG_AVAILABLE = "tandem.store.log.available";
    /** Gauge (bytes): JE log files on disk. */
    public static final String STORE_LOG_TOTAL = "tandem.store.log.total";
    /** Gauge (bytes): log files with live data. */
    public static final String STORE_LOG_ACTIVE = "tandem.store.log.active";
    /** Gauge (bytes): cleaned log files kept for replicas that may need them (absent or lagging replicas). */
    public static final String STORE_LOG_RESERVED = "tandem.store.log.reserved";
    /** Gauge (bytes): reserved files that may not be deleted now (in use by a replica or a backup). */
    public static final String STORE_LOG_PROTECTED = "tandem.store.log.protected";
    /** Gauge (bytes): the disk watermark (0: off). */
    public static final String DISK_WATERMARK = "tandem.store.disk.watermark";
    /** Gauge: 1 while the store is below the watermark (a master refuses publishes; a replica is at risk). */
    public static final String DISK_LOW = "tandem.store.disk.low";

    // ---- HA ----
    /** Gauge: 1 when this node is designated primary. */
    public static final String HA_DESIGNATED_PRIMARY = "tandem.ha.designated.primary";
    /** Gauge, on the master, per replica: replication stream entries (VLSNs) the replica has not acknowledged. */
    public static final String HA_REPLICA_LAG_VLSN = "tandem.ha.replica.lag.vlsn";
    /** Time gauge, on the master, per replica: how old the last transaction the replica acknowledged was. */
    public static final String HA_REPLICA_LAG_TIME = "tandem.ha.replica.lag.time";

    /** The roles {@link #STORE_ROLE} reports. */
    public static final List<String> ROLES = List.of("STANDALONE", "MASTER", "REPLICA", "UNKNOWN", "DETACHED",
            "CLOSED");

    private MetricNames() {
    }
}
