package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.qpid.jms.JmsConnection;
import org.apache.qpid.jms.JmsConnectionListener;
import org.apache.qpid.jms.message.JmsInboundMessageDispatch;

/**
 * Failover while clients work (issue 15, part 2): a fresh group of one {@link FailoverTopology}, {@code producers}
 * producers sending persistent messages synchronously and one consumer (AUTO_ACKNOWLEDGE) receiving them, every
 * client on its own connection through the group's failover URL ({@link HaCluster#plainFailoverUri()} plus
 * {@code urlOptions}: Qpid JMS's own reconnect defaults unless told otherwise). After {@code beforeKill} of load,
 * {@code kill -9} of the master (node-1); with two nodes and no arbiter the harness designates node-2 at once, as
 * an operator's script would. It measures, from the kill:
 * <ul>
 * <li>the first message the consumer (prefetch 0, so that nothing received earlier is buffered) received after
 * the killed process had ended, i.e. from the survivor;</li>
 * <li>the longest gap between two confirmed sends of one producer (the worst producer), and when the last
 * producer had its first send after the kill confirmed;</li>
 * <li>when the clients' connections were restored (Qpid JMS's {@code onConnectionRestored}).</li>
 * </ul>
 * After {@code afterKill} more load the producers stop and the consumer drains: every confirmed send must arrive
 * (duplicates are counted). Timings are figures for {@code docs/performance.md}, never assertions.
 *
 * <p>Threads: the benchmark's main thread; one thread per producer and one for the consumer.
 */
public final class FailoverUnderLoadRun {
    static final String QUEUE = "perf-failover-load";
    private static final Duration SETTLE_LIMIT = Duration.ofMinutes(2);
    private static final Duration RESUME_LIMIT = Duration.ofSeconds(90);
    private static final Duration DRAIN_LIMIT = Duration.ofMinutes(3);

    private final Path lib;
    private final List<String> jvmOptions;
    private final Path temp;
    private final Path results;
    private final Progress progress;

    /** How a run is driven. */
    public record Load(int producers, int bodySize, Duration beforeKill, Duration afterKill, String urlOptions) {
    }

    public FailoverUnderLoadRun(Path lib, List<String> jvmOptions, Path temp, Path results, Progress progress) {
        this.lib = lib;
        this.jvmOptions = jvmOptions;
        this.temp = temp;
        this.results = results;
        this.progress = progress;
    }

