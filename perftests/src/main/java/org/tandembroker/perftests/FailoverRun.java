package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Measures one cell of the failover matrix on a fresh group of {@code bdb-ha} brokers ({@link HaCluster}, HA
 * default durability, coalescing sync, JMX on): waits until node 1 is master and the others replicas, queues the
 * cell's messages on the master with asynchronous publishers and checks that every send was confirmed, waits
 * until every replica has the master's last transaction, then {@code kill -9} of the master. A two-node group
 * then gets its replica designated primary over JMX (the times run from the start of that call); a larger group
 * elects a master by itself (the times run from the kill). A client connected through the failover URL since
 * before the kill (to node 1, so its reconnect is part of the time) then opens a consumer and measures the time to
 * the first message and until every confirmed message has arrived, counting duplicates. With nothing queued (depth
 * 0) the first message is one that the same client publishes after the kill.
 *
 * <p>Threads: the benchmark's main thread; each {@link AsyncPublisher} has its own.
 */
public final class FailoverRun {
    static final String DURABILITY = "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY";
    private static final String QUEUE = "perf-failover";
    private static final int PUBLISHERS = 4;
    private static final Duration SETTLE_LIMIT = Duration.ofMinutes(2);
    private static final Duration DUPLICATE_TAIL = Duration.ofSeconds(1);

    private final Path lib;
    private final List<String> jvmOptions;
    private final Path temp;
    private final Path results;
    private final Duration drainTimeout;
    private final Progress progress;

    public FailoverRun(Path lib, List<String> jvmOptions, Path temp, Path results, Duration drainTimeout,
                       Progress progress) {
        this.lib = lib;
        this.jvmOptions = jvmOptions;
        this.temp = temp;
        this.results = results;
        this.drainTimeout = drainTimeout;
        this.progress = progress;
    }

    /** Runs cell {@code number} of {@code count}; a failure of the harness becomes a failed result. */
    public FailoverResult run(FailoverCell cell, int number, int count) {
        progress.run(String.format(Locale.ROOT, "cell %d of %d: %s", number, count, cell.label()), Duration.ZERO);
        progress.println(String.format(Locale.ROOT, "== cell %d of %d: %s", number, count, cell.label()));
        try {
            FailoverResult result = measure(cell, String.format(Locale.ROOT, "failover-%02d", number));
            progress.println(summary(result));
            return result;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String reason = e.toString().lines().findFirst().orElse(e.getClass().getName());
            progress.println("cell " + number + " failed: " + reason);
            return FailoverResult.failed(cell, reason);
        }
    }

    private FailoverResult measure(FailoverCell cell, String logPrefix) throws Exception {
        List<String> repConfig = cell.byDesignation() ? List.of("je.rep.electionsPrimaryRetries=0") : List.of();
        try (HaCluster cluster = HaCluster.write(Files.createTempDirectory(temp, "tandem-perf-failover-"), lib,
                jvmOptions, cell.nodes(), DURABILITY, true, true, repConfig)) {
            try {
                return measure(cell, cluster);
            } finally {
                progress.update("stopping the group");
                cluster.stopAll(results, logPrefix);
            }
        }
    }

