package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import java.util.stream.DoubleStream;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The replicated store's benchmarks (issues 3 and 5), against groups of {@code bdb-ha} broker processes on loopback
 * ({@link HaCluster}):
 * <ul>
 * <li>{@code throughput}: two-node group, HA default versus {@code SYNC,SYNC,ALL} versus the standalone coalescing
 * broker, with {@link PairedLoad};</li>
 * <li>{@code roundtrip}: one client sends a persistent message and receives it, again and again, against each
 * setup of {@code --setups} (HA default, {@code SYNC,SYNC,ALL}, standalone), in one table with the issue's
 * target (HA default p50 at most 1 ms);</li>
 * <li>{@code failover}: the matrix of group sizes x message sizes x queue depths ({@link FailoverPlan}), each
 * cell on a fresh group ({@link FailoverRun}); {@code failover.md}, {@code failover.csv} and the chart
 * {@code failover.png} ({@link FailoverChart});</li>
 * <li>{@code failover-load}: failover while 32 producers and a consumer work through the failover URL, for each
 * {@link FailoverTopology} of {@code --topologies}: from the kill to the first message consumed on the survivor and
 * the longest gap between confirmed sends ({@link FailoverUnderLoadRun}); {@code failover-load.md} and
 * {@code .csv};</li>
 * <li>{@code catchup}: how fast a replica that was down catches up with the master ({@link CatchUpRun});</li>
 * <li>{@code backlog}: a Tandem two-node group and the Artemis replicated pair, alternating, each filled with a
 * backlog by {@code --producers} publishers, then {@code kill -9} of the master and the backlog drained on the
 * survivor by {@code --consumers} consumers ({@link BacklogRun}); {@code backlog.md} and {@code .csv} with the fill
 * and drain rates, Tandem / peer, and issue 13's targets.</li>
 * </ul>
 * Every run writes a results folder with the machine's description ({@code machine.md}).
 *
 * <p>Threads: the main thread runs everything; {@link PairedLoad}, {@link AsyncPublisher} and the catch-up watch
 * have their own.
 */
