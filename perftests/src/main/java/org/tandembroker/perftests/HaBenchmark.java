package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The replicated store's benchmarks (issue 3), each against a group of {@code bdb-ha} broker processes on loopback
 * ({@link HaCluster}): {@code throughput} (two-node group, HA default versus {@code SYNC,SYNC,ALL} versus the
 * standalone coalescing broker, with {@link PairedLoad}), {@code roundtrip} (one client: send persistent, receive
 * it, repeat) and {@code failover} (a queue of persistent messages, {@code kill -9} of the master, then the JMX
 * designation of the replica in a two-node group, or nothing in a three-node group; times to the first message
 * and to 10,000 messages consumed from the new master). Writes Markdown into a results folder.
 *
 * <p>Threads: the main thread runs everything; {@link PairedLoad} and {@link AsyncPublisher} have their own.
 */
@Command(name = "ha", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Replicated store benchmarks: throughput, roundtrip, failover.")
public final class HaBenchmark implements Callable<Integer> {
    private static final String HA_DEFAULT = "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY";
    private static final String HA_SYNC = "SYNC,SYNC,ALL";

    @CommandLine.Parameters(index = "0", description = "throughput, roundtrip or failover")
    private String mode;

    @Option(names = "--warmup", converter = DurationConverter.class, defaultValue = "5s")
    private Duration warmUp;

    @Option(names = "--window", converter = DurationConverter.class, defaultValue = "15s")
    private Duration window;

    @Option(names = "--pairs", split = ",", defaultValue = "16,64")
    private List<Integer> pairs;

    @Option(names = "--setups", split = ",", defaultValue = "ha-default,ha-sync,standalone",
            description = "throughput: ha-default, ha-sync, standalone")
    private List<String> setups;

    @Option(names = "--round-trips", defaultValue = "5000")
    private int roundTrips;

    @Option(names = "--depth", defaultValue = "500000", description = "failover: messages queued before the kill")
    private long depth;

    @Option(names = "--nodes", defaultValue = "2", description = "failover: 2 (designation) or 3 (election)")
    private int nodes;

    @Option(names = "--body-size", defaultValue = "1024")
    private int bodySize;

    @Option(names = "--broker-jvm-option")
    private List<String> brokerJvmOptions = new ArrayList<>();

    @Option(names = "--lib")
    private Path lib = BrokerProcess.defaultLib();

    @Option(names = "--results")
    private Path resultsBase;

    @Option(names = "--temp")
    private Path temp = Path.of(System.getProperty("java.io.tmpdir"));

    private Path results;
    private final StringBuilder document = new StringBuilder();

    public static void main(String[] args) {
        System.exit(new CommandLine(new HaBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        results = ResultsFolder.create(resultsBase, "ha-" + mode);
        Files.createDirectories(temp);
        Machine machine = Machine.describe(temp);
        Files.writeString(results.resolve("machine.md"), machine.markdown());
        boolean ok = switch (mode) {
            case "throughput" -> throughput();
            case "roundtrip" -> roundTrip();
            case "failover" -> failover();
            default -> throw new CommandLine.ParameterException(new CommandLine(this), "unknown mode " + mode);
        };
        Files.writeString(results.resolve("ha-" + mode + ".md"), document);
        System.out.println();
        System.out.println(document);
        System.out.println("Results: " + results);
        return ok ? 0 : 1;
    }

    private HaCluster cluster(int size, String durability, boolean coalescing, boolean jmx) throws Exception {
        List<String> rep = size == 2 ? List.of("je.rep.electionsPrimaryRetries=0") : List.of();
        return HaCluster.write(Files.createTempDirectory(temp, "tandem-perf-ha-"), lib, brokerJvmOptions, size,
                durability, coalescing, jmx, rep);
    }

    // ---------------------------------------------------------------- throughput

    private record ThroughputRow(String setup, String settings, PairedLoad.Result result, double replicaCpuPercent) {
    }

    private boolean throughput() throws Exception {
        Progress progress = Progress.console();
        FsyncCounter fsyncs = FsyncCounter.probe();
        List<ThroughputRow> rows = new ArrayList<>();
        for (String setup : setups) {
            if (setup.equals("standalone")) {
                Path directory = Files.createTempDirectory(temp, "tandem-perf-standalone-");
                try {
                    BrokerFiles files = BrokerFiles.write(directory, lib, StoreSetup.COALESCING, "128MiB", List.of());
                    try (BrokerProcess broker = BrokerProcess.start(lib, files, brokerJvmOptions)) {
                        Clients clients = new Clients(broker.uri(), files.user(), files.password(), bodySize, 0);
                        for (int n : pairs) {
                            PairedLoad.Result r = new PairedLoad(clients, "perf-standalone-n" + n, n).run(broker,
                                    warmUp, window, 1, Duration.ofMinutes(5), fsyncs, progress);
                            rows.add(new ThroughputRow(setup, "bdb, NO_SYNC, coalescingSync true", r, 0));
                            progress.println(setup + " N=" + n + ": " + grouped(r.consumedPerSecond()) + " msg/s");
                        }
                        broker.stop(Duration.ofSeconds(60));
                        broker.saveOutput(results.resolve("broker-standalone.log"));
                    }
                } finally {
                    ResultsFolder.deleteTree(directory);
                }
                continue;
            }
            boolean sync = setup.equals("ha-sync");
            String durability = sync ? HA_SYNC : HA_DEFAULT;
            try (HaCluster cluster = cluster(2, durability, !sync, false)) {
                cluster.start(Duration.ofSeconds(3));
                BrokerProcess master = cluster.node(0);
                BrokerProcess replica = cluster.node(1);
                Clients clients = new Clients(master.uri(), cluster.user(), cluster.password(), bodySize, 0);
                for (int n : pairs) {
                    Duration replicaBefore = replica.cpuTime();
                    long started = System.nanoTime();
                    PairedLoad.Result r = new PairedLoad(clients, "perf-" + setup + "-n" + n, n).run(master, warmUp,
                            window, 1, Duration.ofMinutes(5), fsyncs, progress);
                    double replicaCpu = 100.0 * replica.cpuTime().minus(replicaBefore).toNanos()
                            / (System.nanoTime() - started);
                    rows.add(new ThroughputRow(setup, "bdb-ha 2 nodes, " + durability + ", coalescingSync " + !sync,
                            r, replicaCpu));
                    progress.println(setup + " N=" + n + ": " + grouped(r.consumedPerSecond()) + " msg/s");
                }
                cluster.stopAll(results, setup);
            }
        }
        Table table = new Table(List.of("setup", "N", "consumed msg/s", "consumed KiB/s", "p50 ms", "p99 ms",
                "fsyncs/commit (master)", "master CPU", "replica CPU*", "client CPU", "other CPU",
                "vs SYNC,SYNC,ALL", "% of standalone", "received/confirmed"));
        for (ThroughputRow row : rows) {
            PairedLoad.Result r = row.result();
            double sync = rate(rows, "ha-sync", r.pairs());
            double standalone = rate(rows, "standalone", r.pairs());
            DeliveryLedger.Check check = r.ledger();
            table.add(List.of(row.settings(), Integer.toString(r.pairs()), grouped(r.consumedPerSecond()),
                    grouped(r.consumedPerSecond() * bodySize / 1024.0), ThroughputBenchmark.millis(r.latencyMicros(), 50),
                    ThroughputBenchmark.millis(r.latencyMicros(), 99),
                    r.fsyncs().available() && r.producedInWindow() > 0
                            ? String.format(Locale.ROOT, "%.3f", (double) r.fsyncs().count() / r.producedInWindow())
                            : "n/a",
                    pct(r.brokerCpuPercent()), row.setup().equals("standalone") ? "-" : pct(row.replicaCpuPercent()),
                    pct(r.clientCpuPercent()), pct(r.otherCpuPercent()),
                    sync > 0 ? String.format(Locale.ROOT, "%.2fx", r.consumedPerSecond() / sync) : "-",
                    standalone > 0 ? String.format(Locale.ROOT, "%.0f %%", 100 * r.consumedPerSecond() / standalone)
                            : "-",
                    String.format(Locale.ROOT, "%,d/%,d", check.received() - check.unconfirmedArrivals(),
                            check.confirmed())));
        }
        document.append(String.format(Locale.ROOT, "Warm-up %s, window %s, body %d B, pairs %s.%n%n", warmUp, window,
                bodySize, pairs)).append(table.markdown())
                .append("\n*replica CPU: over the whole run (warm-up, window and drain), % of one core.\n");
        table.writeCsv(results.resolve("ha-throughput.csv"));
        return rows.stream().allMatch(r -> r.result().ledger().complete() && r.result().drained());
    }

    private static double rate(List<ThroughputRow> rows, String setup, int n) {
        return rows.stream().filter(r -> r.setup().equals(setup) && r.result().pairs() == n).findFirst()
                .map(r -> r.result().consumedPerSecond()).orElse(0.0);
    }

    // ---------------------------------------------------------------- round trip

    private boolean roundTrip() throws Exception {
        try (HaCluster cluster = cluster(2, HA_DEFAULT, true, false)) {
            cluster.start(Duration.ofSeconds(3));
            Clients clients = new Clients(cluster.node(0).uri(), cluster.user(), cluster.password(), bodySize, 0);
            Histogram histogram = new Histogram(60_000_000L, 3);
            try (Connection connection = clients.syncSendConnection("perf-roundtrip")) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("perf-roundtrip");
                MessageProducer producer = session.createProducer(queue);
                producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                MessageConsumer consumer = session.createConsumer(queue);
                int warm = Math.min(1000, roundTrips);
                for (int i = 0; i < warm + roundTrips; i++) {
                    long start = System.nanoTime();
                    producer.send(clients.message(session, 0, i));
                    Message received = consumer.receive(30_000);
                    long micros = (System.nanoTime() - start) / 1000;
                    if (received == null) {
                        throw new IllegalStateException("round trip " + i + ": nothing received in 30 s");
                    }
                    if (i >= warm) {
                        histogram.recordValue(micros);
                    }
                }
            }
            document.append(String.format(Locale.ROOT, "Single-thread round trip (send persistent, synchronous;"
                            + " receive it; AUTO_ACKNOWLEDGE), bdb-ha 2 nodes, %s, coalescingSync true, body %d B,"
                            + " %,d round trips after %,d warm-up:%n%n| p50 ms | p90 ms | p99 ms | max ms | mean ms |%n"
                            + "|---|---|---|---|---|%n| %s | %s | %s | %s | %.3f |%n", HA_DEFAULT, bodySize, roundTrips,
                    Math.min(1000, roundTrips), ThroughputBenchmark.millis(histogram, 50),
                    ThroughputBenchmark.millis(histogram, 90), ThroughputBenchmark.millis(histogram, 99),
                    ThroughputBenchmark.millis(histogram, 100), histogram.getMean() / 1000));
            cluster.stopAll(results, "roundtrip");
        }
        return true;
    }

    // ---------------------------------------------------------------- failover

    private boolean failover() throws Exception {
        Progress progress = Progress.console();
        try (HaCluster cluster = cluster(nodes, HA_DEFAULT, true, true)) {
            cluster.start(Duration.ofSeconds(3));
            progress.println("node states: " + states(cluster));
            Clients direct = new Clients(cluster.node(0).uri(), cluster.user(), cluster.password(), bodySize, 0);
            int publishers = 4;
            DeliveryLedger ledger = new DeliveryLedger(publishers);
            LongAdder confirmed = new LongAdder();
            LongAdder failed = new LongAdder();
            ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
            long fillStart = System.nanoTime();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < publishers; i++) {
                long count = depth / publishers + (i < depth % publishers ? 1 : 0);
                Thread t = new Thread(new AsyncPublisher(direct, "perf-failover", i, count, 500, ledger, confirmed,
                        failed, errors), "perf-publisher-" + i);
                t.start();
                threads.add(t);
            }
            while (threads.stream().anyMatch(Thread::isAlive)) {
                progress.update(String.format(Locale.ROOT, "queueing: %,d of %,d confirmed", confirmed.sum(), depth));
                Thread.sleep(200);
            }
            double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
            progress.println(String.format(Locale.ROOT, "queued %,d confirmed (%,d failed) in %.1f s; errors %s",
                    confirmed.sum(), failed.sum(), fillSeconds, errors));
            Thread.sleep(2000); // lets the replica apply the tail of the stream
            progress.println("node states before the kill: " + states(cluster));

            long killNanos = System.nanoTime();
            long pid = cluster.node(0).pid();
            new ProcessBuilder("kill", "-9", Long.toString(pid)).inheritIO().start().waitFor();
            cluster.node(0).close();
            long designateStart = 0;
            long designateEnd = 0;
            if (nodes == 2) {
                designateStart = System.nanoTime();
                cluster.designate(1);
                designateEnd = System.nanoTime();
            }
            long origin = nodes == 2 ? designateStart : killNanos;
            Clients failover = new Clients(cluster.failoverUri(), cluster.user(), cluster.password(), bodySize, 0);
            long first = 0;
            long tenThousand = 0;
            long received = 0;
            try (Connection connection = failover.connection("perf-failover-consumer")) {
                long connected = System.nanoTime();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer consumer = session.createConsumer(session.createQueue("perf-failover"));
                while (received < 10_000) {
                    Message m = consumer.receive(60_000);
                    if (m == null) {
                        break;
                    }
                    received++;
                    if (received == 1) {
                        first = System.nanoTime();
                    }
                    if (received == 10_000) {
                        tenThousand = System.nanoTime();
                    }
                }
                progress.println(String.format(Locale.ROOT, "connected %.3f s after the origin",
                        (connected - origin) / 1e9));
            }
            progress.println("node states after: " + states(cluster));
            document.append(String.format(Locale.ROOT, "Failover, bdb-ha %d nodes, %s, coalescingSync true:"
                            + " %,d persistent %d B messages queued on the master (%,d confirmed, %.1f s to queue),"
                            + " kill -9 of the master%s.%n%n"
                            + "| measured from | designation call | to first message | to 10,000 messages |%n"
                            + "|---|---|---|---|%n| %s | %s | %s | %s |%n",
                    nodes, HA_DEFAULT, depth, bodySize, confirmed.sum(), fillSeconds,
                    nodes == 2 ? ", then DesignatedPrimary=true on the replica over JMX" : " (election)",
                    nodes == 2 ? "the designation call" : "the kill",
                    nodes == 2 ? seconds(designateEnd - designateStart) + " (kill to call: "
                            + seconds(designateStart - killNanos) + ")" : "-",
                    first > 0 ? seconds(first - origin) : "none in 60 s",
                    tenThousand > 0 ? seconds(tenThousand - origin) : received + " received"));
            for (int i = 1; i < cluster.size(); i++) {
                cluster.node(i).saveOutput(results.resolve("failover-node-" + (i + 1) + ".log"));
            }
            cluster.node(0).saveOutput(results.resolve("failover-node-1.log"));
            cluster.stopAll(results, "failover-final");
            return first > 0;
        }
    }

    private static String states(HaCluster cluster) {
        List<String> states = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            try {
                states.add("node-" + (i + 1) + "=" + cluster.storeAttribute(i, "NodeState"));
            } catch (Exception e) {
                states.add("node-" + (i + 1) + "=? (" + e.getClass().getSimpleName() + ")");
            }
        }
        return String.join(", ", states);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }

    private static String grouped(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String pct(double v) {
        return String.format(Locale.ROOT, "%.0f %%", v);
    }
}