    private FailoverResult measure(FailoverCell cell, HaCluster cluster) throws Exception {
        progress.update("starting " + cell.nodes() + " nodes");
        cluster.start(Duration.ZERO);
        DeliveryLedger ledger = new DeliveryLedger(PUBLISHERS);
        Duration fill = Duration.ZERO;
        List<String> notes = new ArrayList<>();
        try (CatchUpProbe master = CatchUpProbe.awaitRoles(cluster, SETTLE_LIMIT, progress)) {
            if (cell.depth() > 0) {
                long started = System.nanoTime();
                String shortfall = fill(cluster, cell, ledger);
                fill = Duration.ofNanos(System.nanoTime() - started);
                if (shortfall != null) {
                    return FailoverResult.failed(cell, shortfall);
                }
            }
            awaitReplicasCaughtUp(cluster, master, SETTLE_LIMIT, progress).ifPresent(notes::add);
        }
        progress.println("node states before the kill: " + states(cluster));

        // The client is connected (to node 1, the master) before the kill, as an application's would be: its
        // failover transport reconnects by itself, and that reconnect is part of the time measured.
        Clients failover = new Clients(boundedFailoverUri(cluster.failoverUri(), drainTimeout), cluster.user(),
                cluster.password(), cell.bodySize(), 0);
        Arrivals arrivals;
        Optional<Duration> designationCall = Optional.empty();
        long origin;
        try (Connection connection = failover.connection("perf-failover-client")) {
            progress.update("kill -9 of node-1 (the master)");
            long killed = System.nanoTime();
            cluster.kill(0);
            origin = killed;
            if (cell.byDesignation()) {
                progress.update("designating node-2 primary over JMX");
                origin = System.nanoTime();
                cluster.designate(1);
                designationCall = Optional.of(Duration.ofNanos(System.nanoTime() - origin));
            }
            arrivals = cell.depth() == 0 ? publishAfterFailover(connection, failover, origin)
                    : drain(connection, ledger, origin);
        }
        progress.println("node states after: " + states(cluster));

        DeliveryLedger.Check check = (cell.depth() == 0 ? arrivals.ledger() : ledger).check();
        if (arrivals.timedOut()) {
            notes.add(String.format(Locale.ROOT, "drain timeout %s: %,d of %,d arrived",
                    Progress.human(drainTimeout),
                    check.received() - check.unconfirmedArrivals(), check.confirmed()));
        }
        if (check.unconfirmedArrivals() > 0) {
            notes.add(String.format(Locale.ROOT, "%,d unconfirmed messages arrived", check.unconfirmedArrivals()));
        }
        return new FailoverResult(cell, FailoverResult.Status.MEASURED, String.join("; ", notes), fill,
                designationCall, since(origin, arrivals.first()), since(origin, arrivals.drained()),
                check.confirmed(), check.received() - check.unconfirmedArrivals(), check.duplicates());
    }

    /** Queues the cell's messages on node 1; returns null when every send was confirmed, else what went wrong. */
    private String fill(HaCluster cluster, FailoverCell cell, DeliveryLedger ledger) throws InterruptedException {
        Clients direct = new Clients(cluster.node(0).uri(), cluster.user(), cluster.password(), cell.bodySize(), 0);
        return AsyncPublisher.fillQueue(direct, QUEUE, PUBLISHERS, cell.depth(),
                AsyncPublisher.inFlightFor(cell.bodySize()), ledger, "queueing", progress).orElse(null);
    }

