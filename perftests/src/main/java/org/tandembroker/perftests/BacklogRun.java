package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Issue 13's backlog benchmark, one run of one replicated set-up: a fresh Tandem two-node group (HA default
 * durability, coalescing sync) or a fresh Artemis replicated pair ({@link PeerCluster}); {@code producers}
 * publishers, each on its own connection to the master, queue {@code depth} persistent messages with at most
 * {@code inFlight} unconfirmed sends each (1: synchronous sends), and the fill rate is taken from the producers'
 * start (opening their connections included) to the last confirmation; once the replica holds everything, {@code consumers} clients connect through the set-up's
 * failover URL (to the master), then {@code kill -9} of the master. Tandem's survivor is designated primary over JMX
 * (a two-node group fails over by designation), Artemis's backup takes over by itself. Each client then opens a
 * consumer (AUTO_ACKNOWLEDGE, the client's default prefetch) and they receive together until every confirmed
 * message has arrived. The drain rate is the messages received over the time from the first to the last.
 *
 * <p>Threads: the benchmark's main thread; each {@link AsyncPublisher} and each consumer has its own.
 */
public final class BacklogRun {
    static final String QUEUE = "perf-backlog";
    private static final Duration SETTLE_LIMIT = Duration.ofMinutes(2);
    private static final Duration DUPLICATE_TAIL = Duration.ofSeconds(1);

    /**
     * The load of a run: the backlog, and the clients that fill and drain it; {@code steadyAfter}: how long after
     * the producers' start the fill counts as steady (connections open, the JIT settled) for the steady fill rate.
     */
    public record Load(long depth, int bodySize, int producers, int inFlight, int consumers, Duration steadyAfter) {
        public Load {
            if (depth < 1 || bodySize < 1 || producers < 1 || inFlight < 1 || consumers < 1) {
                throw new IllegalArgumentException("the backlog, body size, producers, sends in flight and consumers"
                        + " must each be at least 1");
            }
            if (steadyAfter.isNegative()) {
                throw new IllegalArgumentException("the steady fill's start must not be negative: " + steadyAfter);
            }
        }
    }

    /**
     * A fill, timed: {@code took} from the producers' start to the last confirmation, and the part of it from
     * {@link Load#steadyAfter()} on ({@code steady}, zero when the fill ended before) with the sends confirmed in it.
     */
    record TimedFill(Optional<String> shortfall, Duration took, Duration steady, long confirmedInSteady,
                     Optional<FillCpu> steadyCpu) {
    }

    private final Path lib;
    private final List<String> jvmOptions;
    private final Duration tandemWarmUp;
    private final Path temp;
    private final Path results;
    private final Duration drainTimeout;
    private final Progress progress;

    /**
     * @param tandemWarmUp each Tandem node's {@code <warmUp duration>} (the shipped {@code etc/broker.xml} has 40 s;
     *                     zero starts the nodes cold); the peer has no such setting
     */
    public BacklogRun(Path lib, List<String> jvmOptions, Duration tandemWarmUp, Path temp, Path results,
                      Duration drainTimeout, Progress progress) {
        this.lib = lib;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.tandemWarmUp = tandemWarmUp;
        this.temp = temp;
        this.results = results;
        this.drainTimeout = drainTimeout;
        this.progress = progress;
    }

    /** Runs {@code setup} ({@code ha-default} or {@code artemis-pair}); a failure of the harness becomes a result. */
    public BacklogResult run(String setup, Load load, int run) {
        String label = String.format(Locale.ROOT, "%s, run %d: %,d x %s", setup, run, load.depth(),
                ByteSizeConverter.format(load.bodySize()));
        progress.run(label, Duration.ZERO);
        progress.println("== " + label);
        try {
            BacklogResult result = setup.equals("artemis-pair") ? onPeer(load, run) : onTandem(load, run);
            progress.println(summary(result));
            return result;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String reason = e.toString().lines().findFirst().orElse(e.getClass().getName());
            progress.println(setup + " run " + run + " failed: " + reason);
            return BacklogResult.failed(setup, run, reason);
        }
    }

    private BacklogResult onTandem(Load load, int run) throws Exception {
        String prefix = String.format(Locale.ROOT, "backlog-ha-default-%d", run);
        List<String> tandemJvmOptions = new ArrayList<>(jvmOptions);
        tandemJvmOptions.add("-Dtandem.warmUp=" + (tandemWarmUp.isZero() ? "0" : tandemWarmUp.toMillis() + "ms"));
        try (HaCluster cluster = HaCluster.write(Files.createTempDirectory(temp, "tandem-perf-backlog-"), lib,
                tandemJvmOptions, 2, FailoverRun.DURABILITY, true, true, List.of("je.rep.electionsPrimaryRetries=0"))) {
            try {
                progress.update("starting 2 nodes");
                cluster.start(Duration.ZERO);
                String settings = "Tandem bdb-ha 2 nodes, " + FailoverRun.DURABILITY + ", coalescingSync true, warm-up "
                        + tandemWarmUp.toMillis() / 1000.0 + " s; node-2 designated after the kill";
                DeliveryLedger ledger = new DeliveryLedger(load.producers());
                TimedFill fill;
                List<String> notes = new ArrayList<>();
                try (CatchUpProbe masterProbe = CatchUpProbe.awaitRoles(cluster, SETTLE_LIMIT, progress)) {
                    Clients direct = new Clients(cluster.node(0).uri(), cluster.user(), cluster.password(),
                            load.bodySize(), 0);
                    BrokerProcess master = cluster.node(0);
                    BrokerProcess replica = cluster.node(1);
                    fill = fill(direct, load, ledger, () -> FillCpu.Sample.take(master, replica));
                    if (fill.shortfall().isPresent()) {
                        return BacklogResult.failed("ha-default", run, fill.shortfall().get());
                    }
                    FailoverRun.awaitReplicasCaughtUp(cluster, masterProbe, SETTLE_LIMIT, progress)
                            .ifPresent(notes::add);
                }
                Clients failover = new Clients(FailoverRun.boundedFailoverUri(cluster.failoverUri(), drainTimeout),
                        cluster.user(), cluster.password(), load.bodySize(), 0);
                Drain drain = new Drain(failover, load.consumers(), ledger);
                try {
                    progress.update("kill -9 of node-1 (the master), then designating node-2 primary over JMX");
                    cluster.kill(0);
                    long origin = System.nanoTime();
                    cluster.designate(1);
                    drain.start(origin);
                    drain.await();
                } finally {
                    drain.close();
                }
                return result("ha-default", settings, run, load, fill, ledger, drain, notes);
            } finally {
                progress.update("stopping the group");
                cluster.stopAll(results, prefix);
            }
        }
    }

    private BacklogResult onPeer(Load load, int run) throws Exception {
        Path directory = Files.createTempDirectory(temp, "tandem-perf-backlog-artemis-");
        String prefix = String.format(Locale.ROOT, "backlog-artemis-pair-%d", run);
        try (PeerCluster peer = PeerCluster.write(directory, PeerCluster.Shape.REPLICATED_PAIR, jvmOptions)) {
            try {
                progress.update("starting the Artemis pair");
                peer.start();
                String settings = PeerCluster.PRODUCT + " replicated primary/backup, journal " + peer.journal()
                        + "; the backup takes over by itself";
                BrokerProcess primary = peer.processes().get(0);
                BrokerProcess backup = peer.processes().get(1);
                DeliveryLedger ledger = new DeliveryLedger(load.producers());
                Clients direct = new Clients(primary.uri(), PeerCluster.USER, PeerCluster.PASSWORD, load.bodySize(),
                        0);
                TimedFill fill = fill(direct, load, ledger, () -> FillCpu.Sample.take(primary, backup));
                if (fill.shortfall().isPresent()) {
                    return BacklogResult.failed("artemis-pair", run, fill.shortfall().get());
                }
                // The primary completes a send only after the backup acknowledged its replication: nothing to wait for.
                Clients failover = new Clients(FailoverRun.boundedFailoverUri(peer.clientUri(), drainTimeout),
                        PeerCluster.USER, PeerCluster.PASSWORD, load.bodySize(), 0);
                Drain drain = new Drain(failover, load.consumers(), ledger);
                try {
                    progress.update("kill -9 of the Artemis primary");
                    ProcessHandle handle = ProcessHandle.of(primary.pid()).orElseThrow();
                    handle.destroyForcibly();
                    handle.onExit().join();
                    long origin = System.nanoTime();
                    drain.start(origin);
                    drain.await();
                } finally {
                    drain.close();
                }
                return result("artemis-pair", settings, run, load, fill, ledger, drain, new ArrayList<>());
            } finally {
                progress.update("stopping the pair");
                peer.stopAll(results, prefix);
            }
        } finally {
            ResultsFolder.deleteTree(directory);
        }
    }

    private BacklogResult result(String setup, String settings, int run, Load load, TimedFill fill,
                                 DeliveryLedger ledger, Drain drain, List<String> notes) {
        DeliveryLedger.Check check = ledger.check();
        if (drain.drained == 0) {
            notes.add(String.format(Locale.ROOT, "drain timeout %s: %,d of %,d arrived",
                    Progress.human(drainTimeout), check.received() - check.unconfirmedArrivals(), check.confirmed()));
        }
        if (check.unconfirmedArrivals() > 0) {
            notes.add(String.format(Locale.ROOT, "%,d unconfirmed messages arrived", check.unconfirmedArrivals()));
        }
        drain.errors.stream().limit(3).forEach(notes::add);
        return new BacklogResult(setup, settings, run, Optional.empty(), String.join("; ", notes), fill.took(),
                fill.steady(), fill.confirmedInSteady(), fill.steadyCpu(), check.confirmed(),
                since(drain.origin, drain.first.get()), since(drain.origin, drain.drained),
                check.received() - check.unconfirmedArrivals(), check.duplicates());
    }

    /**
     * Queues the backlog and times it (its shortfall empty when every send was confirmed, else what went wrong); a
     * timer thread notes the confirmed sends and samples the CPU ({@code cpu}) at {@link Load#steadyAfter()}.
     */
    private TimedFill fill(Clients clients, Load load, DeliveryLedger ledger, Supplier<FillCpu.Sample> cpu)
            throws InterruptedException {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "backlog-steady-fill");
            thread.setDaemon(true);
            return thread;
        });
        record SteadyStart(long confirmed, FillCpu.Sample cpu) {
        }
        AtomicReference<SteadyStart> steadyStart = new AtomicReference<>();
        try {
            long started = System.nanoTime();
            timer.schedule(() -> steadyStart.set(new SteadyStart(ledger.confirmedCount(), cpu.get())),
                    load.steadyAfter().toNanos(), TimeUnit.NANOSECONDS);
            Optional<String> shortfall = AsyncPublisher.fillQueue(clients, QUEUE, load.producers(), load.depth(),
                    load.inFlight(), ledger, "queueing", progress);
            FillCpu.Sample end = cpu.get();
            long ended = end.nanoTime();
            long confirmed = ledger.confirmedCount();
            SteadyStart steady = steadyStart.get(); // a sample taken after the fill ended counts as none
            if (steady == null || steady.cpu().nanoTime() >= ended) {
                return new TimedFill(shortfall, Duration.ofNanos(ended - started), Duration.ZERO, 0,
                        Optional.empty());
            }
            long confirmedInSteady = confirmed - steady.confirmed();
            return new TimedFill(shortfall, Duration.ofNanos(ended - started),
                    Duration.ofNanos(ended - steady.cpu().nanoTime()), confirmedInSteady,
                    FillCpu.between(steady.cpu(), end, confirmedInSteady, Runtime.getRuntime().availableProcessors()));
        } finally {
            timer.shutdownNow();
        }
    }

    /**
     * The consumers of the drain: their connections open (to the master, through the failover URL) when it is
     * created, before the kill, as applications' would be; {@link #start} opens a session and consumer on each, on
     * the consumer's own thread, and they receive until the ledger is complete or the drain timeout passes.
     */
    private final class Drain implements AutoCloseable {
        private final List<Connection> connections = new ArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private final DeliveryLedger ledger;
        private final long expected;
        private final AtomicLong received = new AtomicLong();
        private final AtomicLong first = new AtomicLong();
        private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        private volatile long drained;
        private volatile boolean stop;
        private long origin;

        Drain(Clients clients, int consumers, DeliveryLedger ledger) throws JMSException {
            this.ledger = ledger;
            this.expected = ledger.confirmedCount();
            try {
                for (int i = 0; i < consumers; i++) {
                    connections.add(clients.connection("perf-backlog-consumer-" + i));
                }
            } catch (JMSException e) {
                close();
                throw e;
            }
        }

        void start(long origin) {
            this.origin = origin;
            for (int i = 0; i < connections.size(); i++) {
                Connection connection = connections.get(i);
                Thread t = new Thread(() -> consume(connection), "perf-backlog-consumer-" + i);
                t.start();
                threads.add(t);
            }
        }

        private void consume(Connection connection) {
            long deadline = origin + drainTimeout.toNanos();
            try (Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)) {
                MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
                while (!stop) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    Message message = consumer.receive(Math.max(1, Math.min(200, left / 1_000_000)));
                    if (message == null) {
                        continue;
                    }
                    long now = System.nanoTime();
                    first.compareAndSet(0, now);
                    ledger.arrived(message.getIntProperty(Clients.PRODUCER), message.getLongProperty(Clients.SEQUENCE));
                    if (received.incrementAndGet() >= expected && drained == 0) {
                        synchronized (this) {
                            if (drained == 0 && ledger.check().missing() == 0) {
                                drained = now;
                                stop = true;
                            }
                        }
                    }
                }
                // Redeliveries that keep arriving after the drain: counted in the ledger, not in the times.
                Message message;
                while ((message = consumer.receive(DUPLICATE_TAIL.toMillis())) != null) {
                    ledger.arrived(message.getIntProperty(Clients.PRODUCER), message.getLongProperty(Clients.SEQUENCE));
                }
            } catch (JMSException | RuntimeException e) {
                errors.add(Thread.currentThread().getName() + ": " + e);
                stop = true;
            }
        }

        void await() throws InterruptedException {
            long nextUpdate = 0;
            for (Thread t : threads) {
                while (t.isAlive()) {
                    long now = System.nanoTime();
                    if (now > nextUpdate) {
                        nextUpdate = now + 1_000_000_000L;
                        progress.update(first.get() == 0
                                ? String.format(Locale.ROOT, "waiting for the first message: %.1f s",
                                        (now - origin) / 1e9)
                                : String.format(Locale.ROOT, "draining: %,d of %,d received", received.get(),
                                        expected));
                    }
                    t.join(200);
                }
            }
        }

        @Override
        public void close() {
            stop = true;
            for (Connection connection : connections) {
                try {
                    connection.close();
                } catch (JMSException e) {
                    // the set-up is stopped next; a connection that does not close cleanly changes no figure
                }
            }
        }
    }

    private static Optional<Duration> since(long origin, long nanos) {
        return nanos == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(nanos - origin));
    }

    private static String summary(BacklogResult r) {
        if (!r.measured()) {
            return r.setup() + " run " + r.run() + " failed: " + r.failure().get();
        }
        return String.format(Locale.ROOT, "%s run %d: filled at %,.0f msg/s (steady %,.0f%s); first message %s,"
                        + " drained %s after the failover (%,.0f msg/s); %,d of %,d recovered, %,d duplicates%s",
                r.setup(), r.run(), r.fillPerSecond(), r.steadyFillPerSecond(),
                r.steadyCpu().map(cpu -> ", CPU " + cpu.describe()).orElse(""),
                r.toFirst().map(FailoverReport::seconds).orElse("none"),
                r.toDrained().map(FailoverReport::seconds).orElse("not"), r.drainPerSecond(), r.recovered(),
                r.confirmed(), r.duplicates(), r.note().isEmpty() ? "" : " (" + r.note() + ")");
    }
}