@Command(name = "ha", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Replicated store benchmarks: throughput, roundtrip, failover, failover-load, catchup, backlog.")
public final class HaBenchmark implements Callable<Integer> {
    private static final String HA_DEFAULT = "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY";
    private static final String HA_SYNC = "SYNC,SYNC,ALL";
    /**
     * The failover URL options docs/operations.md section 2 recommends: reconnect at least every 250 ms (a redirect
     * counts as a failed attempt, so Qpid JMS's default back-off reaches seconds within one election), and SASL
     * PLAIN (the benchmark runs on loopback; over a network only with TLS), which spares each reconnect the client's
     * SCRAM key derivation. Measured in docs/performance.md, "Failover under load".
     */
    static final String RECOMMENDED_URL_OPTIONS =
            "failover.maxReconnectDelay=250&failover.nested.amqp.saslMechanisms=PLAIN";
    private static final List<String> SETUPS = List.of("ha-default", "ha-sync", "standalone", "artemis",
            "artemis-pair");
    private static final List<String> BACKLOG_SETUPS = List.of("ha-default", "artemis-pair");
    /** Issue 13's drain target: a 500,000 x 2 KiB backlog drains at this rate on a new master (8 consumers). */
    static final double DRAIN_TARGET_PER_SECOND = 15_000;
    static final Duration ROUND_TRIP_TARGET = Duration.ofMillis(1);

    @Spec
    private CommandSpec spec;

    @CommandLine.Parameters(index = "0", description = "throughput, roundtrip, failover, failover-load or catchup")
    private String mode;

    @Option(names = "--warmup", converter = DurationConverter.class, defaultValue = "5s",
            description = "throughput: load before the window; roundtrip: round trips before measuring (at least"
                    + " 1,000 and this long) (default: ${DEFAULT-VALUE})")
    private Duration warmUp;

    @Option(names = "--window", converter = DurationConverter.class, defaultValue = "15s")
    private Duration window;

    @Option(names = "--pairs", split = ",", defaultValue = "16,64")
    private List<Integer> pairs;

    @Option(names = "--setups", split = ",",
            description = "throughput and roundtrip: ha-default, ha-sync, standalone, and the peers artemis (Artemis"
                    + " 2.50 standalone) and artemis-pair (Artemis replicated primary/backup) (default: all five);"
                    + " backlog: ha-default and artemis-pair (default: both)")
    private List<String> setups;

    @Option(names = "--round-trips", defaultValue = "5000")
    private int roundTrips;

    @Option(names = {"--depths", "--depth"}, split = ",", paramLabel = "N", defaultValue = "0,100000,500000",
            description = "failover: messages queued before the kill (default: ${DEFAULT-VALUE})")
    private List<Long> depths;

    @Option(names = "--sizes", split = ",", paramLabel = "BYTES",
            description = "failover: message body sizes (default: 2048,20480,204800; --body-size N alone: N)")
    private List<Integer> sizes;

    @Option(names = "--nodes", split = ",", paramLabel = "N", defaultValue = "2,3",
            description = "failover: group sizes; 2 fails over by designation, 3 by election (default: ${DEFAULT-VALUE})")
    private List<Integer> nodes;

    @Option(names = "--max-queued-bytes", converter = ByteSizeConverter.class, paramLabel = "SIZE",
            defaultValue = "4GiB", description = "failover: skip cells whose depth x size exceeds this"
            + " (default: ${DEFAULT-VALUE})")
    private long maxQueuedBytes;

    @Option(names = "--drain-timeout", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "10min", description = "failover: longest wait for the queue to drain after a failover;"
            + " catchup: for the catch-up and for the check on the replica (default: ${DEFAULT-VALUE})")
    private Duration drainTimeout;

    @Option(names = "--topologies", split = ",", paramLabel = "T", defaultValue = "3,2+arbiter,2",
            description = "failover-load: 3 (three nodes), 2+arbiter (two nodes and bin/arbiter), 2 (two nodes, the"
                    + " survivor designated after the kill) (default: ${DEFAULT-VALUE})")
    private List<String> topologies;

    @Option(names = "--producers", paramLabel = "N", defaultValue = "32",
            description = "failover-load: producers sending during the kill; backlog: producers filling the backlog"
                    + " (default: ${DEFAULT-VALUE})")
    private int producers;

    @Option(names = "--consumers", paramLabel = "N", defaultValue = "8",
            description = "backlog: consumers draining the backlog after the failover (default: ${DEFAULT-VALUE})")
    private int consumers;

    @Option(names = "--in-flight", paramLabel = "N", defaultValue = "1",
            description = "backlog: unconfirmed sends per producer while filling; 1 is a synchronous send"
                    + " (default: ${DEFAULT-VALUE})")
    private int inFlight;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "1",
            description = "failover-load: runs per topology, each on a fresh group; backlog: rounds, each running"
                    + " every set-up once on a fresh group (default: ${DEFAULT-VALUE})")
    private int runs;

    @Option(names = "--before-kill", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "5s", description = "failover-load: load before the kill (default: ${DEFAULT-VALUE})")
    private Duration beforeKill;

    @Option(names = "--after-kill", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "3s", description = "failover-load: load once every client resumed"
            + " (default: ${DEFAULT-VALUE})")
    private Duration afterKill;

    @Option(names = "--url-options", paramLabel = "OPTIONS", defaultValue = RECOMMENDED_URL_OPTIONS,
            description = "failover-load: options for the clients' failover URL; '' for Qpid JMS's own defaults"
                    + " (default: ${DEFAULT-VALUE}, docs/operations.md section 2)")
    private String urlOptions;

    @Option(names = "--backlog", paramLabel = "N",
            description = "catchup: messages published while the replica is down (default: 100000); backlog: the"
                    + " backlog queued before the kill (default: 500000)")
    private Long backlog;

    @Option(names = "--replica-stop", paramLabel = "term|kill", defaultValue = "term",
            description = "catchup: stop the replica with SIGTERM (term) or kill -9 (kill) (default: ${DEFAULT-VALUE})")
    private String replicaStop;

    @Option(names = "--verify", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "catchup: afterwards stop the master, designate the replica and consume the backlog from"
                    + " it (default: ${DEFAULT-VALUE})")
    private boolean verify;

    @Option(names = "--body-size", paramLabel = "BYTES",
            description = "message body size (default: 1024; catchup: 2048; failover: see --sizes)")
    private Integer bodySize;

    @Option(names = "--rep", paramLabel = "NAME=VALUE",
            description = "A JE replication parameter for every node's <repConfig> (repeatable), e.g."
                    + " --rep je.rep.vlsn.logCacheSize=1024; the broker validates it at start-up.")
    private List<String> repConfig = new ArrayList<>();

    @Option(names = "--tandem-warm-up", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "40s", description = "backlog: each Tandem node's <warmUp duration>, run before it serves"
            + " (default: ${DEFAULT-VALUE}, the shipped etc/broker.xml's; 0s starts the nodes cold)")
    private Duration tandemWarmUp;

    @Option(names = "--steady-after", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "20s", description = "backlog: the steady fill rate counts the sends confirmed from this"
            + " long after the producers' start (default: ${DEFAULT-VALUE}; both brokers ramp up before it)")
    private Duration steadyAfter;

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
    private final List<FailoverResult> failoverResults = new ArrayList<>();
    private final List<FailoverUnderLoadResult> failoverLoadResults = new ArrayList<>();
    private final List<BacklogResult> backlogResults = new ArrayList<>();
    private CatchUpResult catchUpResult;

    /** What a run produced, for tests: the results folder and the failover or catch-up results. */
    public record Report(Path resultsFolder, List<FailoverResult> failover,
                         List<FailoverUnderLoadResult> failoverUnderLoad, Optional<CatchUpResult> catchUp,
                         List<BacklogResult> backlog, boolean ok) {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new HaBenchmark()).execute(args));
    }

    /** Parses {@code args} as the command line would and runs the benchmark (for tests). */
    public static Report run(String... args) throws Exception {
        HaBenchmark benchmark = new HaBenchmark();
        new CommandLine(benchmark).parseArgs(args);
        boolean ok = benchmark.runMode();
        return new Report(benchmark.results, List.copyOf(benchmark.failoverResults),
                List.copyOf(benchmark.failoverLoadResults), Optional.ofNullable(benchmark.catchUpResult),
                List.copyOf(benchmark.backlogResults), ok);
    }

    @Override
    public Integer call() throws Exception {
        boolean ok = runMode();
        System.out.println();
        System.out.println(document);
        System.out.println("Results: " + results);
        return ok ? 0 : 1;
    }

    private boolean runMode() throws Exception {
        if (!List.of("throughput", "roundtrip", "failover", "failover-load", "catchup", "backlog").contains(mode)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown mode " + mode
                    + "; modes: throughput, roundtrip, failover, failover-load, catchup, backlog");
        }
        List<String> allowed = mode.equals("backlog") ? BACKLOG_SETUPS : SETUPS;
        if (setups == null) {
            setups = allowed;
        }
        List<FailoverTopology> shapes = new ArrayList<>();
        for (String topology : topologies) {
            try {
                shapes.add(FailoverTopology.parse(topology));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--topologies: " + e.getMessage());
            }
        }
        if (producers < 1 || runs < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--producers and --runs must be at least 1");
        }
        FailoverPlan plan = mode.equals("failover") ? plan() : null;
        for (String setup : setups) {
            if (!allowed.contains(setup)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "unknown setup " + setup
                        + (mode.equals("backlog") ? " for backlog" : "") + "; setups: " + String.join(", ", allowed));
            }
        }
        BacklogRun.Load backlogLoad = mode.equals("backlog") ? backlogLoad() : null;
        results = ResultsFolder.create(resultsBase, "ha-" + mode);
        Files.createDirectories(temp);
        Machine machine = Machine.describe(temp);
        Files.writeString(results.resolve("machine.md"), machine.markdown());
        boolean ok = switch (mode) {
            case "throughput" -> throughput();
            case "roundtrip" -> roundTrip();
            case "failover" -> failover(plan);
            case "failover-load" -> failoverUnderLoad(shapes);
            case "backlog" -> backlog(backlogLoad);
            default -> catchUp();
        };
        if (mode.equals("throughput") || mode.equals("roundtrip")) {
            Files.writeString(results.resolve("ha-" + mode + ".md"), document);
        }
        return ok;
    }

    private int bodySize(int otherwise) {
        return bodySize != null ? bodySize : otherwise;
    }

    private HaCluster cluster(int size, String durability, boolean coalescing, boolean jmx) throws Exception {
        List<String> rep = new ArrayList<>(size == 2 ? List.of("je.rep.electionsPrimaryRetries=0") : List.of());
        for (String pair : repConfig) {
            if (pair.indexOf('=') < 1) {
                throw new CommandLine.ParameterException(new CommandLine(this),
                        "--rep takes NAME=VALUE (a JE replication parameter), not '" + pair + "'");
            }
            rep.add(pair);
        }
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
            if (isPeer(setup)) {
                withPeer(setup, (peer, clients) -> {
                    List<BrokerProcess> processes = peer.processes();
                    BrokerProcess primary = processes.get(0);
                    for (int n : pairs) {
                        Duration backupBefore = backupCpu(processes);
                        long started = System.nanoTime();
                        PairedLoad.Result r = new PairedLoad(clients, "perf-" + setup + "-n" + n, n).run(primary,
                                warmUp, window, 1, Duration.ofMinutes(5), fsyncs, progress);
                        double backupCpu = 100.0 * backupCpu(processes).minus(backupBefore).toNanos()
                                / (System.nanoTime() - started);
                        rows.add(new ThroughputRow(setup, peerSettings(peer), r, backupCpu));
                        progress.println(setup + " N=" + n + ": " + grouped(r.consumedPerSecond()) + " msg/s");
                    }
                });
                continue;
            }
            if (setup.equals("standalone")) {
                Path directory = Files.createTempDirectory(temp, "tandem-perf-standalone-");
                try {
                    BrokerFiles files = BrokerFiles.write(directory, lib, StoreSetup.COALESCING, "128MiB", List.of());
                    try (BrokerProcess broker = BrokerProcess.start(lib, files, brokerJvmOptions)) {
                        Clients clients = new Clients(broker.uri(), files.user(), files.password(), bodySize(1024), 0);
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
                Clients clients = new Clients(master.uri(), cluster.user(), cluster.password(), bodySize(1024),
                        0);
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
                "vs SYNC,SYNC,ALL", "% of standalone", "Tandem / peer", "received/confirmed"));
        for (ThroughputRow row : rows) {
            PairedLoad.Result r = row.result();
            boolean peer = isPeer(row.setup());
            double sync = peer ? 0 : rate(rows, "ha-sync", r.pairs());
            double standalone = rate(rows, peer ? "artemis" : "standalone", r.pairs());
            double comparedPeer = peer ? 0 : rate(rows, row.setup().equals("standalone") ? "artemis" : "artemis-pair",
                    r.pairs());
            DeliveryLedger.Check check = r.ledger();
            table.add(List.of(row.settings(), Integer.toString(r.pairs()), grouped(r.consumedPerSecond()),
                    grouped(r.consumedPerSecond() * bodySize(1024) / 1024.0), ThroughputBenchmark.millis(r.latencyMicros(), 50),
                    ThroughputBenchmark.millis(r.latencyMicros(), 99),
                    r.fsyncs().available() && r.producedInWindow() > 0
                            ? String.format(Locale.ROOT, "%.3f", (double) r.fsyncs().count() / r.producedInWindow())
                            : "n/a",
                    pct(r.brokerCpuPercent()), row.setup().equals("standalone") || row.setup().equals("artemis") ? "-"
                            : pct(row.replicaCpuPercent()),
                    pct(r.clientCpuPercent()), pct(r.otherCpuPercent()),
                    sync > 0 ? String.format(Locale.ROOT, "%.2fx", r.consumedPerSecond() / sync) : "-",
                    standalone > 0 ? String.format(Locale.ROOT, "%.0f %%", 100 * r.consumedPerSecond() / standalone)
                            : "-",
                    comparedPeer > 0 ? String.format(Locale.ROOT, "%.2fx", r.consumedPerSecond() / comparedPeer)
                            : "-",
                    String.format(Locale.ROOT, "%,d/%,d", check.received() - check.unconfirmedArrivals(),
                            check.confirmed())));
        }
        document.append(String.format(Locale.ROOT, "Warm-up %s, window %s, body %d B, pairs %s.%n%n", warmUp, window,
                bodySize(1024), pairs)).append(table.markdown())
                .append("\n*replica CPU: over the whole run (warm-up, window and drain), % of one core (for the"
                        + " Artemis pair: the backup's).\n");
        if (rows.stream().anyMatch(row -> isPeer(row.setup()))) {
            document.append("\n% of standalone: of Tandem standalone for Tandem's rows, of Artemis standalone for the"
                    + " Artemis pair. Tandem / peer: msg/s over the Artemis set-up of the same kind at the same N"
                    + " (standalone over artemis, ha-* over artemis-pair).\n\n")
                    .append(MatrixBenchmark.PEER_NOTE).append('\n');
        }
        table.writeCsv(results.resolve("ha-throughput.csv"));
        writeThroughputChart(rows);
        return rows.stream().allMatch(r -> r.result().ledger().complete() && r.result().drained());
    }

    /** {@code ha-throughput.png}: msg/s against N, one line per setup (the peers' among them). */
    private void writeThroughputChart(List<ThroughputRow> rows) throws IOException {
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (String setup : setups) {
            List<Double> line = new ArrayList<>();
            for (int n : pairs) {
                double rate = rate(rows, setup, n);
                line.add(rate > 0 ? rate : null);
            }
            String label = rows.stream().filter(row -> row.setup().equals(setup)).findFirst()
                    .map(row -> setup + " (" + row.settings() + ")").orElse(setup);
            series.put(label, line);
        }
        ThroughputChart.write(results.resolve("ha-throughput.png"), String.format(Locale.ROOT,
                "Throughput vs clients (persistent %d B messages, window %s)", bodySize(1024), window),
                "messages/s consumed", pairs, series);
    }

    private static boolean isPeer(String setup) {
        return setup.startsWith("artemis");
    }

    private static Duration backupCpu(List<BrokerProcess> processes) {
        return processes.size() > 1 ? processes.get(1).cpuTime() : Duration.ZERO;
    }

    private static String peerSettings(PeerCluster peer) {
        return PeerCluster.PRODUCT + (peer.shape() == PeerCluster.Shape.STANDALONE ? " standalone"
                : " replicated primary/backup") + ", journal " + peer.journal();
    }

    /** What runs against a started peer: its processes and clients on its {@link PeerCluster#clientUri()}. */
    private interface PeerWork {
        void run(PeerCluster peer, Clients clients) throws Exception;
    }

    /**
     * Starts the peer {@code setup} (artemis or artemis-pair) in a fresh directory, keeps its broker.xml files in the
     * results, runs {@code work}, stops it (consoles to {@code broker-<setup>-<role>.log}) and deletes the directory.
     */
    private void withPeer(String setup, PeerWork work) throws Exception {
        Path directory = Files.createTempDirectory(temp, "tandem-perf-" + setup + "-");
        PeerCluster.Shape shape = setup.equals("artemis") ? PeerCluster.Shape.STANDALONE
                : PeerCluster.Shape.REPLICATED_PAIR;
        try (PeerCluster peer = PeerCluster.write(directory, shape, brokerJvmOptions)) {
            for (int i = 0; i < peer.roles().size(); i++) {
                Files.copy(peer.brokerXmls().get(i), results.resolve("broker-" + setup + "-" + peer.roles().get(i)
                        + ".xml"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            try {
                peer.start();
                work.run(peer, new Clients(peer.clientUri(), PeerCluster.USER, PeerCluster.PASSWORD, bodySize(1024),
                        0));
            } finally {
                peer.stopAll(results, "broker-" + setup);
            }
        } finally {
            ResultsFolder.deleteTree(directory);
        }
    }

    private static double rate(List<ThroughputRow> rows, String setup, int n) {
        return rows.stream().filter(r -> r.setup().equals(setup) && r.result().pairs() == n).findFirst()
                .map(r -> r.result().consumedPerSecond()).orElse(0.0);
    }

    // ---------------------------------------------------------------- round trip

    /** The round trips of one setup, in microseconds. */
    record RoundTrip(String setup, String store, Histogram micros) {
    }

    private boolean roundTrip() throws Exception {
        Progress progress = Progress.console();
        List<RoundTrip> rows = new ArrayList<>();
        for (String setup : setups) {
            progress.run("roundtrip " + setup, Duration.ZERO);
            if (isPeer(setup)) {
                withPeer(setup, (peer, clients) -> rows.add(new RoundTrip(setup, peerSettings(peer),
                        measureRoundTrips(clients, progress))));
            } else if (setup.equals("standalone")) {
                Path directory = Files.createTempDirectory(temp, "tandem-perf-standalone-");
                try {
                    BrokerFiles files = BrokerFiles.write(directory, lib, StoreSetup.COALESCING, "128MiB", List.of());
                    try (BrokerProcess broker = BrokerProcess.start(lib, files, brokerJvmOptions)) {
                        Clients clients = new Clients(broker.uri(), files.user(), files.password(), bodySize(1024), 0);
                        rows.add(new RoundTrip(setup, "bdb, NO_SYNC, coalescingSync true",
                                measureRoundTrips(clients, progress)));
                        broker.stop(Duration.ofSeconds(60));
                        broker.saveOutput(results.resolve("roundtrip-standalone.log"));
                    }
                } finally {
                    ResultsFolder.deleteTree(directory);
                }
            } else {
                boolean sync = setup.equals("ha-sync");
                String durability = sync ? HA_SYNC : HA_DEFAULT;
                try (HaCluster cluster = cluster(2, durability, !sync, false)) {
                    cluster.start(Duration.ofSeconds(3));
                    Clients clients = new Clients(cluster.node(0).uri(), cluster.user(), cluster.password(),
                            bodySize(1024), 0);
                    rows.add(new RoundTrip(setup, "bdb-ha 2 nodes, " + durability + ", coalescingSync " + !sync,
                            measureRoundTrips(clients, progress)));
                    cluster.stopAll(results, "roundtrip-" + setup);
                }
            }
            progress.println(setup + ": p50 " + ThroughputBenchmark.millis(rows.get(rows.size() - 1).micros(), 50)
                    + " ms");
        }
        Table table = roundTripTable(rows);
        document.append(String.format(Locale.ROOT, "Single-thread round trip (send persistent, synchronous;"
                        + " receive it; AUTO_ACKNOWLEDGE), body %d B, %,d round trips after a warm-up of at least"
                        + " %,d round trips and %s, each setup on a fresh broker or group on loopback:%n%n",
                bodySize(1024), roundTrips, Math.min(1000, roundTrips), warmUp))
                .append(table.markdown()).append('\n').append(roundTripVerdict(rows)).append('\n');
        table.writeCsv(results.resolve("ha-roundtrip.csv"));
        return true;
    }

    private Histogram measureRoundTrips(Clients clients, Progress progress) throws Exception {
        Histogram histogram = new Histogram(60_000_000L, 3);
        try (Connection connection = clients.syncSendConnection("perf-roundtrip")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("perf-roundtrip");
            MessageProducer producer = session.createProducer(queue);
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            MessageConsumer consumer = session.createConsumer(queue);
            // Warm-up: at least 1,000 round trips and at least --warmup, so that the JIT has compiled the broker's
            // hot paths (it still compiles 25 s after start-up; docs/performance.md).
            int sequence = 0;
            long warmUntil = System.nanoTime() + warmUp.toNanos();
            while (sequence < Math.min(1000, roundTrips) || System.nanoTime() - warmUntil < 0) {
                roundTripMicros(clients, session, producer, consumer, sequence);
                if (sequence++ % 500 == 0) {
                    progress.update(String.format(Locale.ROOT, "warm-up %,d round trips, %d s left", sequence,
                            Math.max(0, (warmUntil - System.nanoTime()) / 1_000_000_000L)));
                }
            }
            for (int measured = 0; measured < roundTrips; measured++) {
                long micros = roundTripMicros(clients, session, producer, consumer, sequence++);
                histogram.recordValue(Math.min(micros, histogram.getHighestTrackableValue()));
                if (measured % 500 == 0) {
                    progress.update(String.format(Locale.ROOT, "measuring %,d of %,d", measured, roundTrips));
                }
            }
        }
        return histogram;
    }

    /** Sends one persistent message synchronously and receives it; returns the time that took. */
    private static long roundTripMicros(Clients clients, Session session, MessageProducer producer,
                                        MessageConsumer consumer, int sequence) throws JMSException {
        long start = System.nanoTime();
        producer.send(clients.message(session, 0, sequence));
        Message received = consumer.receive(30_000);
        long micros = (System.nanoTime() - start) / 1000;
        if (received == null) {
            throw new IllegalStateException("round trip " + sequence + ": nothing received in 30 s");
        }
        return micros;
    }

    /** One row per setup: percentiles in ms, and the target verdict on the HA default row. */
    static Table roundTripTable(List<RoundTrip> rows) {
        Table table = new Table(List.of("setup", "store", "round trips", "p50 ms", "p90 ms", "p99 ms", "max ms",
                "mean ms", "target"));
        for (RoundTrip row : rows) {
            Histogram h = row.micros();
            table.add(List.of(row.setup(), row.store(), String.format(Locale.ROOT, "%,d", h.getTotalCount()),
                    ThroughputBenchmark.millis(h, 50), ThroughputBenchmark.millis(h, 90),
                    ThroughputBenchmark.millis(h, 99), ThroughputBenchmark.millis(h, 100),
                    String.format(Locale.ROOT, "%.3f", h.getMean() / 1000), roundTripTarget(row)));
        }
        return table;
    }

    private static String roundTripTarget(RoundTrip row) {
        if (!row.setup().equals("ha-default")) {
            return "-";
        }
        if (row.micros().getTotalCount() == 0) {
            return "p50 ≤ 1 ms: not measured";
        }
        return "p50 ≤ 1 ms: " + (roundTripTargetMet(row) ? "met" : "**MISSED**");
    }

    private static boolean roundTripTargetMet(RoundTrip row) {
        return row.micros().getValueAtPercentile(50) <= ROUND_TRIP_TARGET.toNanos() / 1000;
    }

    /** The target sentence: HA default p50 at most 1 ms on loopback, met or MISSED, or not in this run. */
    static String roundTripVerdict(List<RoundTrip> rows) {
        return rows.stream().filter(r -> r.setup().equals("ha-default") && r.micros().getTotalCount() > 0)
                .findFirst().map(r -> "Target (issue 5), round trip, single thread, HA default: p50 ≤ 1 ms: "
                        + (roundTripTargetMet(r) ? "met" : "**MISSED**") + " (p50 "
                        + ThroughputBenchmark.millis(r.micros(), 50) + " ms).")
                .orElse("Target (issue 5), HA default p50 ≤ 1 ms: not measured (ha-default not in --setups).");
    }

    // ---------------------------------------------------------------- failover

    FailoverPlan plan() {
        List<Integer> bodySizes = sizes;
        if (bodySizes == null) {
            bodySizes = bodySize != null ? List.of(bodySize) : List.of(2048, 20480, 204800);
        } else if (bodySize != null) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "give --sizes or --body-size for failover, not both");
        }
        try {
            return FailoverPlan.of(nodes, depths, bodySizes, maxQueuedBytes);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private boolean failover(FailoverPlan plan) throws Exception {
        Progress progress = Progress.console();
        List<FailoverCell> toRun = plan.cellsToRun();
        progress.println(String.format(Locale.ROOT, "failover matrix: %d cells, %d to run, %d skipped",
                plan.entries().size(), toRun.size(), plan.entries().size() - toRun.size()));
        FailoverRun run = new FailoverRun(lib, brokerJvmOptions, temp, results, drainTimeout, progress);
        for (FailoverPlan.Entry entry : plan.entries()) {
            if (entry.runs()) {
                failoverResults.add(run.run(entry.cell(), toRun.indexOf(entry.cell()) + 1, toRun.size()));
            } else {
                failoverResults.add(FailoverResult.skipped(entry.cell(), entry.skipReason().orElseThrow()));
                progress.println("skipped " + entry.cell().label() + ": " + entry.skipReason().orElseThrow());
            }
            writeFailover(plan); // after every cell, so that an interrupted matrix keeps what it measured
        }
        document.append(Files.readString(results.resolve("failover.md")));
        return failoverResults.stream().allMatch(r -> r.status() == FailoverResult.Status.SKIPPED || r.lossless());
    }

    private boolean failoverUnderLoad(List<FailoverTopology> shapes) throws Exception {
        Progress progress = Progress.console();
        FailoverUnderLoadRun run = new FailoverUnderLoadRun(lib, brokerJvmOptions, temp, results, progress);
        FailoverUnderLoadRun.Load load = new FailoverUnderLoadRun.Load(producers, bodySize(1024), beforeKill,
                afterKill, urlOptions);
        List<String> extra = new ArrayList<>();
        for (String pair : repConfig) {
            if (pair.indexOf('=') < 1) {
                throw new CommandLine.ParameterException(new CommandLine(this),
                        "--rep takes NAME=VALUE (a JE replication parameter), not '" + pair + "'");
            }
            extra.add(pair);
        }
        Table table = new Table(FailoverUnderLoadResult.headers());
        int number = 0;
        for (FailoverTopology topology : shapes) {
            for (int i = 1; i <= runs; i++) {
                number++;
                FailoverUnderLoadResult result = run.run(topology, load, extra,
                        String.format(Locale.ROOT, "failover-load-%02d", number));
                failoverLoadResults.add(result);
                table.add(result.row());
                Files.writeString(results.resolve("failover-load.md"), failoverUnderLoadDocument(load, table));
                table.writeCsv(results.resolve("failover-load.csv"));
            }
        }
        document.append(Files.readString(results.resolve("failover-load.md")));
        return failoverLoadResults.stream().allMatch(FailoverUnderLoadResult::lossless);
    }

    private String failoverUnderLoadDocument(FailoverUnderLoadRun.Load load, Table table) {
        return "# Failover under load\n\n" + String.format(Locale.ROOT, "bdb-ha groups on loopback, %s,"
                + " coalescingSync true. %d producers (synchronous persistent sends of %d B) and one consumer"
                + " (AUTO_ACKNOWLEDGE), each on its own connection through the failover URL `failover:(...)%s`;"
                + " %s of load, then `kill -9` of the master (node-1); two nodes without an arbiter: node-2 is"
                + " designated over JMX right after the kill. The kill comes once every client has worked; every"
                + " time runs from it. *first message consumed*:"
                + " the first message the consumer (prefetch 0) received after the killed process ended; *producers resumed*:"
                + " each producer's first confirmed send after the kill; *longest gap*: the longest time between two"
                + " confirmed sends of one producer. Then %s more load, and every confirmed send must arrive.%s%n%n",
                FailoverRun.DURABILITY, load.producers(), load.bodySize(),
                load.urlOptions().isBlank() ? "" : "?" + load.urlOptions(), Progress.human(load.beforeKill()),
                Progress.human(load.afterKill()), repConfig.isEmpty() ? "" : " Extra repConfig: " + repConfig + ".")
                + table.markdown();
    }

    private void writeFailover(FailoverPlan plan) throws Exception {
        FailoverReport report = new FailoverReport(failoverResults);
        boolean chart = FailoverChart.write(failoverResults, results.resolve("failover.png"));
        Files.writeString(results.resolve("failover.md"), failoverDocument(report, plan, drainTimeout, chart));
        report.csv().writeCsv(results.resolve("failover.csv"));
    }

    /** {@code failover.md}: the method, the table, the target verdicts and the chart. */
    static String failoverDocument(FailoverReport report, FailoverPlan plan, Duration drainTimeout, boolean chart) {
        StringBuilder text = new StringBuilder("# Failover time\n\n");
        text.append(String.format(Locale.ROOT, "bdb-ha groups on loopback, %s, coalescingSync true, JMX on. Each"
                + " cell on a fresh group: the messages are queued on node-1 (the master) by 4 asynchronous"
                + " publishers and every send is confirmed; once every replica has the master's last transaction,"
                + " `kill -9` of the master. Two nodes: `DesignatedPrimary` true on node-2 over JMX, and the times"
                + " run from the start of that call. Three nodes: nothing is called (election), and the times run"
                + " from the kill. The client is a Qpid JMS connection on the failover URL, opened (to node-1) before"
                + " the kill, so its own reconnect is part of the time; after the kill it opens a consumer"
                + " (AUTO_ACKNOWLEDGE) and receives until every confirmed message arrived (drain timeout %s). With"
                + " depth 0 nothing is queued: the first message is one that this client publishes after the"
                + " failover. Cells with more than %s of message bodies queued (`--max-queued-bytes`) are skipped.%n%n",
                FailoverRun.DURABILITY, Progress.human(drainTimeout),
                ByteSizeConverter.format(plan.maxQueuedBytes())));
        text.append(report.markdown().markdown()).append('\n');
        List<String> verdicts = report.targetVerdicts();
        if (verdicts.isEmpty()) {
            text.append("Targets (issue 5): this run has no target cell (500,000 x 2 KiB with 2 or 3 nodes).\n");
        } else {
            text.append("Targets (issue 5):\n\n");
            verdicts.forEach(v -> text.append("- ").append(v).append('\n'));
        }
        text.append('\n').append(chart ? "![failover time vs queue depth](failover.png)\n"
                : "No chart: no cell measured a first message.\n");
        return text.toString();
    }

    // ---------------------------------------------------------------- backlog

    private BacklogRun.Load backlogLoad() {
        try {
            return new BacklogRun.Load(backlog == null ? 500_000 : backlog, bodySize(2048), producers, inFlight,
                    consumers, steadyAfter);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private boolean backlog(BacklogRun.Load load) throws Exception {
        Progress progress = Progress.console();
        BacklogRun run = new BacklogRun(lib, brokerJvmOptions, tandemWarmUp, temp, results, drainTimeout, progress);
        for (int round = 1; round <= runs; round++) {
            for (String setup : setups) {
                backlogResults.add(run.run(setup, load, round));
                Files.writeString(results.resolve("backlog.md"), backlogDocument(load, backlogResults));
                backlogCsv(backlogResults).writeCsv(results.resolve("backlog.csv"));
            }
        }
        document.append(Files.readString(results.resolve("backlog.md")));
        return backlogResults.stream().allMatch(BacklogResult::lossless);
    }

    /** {@code backlog.md}: the method, every run, the best of each set-up, Tandem / peer and the targets. */
    static String backlogDocument(BacklogRun.Load load, List<BacklogResult> results) {
        StringBuilder text = new StringBuilder("# A backlog filled, then drained after a failover\n\n");
        text.append(String.format(Locale.ROOT, "Each run on a fresh group: %d producers (each on its own connection to"
                + " the master, %s) queue %,d persistent messages of %s; once the replica holds them, %d consumers"
                + " connect through the failover URL, then `kill -9` of the master. Tandem (two nodes, %s,"
                + " coalescingSync true): node-2 is designated primary over JMX right after the kill, and the times"
                + " run from the designation. Artemis (replicated primary/backup): the backup takes over by itself,"
                + " and the times run from the kill. The consumers (AUTO_ACKNOWLEDGE, Qpid JMS's default prefetch)"
                + " then receive until every confirmed message arrived. *fill msg/s*: confirmed sends over the time"
                + " from the producers' start (opening their connections included) to the last confirmation;"
                + " *steady fill msg/s*: the same from %s after the producers' start on (both brokers ramp up before"
                + " it); *steady CPU*: the CPU the machine spent in that steady part per confirmed send, in µs: the"
                + " master's (Artemis: the primary's) / the replica's (the backup's) / the clients' (this harness's JVM)"
                + " / the rest of the machine's (the kernel's workers such as page-cache writeback, network interrupts,"
                + " other processes), and the share of the cores left idle; *drain msg/s*: messages received over the"
                + " time from the first to the last. The set-ups alternate within each round.%n%n", load.producers(),
                load.inFlight() == 1 ? "synchronous sends" : "at most " + load.inFlight() + " sends unconfirmed",
                load.depth(), ByteSizeConverter.format(load.bodySize()), load.consumers(), FailoverRun.DURABILITY,
                Progress.human(load.steadyAfter())));
        text.append(backlogTable(results).markdown()).append('\n');
        List<Map.Entry<String, ToDoubleFunction<BacklogResult>>> figures = List.of(
                Map.entry("fill msg/s", BacklogResult::fillPerSecond),
                Map.entry("steady fill msg/s (from " + Progress.human(load.steadyAfter()) + ")",
                        BacklogResult::steadyFillPerSecond),
                Map.entry("drain msg/s after the failover", BacklogResult::drainPerSecond));
        text.append("Best of the runs (every confirmed message arrived in the runs counted):\n\n");
        text.append(summaryTable(results, figures, HaBenchmark::best).markdown()).append('\n');
        if (results.stream().filter(BacklogResult::lossless).count() > 2) {
            text.append("Median of the runs (a single run's rate moves by up to 1.5x on this machine kind):\n\n");
            text.append(summaryTable(results, figures, HaBenchmark::median).markdown()).append('\n');
        }
        Optional<Double> tandemFill = best(results, "ha-default", BacklogResult::fillPerSecond);
        Optional<Double> peerFill = best(results, "artemis-pair", BacklogResult::fillPerSecond);
        Optional<Double> tandemDrain = best(results, "ha-default", BacklogResult::drainPerSecond);
        boolean targetLoad = load.depth() == 500_000 && load.bodySize() == 2048 && load.consumers() == 8
                && load.producers() == 32;
        text.append("Targets (issue 13)").append(targetLoad ? "" : ", for 500,000 x 2 KiB, 32 producers and 8"
                + " consumers; this run's load differs, so the verdicts are indicative only").append(":\n\n");
        text.append("- drain after the failover ≥ ").append(grouped(DRAIN_TARGET_PER_SECOND)).append(" msg/s: ")
                .append(tandemDrain.map(drain -> verdict(drain >= DRAIN_TARGET_PER_SECOND)
                        + " (" + grouped(drain) + ")").orElse("not measured")).append('\n');
        text.append("- fill ≥ the peer pair's: ").append(tandemFill.isPresent() && peerFill.isPresent()
                ? verdict(tandemFill.get() >= peerFill.get()) + " (" + ratio(tandemFill, peerFill) + ")"
                : "not measured (a set-up is missing or lost messages)").append('\n');
        return text.toString();
    }

    /** Every run, for people: units in the cells, a failed run's reason in its note. */
    private static Table backlogTable(List<BacklogResult> results) {
        Table table = new Table(List.of("set-up", "run", "fill", "fill msg/s", "steady fill msg/s",
                "steady CPU (master / replica / clients / rest)", "to first message", "to drained",
                "drain msg/s", "recovered", "duplicates", "note"));
        for (BacklogResult r : results) {
            table.add(List.of(r.measured() ? r.settings() : r.setup(), Integer.toString(r.run()),
                    r.measured() ? FailoverReport.seconds(r.fill()) : "-",
                    r.measured() ? grouped(r.fillPerSecond()) : "-",
                    r.steadyFillPerSecond() > 0 ? grouped(r.steadyFillPerSecond()) : "-",
                    r.steadyCpu().map(FillCpu::describe).orElse("-"),
                    r.toFirst().map(FailoverReport::seconds).orElse("-"),
                    r.toDrained().map(FailoverReport::seconds).orElse("-"),
                    r.drainPerSecond() > 0 ? grouped(r.drainPerSecond()) : "-",
                    r.measured() ? String.format(Locale.ROOT, "%,d of %,d", r.recovered(), r.confirmed()) : "-",
                    r.measured() ? String.format(Locale.ROOT, "%,d", r.duplicates()) : "-",
                    r.failure().map(f -> "failed: " + f).orElse(r.note())));
        }
        return table;
    }

    /** Every run, for tools: plain numbers, seconds. */
    private static Table backlogCsv(List<BacklogResult> results) {
        Table table = new Table(List.of("setup", "run", "status", "fill_s", "fill_per_s", "to_first_s",
                "to_drained_s", "drain_per_s", "confirmed", "recovered", "duplicates", "settings", "note",
                "steady_fill_per_s", "steady_cpu_master_us", "steady_cpu_replica_us", "steady_cpu_clients_us",
                "steady_cpu_rest_us", "steady_idle_percent"));
        for (BacklogResult r : results) {
            table.add(List.of(r.setup(), Integer.toString(r.run()), r.measured() ? "measured" : "failed",
                    String.format(Locale.ROOT, "%.3f", r.fill().toNanos() / 1e9),
                    String.format(Locale.ROOT, "%.0f", r.fillPerSecond()),
                    r.toFirst().map(d -> String.format(Locale.ROOT, "%.3f", d.toNanos() / 1e9)).orElse(""),
                    r.toDrained().map(d -> String.format(Locale.ROOT, "%.3f", d.toNanos() / 1e9)).orElse(""),
                    String.format(Locale.ROOT, "%.0f", r.drainPerSecond()), Long.toString(r.confirmed()),
                    Long.toString(r.recovered()), Long.toString(r.duplicates()), r.settings(),
                    r.failure().orElse(r.note()), String.format(Locale.ROOT, "%.0f", r.steadyFillPerSecond()),
                    cpuField(r, FillCpu::masterMicros), cpuField(r, FillCpu::replicaMicros),
                    cpuField(r, FillCpu::clientMicros), cpuField(r, FillCpu::restMicros),
                    cpuField(r, FillCpu::idlePercent)));
        }
        return table;
    }

    private static String cpuField(BacklogResult r, ToDoubleFunction<FillCpu> figure) {
        return r.steadyCpu().map(cpu -> String.format(Locale.ROOT, "%.1f", figure.applyAsDouble(cpu))).orElse("");
    }

    /** One row per figure: Tandem's, the peer's and their ratio, each {@code aggregate} over the runs. */
    private static Table summaryTable(List<BacklogResult> results,
                                      List<Map.Entry<String, ToDoubleFunction<BacklogResult>>> figures,
                                      Aggregate aggregate) {
        Table table = new Table(List.of("", "Tandem two-node default", PeerCluster.PRODUCT + " pair", "Tandem / peer"));
        for (Map.Entry<String, ToDoubleFunction<BacklogResult>> figure : figures) {
            Optional<Double> tandem = aggregate.over(results, "ha-default", figure.getValue());
            Optional<Double> peer = aggregate.over(results, "artemis-pair", figure.getValue());
            table.add(List.of(figure.getKey(), rate(tandem), rate(peer), ratio(tandem, peer)));
        }
        return table;
    }

    /** Summarises one figure of one set-up's runs. */
    private interface Aggregate {
        Optional<Double> over(List<BacklogResult> results, String setup, ToDoubleFunction<BacklogResult> figure);
    }

    /** The median of {@code figure} over the lossless runs of {@code setup} that measured it (above 0). */
    static Optional<Double> median(List<BacklogResult> results, String setup, ToDoubleFunction<BacklogResult> figure) {
        double[] values = measured(results, setup, figure).sorted().toArray();
        return values.length == 0 ? Optional.empty() : Optional.of(Statistics.median(values));
    }

    /** The highest {@code figure} of the lossless runs of {@code setup} that measured it (above 0). */
    private static Optional<Double> best(List<BacklogResult> results, String setup,
                                         ToDoubleFunction<BacklogResult> figure) {
        OptionalDouble best = measured(results, setup, figure).max();
        return best.isPresent() ? Optional.of(best.getAsDouble()) : Optional.empty();
    }

    private static DoubleStream measured(List<BacklogResult> results, String setup,
                                         ToDoubleFunction<BacklogResult> figure) {
        return results.stream().filter(r -> r.setup().equals(setup) && r.lossless()).mapToDouble(figure)
                .filter(v -> v > 0);
    }

    private static String rate(Optional<Double> perSecond) {
        return perSecond.filter(v -> v > 0).map(HaBenchmark::grouped).orElse("-");
    }

    private static String ratio(Optional<Double> tandem, Optional<Double> peer) {
        return tandem.isPresent() && peer.isPresent() && peer.get() > 0
                ? String.format(Locale.ROOT, "%.2fx", tandem.get() / peer.get()) : "-";
    }

    private static String verdict(boolean met) {
        return met ? "met" : "**missed**";
    }

    // ---------------------------------------------------------------- catch-up

    private boolean catchUp() throws Exception {
        if (!replicaStop.equals("term") && !replicaStop.equals("kill")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--replica-stop is term or kill, not "
                    + replicaStop);
        }
        long backlog = this.backlog == null ? 100_000 : this.backlog;
        if (backlog < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--backlog must be at least 1");
        }
        Progress progress = Progress.console();
        catchUpResult = new CatchUpRun(lib, brokerJvmOptions, temp, results, drainTimeout, progress)
                .run(backlog, bodySize(2048), replicaStop.equals("kill"), verify);
        String text = catchUpDocument(catchUpResult);
        Files.writeString(results.resolve("catchup.md"), text);
        catchUpResult.csv().writeCsv(results.resolve("catchup.csv"));
        document.append(text);
        return catchUpResult.toCaughtUp().isPresent() && catchUpResult.lossless();
    }

    /** {@code catchup.md}: the method and the table. */
    static String catchUpDocument(CatchUpResult r) {
        return String.format(Locale.ROOT, "# Replica catch-up%n%nbdb-ha two-node group on loopback, %s,"
                + " coalescingSync true, JMX on; node-1 (the master) designated primary. node-2 (the replica) stopped"
                + " by %s; %,d persistent %s messages published to the master alone (every send confirmed, %.1f s);"
                + " node-2 started again. *Joined*: the first time node-2 answers DbPing (the master's"
                + " `pingNodeDetails`) as REPLICA. *Caught up*: node-2's last transaction (VLSN) reached the master's."
                + " *ReplicationLag 0*: the master's `AllNodesInGroup` showed no lag for node-2 (the figure of the"
                + " `tandem.ha.replica.lag.vlsn` gauge; the master updates it from the replica's acknowledgements and"
                + " heartbeats). Times from the restart of node-2's process; msg/s and MB/s (10^6 bytes of bodies)"
                + " over restart → caught up, and over joined → caught up.%n%n%s%n", FailoverRun.DURABILITY,
                r.stoppedBy(), r.backlog(), ByteSizeConverter.format(r.bodySize()), r.publish().toNanos() / 1e9,
                r.markdown().markdown());
    }

    private static String grouped(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    private static String pct(double v) {
        return String.format(Locale.ROOT, "%.0f %%", v);
    }
}