    /**
     * Waits until every replica has applied the master's (node 1's) last transaction; a note when one had not within
     * {@code limit}.
     */
    static Optional<String> awaitReplicasCaughtUp(HaCluster cluster, CatchUpProbe master, Duration limit,
                                                  Progress progress) throws Exception {
        long target = master.ping(cluster.nodeName(0)).txnEndVlsn();
        long deadline = System.nanoTime() + limit.toNanos();
        for (int i = 1; i < cluster.size(); i++) {
            String replica = cluster.nodeName(i);
            while (true) {
                long at = master.ping(replica).txnEndVlsn();
                if (at >= target) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    return Optional.of(String.format(Locale.ROOT, "%s was %,d VLSNs behind at the kill", replica,
                            target - at));
                }
                progress.update(String.format(Locale.ROOT, "replicas catching up: %s at VLSN %,d of %,d", replica,
                        at, target));
                Thread.sleep(100);
            }
        }
        return Optional.empty();
    }

    /** Arrival times ({@link System#nanoTime}, 0 when none) of a consumer after the failover. */
    private record Arrivals(long first, long drained, boolean timedOut, DeliveryLedger ledger) {
    }

    /** Consumes on the failover URL until every confirmed message of {@code ledger} arrived, or the timeout. */
    private Arrivals drain(Connection connection, DeliveryLedger ledger, long origin) throws JMSException {
        long deadline = origin + drainTimeout.toNanos();
        long expected = ledger.confirmedCount();
        long first = 0;
        long drained = 0;
        long received = 0;
        progress.update("waiting for the new master");
        try (Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
            MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
            long nextUpdate = 0;
            while (drained == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                Message message = consumer.receive(Math.max(1, Math.min(1000, left / 1_000_000)));
                long now = System.nanoTime();
                if (message != null) {
                    if (first == 0) {
                        first = now;
                    }
                    ledger.arrived(message.getIntProperty(Clients.PRODUCER),
                            message.getLongProperty(Clients.SEQUENCE));
                    received++;
                    if (received >= expected && ledger.check().missing() == 0) {
                        drained = now;
                    }
                }
                if (now > nextUpdate) {
                    nextUpdate = now + 1_000_000_000L;
                    progress.update(first == 0 ? String.format(Locale.ROOT, "waiting for the first message: %.1f s",
                            (now - origin) / 1e9) : String.format(Locale.ROOT, "draining: %,d of %,d received",
                            received, expected));
                }
            }
            countLateDuplicates(consumer, ledger);
        }
        return new Arrivals(first, drained, drained == 0, ledger);
    }

    /** Depth 0: a producer on the failover URL publishes one message after the kill; a consumer receives it. */
    private Arrivals publishAfterFailover(Connection connection, Clients failover, long origin)
            throws JMSException {
        DeliveryLedger ledger = new DeliveryLedger(1);
        long first = 0;
        progress.update("publishing one message through the failover URL");
        try (Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
            MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
            MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            producer.send(failover.message(session, 0, 0)); // persistent: returns once the broker settled it
            ledger.confirmed(0, 0);
            long left = origin + drainTimeout.toNanos() - System.nanoTime();
            Message message = consumer.receive(Math.max(1, left / 1_000_000));
            if (message != null) {
                first = System.nanoTime();
                ledger.arrived(message.getIntProperty(Clients.PRODUCER), message.getLongProperty(Clients.SEQUENCE));
            }
            countLateDuplicates(consumer, ledger);
        }
        return new Arrivals(first, 0, first == 0, ledger);
    }

    /** Messages arriving shortly after the drain: redeliveries, counted in the ledger, not in the times. */
    private static void countLateDuplicates(MessageConsumer consumer, DeliveryLedger ledger) throws JMSException {
        Message message;
        while ((message = consumer.receive(DUPLICATE_TAIL.toMillis())) != null) {
            ledger.arrived(message.getIntProperty(Clients.PRODUCER), message.getLongProperty(Clients.SEQUENCE));
        }
    }

    /**
     * A failover URL (with options already) with the client's requests (opening a session or consumer, a send)
     * bounded by the drain timeout, so that a group that never gets a master again ends the cell instead of hanging it.
     */
    static String boundedFailoverUri(String failoverUri, Duration drainTimeout) {
        long millis = drainTimeout.toMillis();
        return failoverUri + "&failover.startupMaxReconnectAttempts=" + Math.max(100, millis / 20)
                + "&jms.requestTimeout=" + millis + "&jms.sendTimeout=" + millis;
    }

    private static Optional<Duration> since(long origin, long nanos) {
        return nanos == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(nanos - origin));
    }

    /** Each node's {@code NodeState} over JMX (a killed node shows as unreachable). */
    static String states(HaCluster cluster) {
        List<String> states = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            if (!cluster.node(i).isAlive()) {
                states.add(cluster.nodeName(i) + "=(not running)");
                continue;
            }
            try {
                states.add(cluster.nodeName(i) + "=" + cluster.storeAttribute(i, "NodeState"));
            } catch (Exception e) {
                states.add(cluster.nodeName(i) + "=? (" + e.getClass().getSimpleName() + ")");
            }
        }
        return String.join(", ", states);
    }

    private static String summary(FailoverResult r) {
        return String.format(Locale.ROOT, "%s: first message %s, drained %s after the %s; %,d of %,d recovered,"
                        + " %,d duplicates%s", r.cell().label(),
                r.toFirst().map(FailoverReport::seconds).orElse("none"),
                r.cell().depth() == 0 ? "-" : r.toDrained().map(FailoverReport::seconds).orElse("not"),
                r.cell().measuredFrom(), r.recovered(), r.expected(), r.duplicates(),
                r.note().isEmpty() ? "" : " (" + r.note() + ")");
    }
}