    /** Runs {@code topology} once ({@code label} names its logs); a failure of the harness is a failed result. */
    public FailoverUnderLoadResult run(FailoverTopology topology, Load load, List<String> repConfig, String label) {
        progress.run(label + ": " + topology.label(), Duration.ZERO);
        progress.println("== " + label + ": " + topology.label() + ", " + load.producers() + " producers");
        try (HaCluster cluster = HaCluster.write(Files.createTempDirectory(temp, "tandem-perf-failover-load-"), lib,
                jvmOptions, topology.brokers(), FailoverRun.DURABILITY, true, true, repConfig)) {
            try {
                FailoverUnderLoadResult result = measure(topology, load, cluster, label);
                progress.println(result.summary());
                return result;
            } finally {
                progress.update("stopping the group");
                cluster.stopAll(results, label);
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String reason = e.toString().lines().findFirst().orElse(e.getClass().getName());
            progress.println(label + " failed: " + reason);
            return FailoverUnderLoadResult.failed(topology, reason);
        }
    }

    private FailoverUnderLoadResult measure(FailoverTopology topology, Load load, HaCluster cluster, String label)
            throws Exception {
        progress.update("starting " + topology.label());
        cluster.start(Duration.ZERO);
        try (CatchUpProbe master = CatchUpProbe.awaitRoles(cluster, SETTLE_LIMIT, progress)) {
            if (topology.arbiter()) {
                cluster.startArbiter();
                awaitArbiterFollowing(master);
            }
        }
        String uri = cluster.plainFailoverUri() + (load.urlOptions().isBlank() ? "" : "?" + load.urlOptions());
        Clients clients = new Clients(uri, cluster.user(), cluster.password(), load.bodySize(), 0);
        DeliveryLedger ledger = new DeliveryLedger(load.producers());
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        Clients pulling = new Clients(Clients.withOption(uri, "jms.prefetchPolicy.all=0"), cluster.user(),
                cluster.password(), load.bodySize(), 0);
        ConsumerSide consumer = new ConsumerSide(pulling, ledger, killedAt);
        List<ProducerSide> producers = new ArrayList<>();
        for (int i = 0; i < load.producers(); i++) {
            producers.add(new ProducerSide(clients, i, ledger, killedAt));
        }
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        threads.add(start("perf-load-consumer", () -> consumer.run(errors)));
        for (ProducerSide producer : producers) {
            threads.add(start("perf-load-producer-" + producer.index, () -> producer.run(errors)));
        }
        String note = "";
        Optional<Duration> designationCall = Optional.empty();
        Instant killWallClock;
        long killed;
        try {
            // Every client works before the kill (on a loaded machine 32 connections take a while to open).
            long started = System.nanoTime() + SETTLE_LIMIT.toNanos();
            while (System.nanoTime() < started && errors.isEmpty() && !(consumer.received() > 0
                    && producers.stream().allMatch(p -> p.confirmedSends() > 0))) {
                progress.update("waiting for every client to work");
                Thread.sleep(50);
            }
            progress.countDown("load before the kill", load.beforeKill(), ledger::confirmedCount);
            if (!errors.isEmpty()) {
                throw new IllegalStateException("a client failed before the kill: " + errors.peek());
            }
            progress.update("kill -9 of node-1 (the master)");
            killWallClock = Instant.now();
            killed = System.nanoTime();
            cluster.kill(0);
            killedAt.set(System.nanoTime());
            if (topology.byDesignation()) {
                long call = System.nanoTime();
                cluster.designate(1);
                designationCall = Optional.of(Duration.ofNanos(System.nanoTime() - call));
            }
            long deadline = killed + RESUME_LIMIT.toNanos();
            while (System.nanoTime() < deadline && !(consumer.firstAfterRestore() != 0
                    && producers.stream().allMatch(p -> p.firstConfirmAfterKill() != 0))) {
                long resumed = producers.stream().filter(p -> p.firstConfirmAfterKill() != 0).count();
                progress.update(String.format(Locale.ROOT, "after the kill: %.1f s, %d of %d producers resumed, "
                        + "consumer %s", (System.nanoTime() - killed) / 1e9, resumed, producers.size(),
                        consumer.firstAfterRestore() != 0 ? "resumed" : "waiting"));
                Thread.sleep(100);
            }
            if (System.nanoTime() >= deadline) {
                note = "not every client resumed within " + Progress.human(RESUME_LIMIT);
            }
            progress.countDown("load after the failover", load.afterKill(), ledger::confirmedCount);
        } finally {
            producers.forEach(ProducerSide::stop);
            for (int i = 1; i < threads.size(); i++) {
                threads.get(i).join(RESUME_LIMIT.toMillis());
            }
        }
        long confirmed = ledger.confirmedCount();
        progress.awaitDrain(DRAIN_LIMIT, () -> confirmed, ledger::confirmedArrivals, () -> true);
        consumer.stop();
        threads.get(0).join(RESUME_LIMIT.toMillis());
        progress.println("node states after: " + FailoverRun.states(cluster) + "; killed at " + killWallClock);
        DeliveryLedger.Check check = ledger.check();
        if (check.missing() > 0) {
            Path evidence = results.resolve(label + "-missing.txt");
            String described = LossEvidence.describe(ledger, killed, producers.size(), cluster);
            Files.writeString(evidence, described + LossEvidence.drainWithAFreshConsumer(clients, ledger));
            cluster.keepFiles();
            progress.println(check.missing() + " confirmed messages missing: see " + evidence
                    + "; the nodes' stores are kept in " + cluster.directory());
            note = "lost messages: " + evidence.getFileName() + ", stores kept";
        }
        if (!errors.isEmpty()) {
            note = (note.isEmpty() ? "" : note + "; ") + errors.size() + " client errors, first: " + errors.peek();
        }
        long[] resumedNanos = producers.stream().mapToLong(ProducerSide::firstConfirmAfterKill)
                .filter(t -> t != 0).map(t -> t - killed).sorted().toArray();
        long[] restoredNanos = producers.stream().mapToLong(ProducerSide::restoredAt)
                .filter(t -> t != 0).map(t -> t - killed).sorted().toArray();
        return new FailoverUnderLoadResult(topology, FailoverUnderLoadResult.Status.MEASURED, note,
                load.producers(), designationCall, since(killed, consumer.restoredAt()),
                since(killed, consumer.firstAfterRestore()),
                restoredNanos.length == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(
                        restoredNanos[restoredNanos.length - 1])),
                percentile(resumedNanos, 50), resumedNanos.length < producers.size() ? Optional.empty()
                : percentile(resumedNanos, 100),
                Duration.ofNanos(producers.stream().mapToLong(ProducerSide::longestGap).max().orElse(0)),
                check.confirmed(), check.missing(), check.duplicates(), check.unconfirmedArrivals());
    }

    private void awaitArbiterFollowing(CatchUpProbe master) throws Exception {
        long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                last = master.ping(HaCluster.ARBITER).state();
                if (last.equals("REPLICA")) {
                    return;
                }
            } catch (Exception e) {
                last = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            progress.update("waiting for the arbiter to follow node-1: " + last);
            Thread.sleep(100);
        }
        throw new IllegalStateException("the arbiter did not follow node-1 within " + SETTLE_LIMIT + ": " + last);
    }

    private static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static Optional<Duration> since(long origin, long nanos) {
        return nanos == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(nanos - origin));
    }

    private static Optional<Duration> percentile(long[] sorted, int percent) {
        if (sorted.length == 0) {
            return Optional.empty();
        }
        int index = Math.min(sorted.length - 1, (int) Math.ceil(percent / 100.0 * sorted.length) - 1);
        return Optional.of(Duration.ofNanos(sorted[Math.max(0, index)]));
    }

    /** When Qpid JMS restored a connection after the kill ({@link System#nanoTime}; 0 until then). */
    private static final class RestoreWatch implements JmsConnectionListener {
        private final AtomicLong killedAt;
        private volatile long restoredAt;

        RestoreWatch(AtomicLong killedAt) {
            this.killedAt = killedAt;
        }

        @Override
        public void onConnectionRestored(URI remoteURI) {
            long now = System.nanoTime();
            if (now > killedAt.get() && restoredAt == 0) {
                restoredAt = now;
            }
        }

        @Override
        public void onConnectionEstablished(URI remoteURI) {
        }

        @Override
        public void onConnectionFailure(Throwable error) {
        }

        @Override
        public void onConnectionInterrupted(URI remoteURI) {
        }

        @Override
        public void onInboundMessage(JmsInboundMessageDispatch envelope) {
        }

        @Override
        public void onSessionClosed(Session session, Throwable cause) {
        }

        @Override
        public void onConsumerClosed(MessageConsumer consumer, Throwable cause) {
        }

        @Override
        public void onProducerClosed(MessageProducer producer, Throwable cause) {
        }
    }

    /** One producer: synchronous persistent sends, each confirmation timed. Fields: its own thread. */
    private static final class ProducerSide {
        private final Clients clients;
        private final int index;
        private final DeliveryLedger ledger;
        private final AtomicLong killedAt;
        private final RestoreWatch watch;
        private volatile boolean stopped;
        private volatile long longestGap;
        private volatile long firstConfirmAfterKill;
        private volatile long confirmedSends;

        ProducerSide(Clients clients, int index, DeliveryLedger ledger, AtomicLong killedAt) {
            this.clients = clients;
            this.index = index;
            this.ledger = ledger;
            this.killedAt = killedAt;
            this.watch = new RestoreWatch(killedAt);
        }

        void run(ConcurrentLinkedQueue<String> errors) {
            try (Connection connection = clients.syncSendConnection("perf-load-producer-" + index)) {
                ((JmsConnection) connection).addConnectionListener(watch);
                try (Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
                    MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
                    producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                    long last = System.nanoTime();
                    for (long sequence = 0; !stopped; sequence++) {
                        producer.send(clients.message(session, index, sequence));
                        long now = System.nanoTime();
                        ledger.confirmed(index, sequence);
                        confirmedSends = sequence + 1;
                        longestGap = Math.max(longestGap, now - last);
                        // The master is dead once the kill returned: a confirmation after it came from the survivor.
                        if (firstConfirmAfterKill == 0 && now > killedAt.get()) {
                            firstConfirmAfterKill = now;
                        }
                        last = now;
                    }
                }
            } catch (JMSException | RuntimeException e) {
                if (!stopped) {
                    errors.add("producer " + index + ": " + e);
                }
            }
        }

        void stop() {
            stopped = true;
        }

        long confirmedSends() {
            return confirmedSends;
        }

        long longestGap() {
            return longestGap;
        }

        long firstConfirmAfterKill() {
            return firstConfirmAfterKill;
        }

        long restoredAt() {
            return watch.restoredAt;
        }
    }

    /** The consumer: receives until stopped, noting the first message after its connection was restored. */
    private static final class ConsumerSide {
        private final Clients clients;
        private final DeliveryLedger ledger;
        private final RestoreWatch watch;
        private final AtomicLong killedAt;
        private volatile boolean stopped;
        private volatile long firstAfterRestore;
        private volatile long received;

        ConsumerSide(Clients clients, DeliveryLedger ledger, AtomicLong killedAt) {
            this.clients = clients;
            this.ledger = ledger;
            this.killedAt = killedAt;
            this.watch = new RestoreWatch(killedAt);
        }

        void run(ConcurrentLinkedQueue<String> errors) {
            try (Connection connection = clients.connection("perf-load-consumer")) {
                ((JmsConnection) connection).addConnectionListener(watch);
                try (Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
                    MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
                    while (!stopped) {
                        Message message = consumer.receive(100);
                        if (message == null) {
                            continue;
                        }
                        long now = System.nanoTime();
                        // Prefetch 0: each receive asks the broker, so a message after the kill is the survivor's.
                        if (firstAfterRestore == 0 && now > killedAt.get()) {
                            firstAfterRestore = now;
                        }
                        ledger.arrived(message.getIntProperty(Clients.PRODUCER),
                                message.getLongProperty(Clients.SEQUENCE));
                        received++;
                    }
                }
            } catch (JMSException | RuntimeException e) {
                if (!stopped) {
                    errors.add("consumer: " + e);
                }
            }
        }

        void stop() {
            stopped = true;
        }

        long restoredAt() {
            return watch.restoredAt;
        }

        long received() {
            return received;
        }

        long firstAfterRestore() {
            return firstAfterRestore;
        }
    }

}
