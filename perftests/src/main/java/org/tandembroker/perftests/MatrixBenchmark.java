package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.qpid.jms.JmsConnection;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The durability matrix of issue 5, the spec's HA performance comparison: for each configuration (non-HA, five
 * two-node {@code bdb-ha} durability settings, the default, the default on three nodes, and the peer of issue 13,
 * Artemis standalone and as a replicated pair, {@link PeerCluster}) the broker processes are
 * started on loopback, loaded with N producers and N consumers (each on its own connection, one queue, persistent
 * messages, through a {@code failover:(...)} URI that lists every node) for each N, stopped, and their directory
 * deleted. Or, with {@code --url}, one external broker is driven instead. Writes a results folder: {@code matrix.csv},
 * {@code matrix.md} (the spec's table, messages/s, latency, targets, per-run details), {@code machine.md}, the
 * charts {@code throughput.png} and {@code throughput-kbs.png}, and each broker's console. A configuration that
 * fails to start, or a run that fails, is a failed cell with its reason; the matrix goes on. With {@code --rounds R}
 * the whole matrix runs R times (the configurations in reverse order every other round), each round's report goes
 * to {@code round-<k>/}, and the folder's own {@code matrix.md}, CSV and charts hold the medians
 * ({@link MatrixMedians}). With {@code --variant NAME=OPTIONS} (and {@code --variant-lib NAME=DIR}) every Tandem
 * configuration runs once per variant, side by side within each round ({@code <id>@<name>} columns, each against the
 * same variant's No HA), and the medians add each variant over the first. Exit code 0 when every run measured and
 * received every confirmed message, 1 otherwise, 2 for a bad command line.
 *
 * <p>Threads: the main thread runs everything in order; {@link PairedLoad} has its own threads, and the start-up
 * probe runs on a daemon thread so that a connection that never completes cannot hang the matrix.
 */
@Command(name = "matrix", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The durability matrix: throughput and latency of every HA durability configuration"
                + " against the non-HA broker, N producers and N consumers, in the spec's table layout.",
                "Profiles: smoke (non-ha, default; N=1; seconds), quick (all, the Artemis peers too; 30 s JIT"
                        + " warm-up, then N=1,4,16,64; 2 s + 6 s; about 14 min on 2 cores), full (all; 45 s JIT"
                        + " warm-up, then N=1..64; 5 s + 20 s; about 50 min)."})
public final class MatrixBenchmark implements Callable<Integer> {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(90);
    private static final int JIT_WARM_UP_PAIRS = 16;

    /** Presets of the N list, the windows and the configurations; explicit options override them. */
    public enum Profile {
        SMOKE(List.of("non-ha", "default"), List.of(1), Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1),
                200),
        QUICK(ids(), List.of(1, 4, 16, 64), Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofSeconds(6), 1),
        FULL(ids(), List.of(1, 2, 4, 8, 16, 32, 64), Duration.ofSeconds(45), Duration.ofSeconds(5),
                Duration.ofSeconds(20), 1);

        final List<String> configs;
        final List<Integer> clients;
        /**
         * An unmeasured load (16 pairs) on each configuration's fresh brokers before its first run: the JIT
         * compiles the brokers' hot paths for tens of seconds after start-up (measured: a compiler thread still at
         * 40 % of a core 25 s into a run), and the replicated ones have more code to compile. Without it the first
         * configurations' short windows measure the compiler, not the durability setting.
         */
        final Duration jitWarmUp;
        final Duration warmUp;
        final Duration window;
        final long minWindowMessages;

        Profile(List<String> configs, List<Integer> clients, Duration jitWarmUp, Duration warmUp, Duration window,
                long minWindowMessages) {
            this.configs = configs;
            this.clients = clients;
            this.jitWarmUp = jitWarmUp;
            this.warmUp = warmUp;
            this.window = window;
            this.minWindowMessages = minWindowMessages;
        }

        private static List<String> ids() {
            return MatrixConfiguration.ALL.stream().map(MatrixConfiguration::id).toList();
        }
    }

    @Spec
    private CommandSpec spec;

    @Option(names = "--profile", paramLabel = "PROFILE", defaultValue = "full",
            description = "quick, full or smoke (default: ${DEFAULT-VALUE}).")
    private Profile profile;

    @Option(names = "--configs", split = ",", paramLabel = "ID",
            description = "Configurations (default: the profile's): non-ha, sync-sync-all, wns-wns-all,"
                    + " wns-wns-all-coalescing, wns-ns-all-coalescing, ns-ns-all-coalescing, default,"
                    + " default-tls, default-3-nodes; the peers artemis (Artemis standalone) and artemis-pair"
                    + " (Artemis replicated primary/backup).")
    private List<String> configs;

    @Option(names = "--clients", split = ",", paramLabel = "N",
            description = "N producers and N consumers per run (default: the profile's; full: 1,2,4,8,16,32,64).")
    private List<Integer> clients;

    @Option(names = "--warmup", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "Warm-up before each measured window (default: the profile's).")
    private Duration warmUp;

    @Option(names = "--jit-warmup", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "Unmeasured load (16 pairs) on each configuration's fresh brokers before its first run, so"
                    + " that the JIT has compiled their hot paths (default: the profile's; quick 30s, full 45s,"
                    + " smoke 0s).")
    private Duration jitWarmUp;

    @Option(names = "--window", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "Measured window of each run (default: the profile's).")
    private Duration window;

    @Option(names = "--min-window-messages", paramLabel = "N",
            description = "Extend a window (by at most a minute) until N messages were consumed in it"
                    + " (default: 1; smoke: 200).")
    private Long minWindowMessages;

    @Option(names = "--body-size", paramLabel = "BYTES", defaultValue = "1024",
            description = "Message body size (default: ${DEFAULT-VALUE}).")
    private int bodySize;

    @Option(names = "--url", paramLabel = "URL",
            description = "Drive this broker instead of starting configurations: a Qpid JMS URI (amqp://,"
                    + " amqps://, failover:(...)) or the spec's connection URL"
                    + " (amqp://USER:PASSWORD@CLIENTID/VHOST?brokerlist='tcp://h1:5672;tcp://h2:5672'&failover=...).")
    private String url;

    @Option(names = "--user", paramLabel = "USER", description = "--url: the user (overrides the URL's).")
    private String user;

    @Option(names = "--password", paramLabel = "PASSWORD", description = "--url: the password (overrides the URL's).")
    private String password;

    @Option(names = "--label", paramLabel = "TEXT", defaultValue = "external",
            description = "--url: the column heading (default: ${DEFAULT-VALUE}).")
    private String label;

    @Option(names = "--queue", paramLabel = "NAME",
            description = "--url: the queue, used for every N; it must exist unless the broker creates queues on"
                    + " attach, and should be empty (default: perftest-<timestamp>-n<N>, a fresh one per N).")
    private String queue;

    @Option(names = "--results", paramLabel = "DIR",
            description = "Parent folder of the results folder (default: perftests/target/results).")
    private Path resultsBase;

    @Option(names = "--lib", paramLabel = "DIR",
            description = "The assembled broker's libraries (default: broker-dist/target/lib).")
    private Path lib = BrokerProcess.defaultLib();

    @Option(names = "--temp", paramLabel = "DIR",
            description = "Where the brokers' directories (and stores) go (default: the system's temp folder).")
    private Path temp = Path.of(System.getProperty("java.io.tmpdir"));

    @Option(names = "--broker-jvm-option", paramLabel = "OPTION",
            description = "A JVM option for every broker process (repeatable), e.g. -Xmx1g.")
    private List<String> brokerJvmOptions = new ArrayList<>();

    @Option(names = "--variant", paramLabel = "NAME=OPTIONS",
            description = "Run every Tandem configuration once per variant, the variants side by side in each round"
                    + " (repeatable): its name and what it adds, space-separated: broker JVM options, and JE"
                    + " parameters je.NAME=VALUE for its stores, e.g. --variant on= --variant"
                    + " off=-Dtandem.store.prefillLogFiles=false or --variant big=je.log.fileMax=200000000. Columns"
                    + " read <id>@<name>; the medians add each variant over the first. The peers run once per round.")
    private List<String> variantOptions = new ArrayList<>();

    @Option(names = "--variant-lib", paramLabel = "NAME=DIR",
            description = "The assembled broker a variant runs (default: --lib), to compare two builds.")
    private List<String> variantLibs = new ArrayList<>();

    @Option(names = "--je", paramLabel = "NAME=VALUE",
            description = "A JE parameter for every Tandem store's <envConfig> (repeatable), e.g."
                    + " je.log.fileMax=100000000.")
    private List<String> envConfig = new ArrayList<>();

    @Option(names = "--rep", paramLabel = "NAME=VALUE",
            description = "A JE replication parameter for every replicated Tandem node's <repConfig> (repeatable),"
                    + " e.g. je.rep.feederBatchNs=0.")
    private List<String> repConfig = new ArrayList<>();

    @Option(names = "--no-perf", description = "Do not count the master's fsyncs with perf.")
    private boolean noPerf;

    @Option(names = "--rounds", paramLabel = "R", defaultValue = "1",
            description = "Run the whole matrix R times, fresh brokers each time and the configurations in reverse"
                    + " order every other round, and report each cell's median over the rounds, with the spread, the"
                    + " median Tandem / peer ratio of the rounds and each round's ratio; each round's full report"
                    + " goes to round-<k>/ (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--drain-timeout", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "2min", description = "How long to wait for the backlog after a window"
                    + " (default: ${DEFAULT-VALUE}).")
    private Duration drainTimeout;

    private List<MatrixConfiguration> configurations;
    private double loadAtStart;
    /** The journal type each peer configuration reported using (ASYNCIO or NIO), by configuration id. */
    private final Map<String, String> journals = new LinkedHashMap<>();

    /** How one broker process ended. */
    public record BrokerNotes(String configuration, String process, int exitCode, int warnings, int errors,
                              List<String> problems) {
    }

    /**
     * What a matrix run produced: each round's tables (one unless {@code --rounds}), their medians, every broker
     * process's notes, and the results folder.
     */
    public record Report(List<MatrixTables> rounds, MatrixMedians medians, List<BrokerNotes> brokers,
                         Path resultsFolder) {
        /** Every round's runs, round after round. */
        public List<MatrixRun> runs() {
            return rounds.stream().flatMap(round -> round.runs().stream()).toList();
        }

        /** The tables of the only round (or of the last). */
        public MatrixTables tables() {
            return rounds.get(rounds.size() - 1);
        }

        /** Whether every run measured messages and received every confirmed message. */
        public boolean complete() {
            return runs().stream().allMatch(MatrixRun::measured);
        }
    }

    public static void main(String[] args) {
        System.exit(commandLine(new MatrixBenchmark()).execute(args));
    }

    private static CommandLine commandLine(MatrixBenchmark benchmark) {
        return new CommandLine(benchmark).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** Parses {@code args} as the command line would and runs the matrix (for tests). */
    public static Report run(String... args) throws Exception {
        MatrixBenchmark benchmark = new MatrixBenchmark();
        commandLine(benchmark).parseArgs(args);
        return benchmark.run(Progress.console());
    }

    @Override
    public Integer call() throws Exception {
        Report report = run(Progress.console());
        PrintStream out = System.out;
        out.println();
        if (report.rounds().size() > 1) {
            printMedians(out, report.medians());
            out.println("Results: " + report.resultsFolder());
            return report.complete() ? 0 : 1;
        }
        out.println(report.tables().specLayout().markdown());
        out.print(report.tables().footnotesMarkdown());
        out.println();
        if (report.tables().comparesWithPeer()) {
            out.println("Tandem / peer (KB/s over the Artemis column of the same kind):");
            out.println(report.tables().peerRatios().markdown());
        }
        report.medians().variantRatios().ifPresent(table -> {
            out.println("Each variant over the first variant:");
            out.println(table.markdown());
        });
        out.println("Targets:");
        out.print(report.tables().targetsMarkdown());
        out.println();
        out.println("Results: " + report.resultsFolder());
        return report.complete() ? 0 : 1;
    }

    private static void printMedians(PrintStream out, MatrixMedians medians) {
        out.println("Messages per second, the median of " + medians.rounds() + " rounds (lowest-highest):");
        out.println(medians.messagesPerSecondTable().markdown());
        if (medians.peerRatios().header().size() > 1) {
            out.println("Tandem / peer within each round: the median (each round):");
            out.println(medians.peerRatios().markdown());
        }
        medians.shareOfStandalone().ifPresent(table -> {
            out.println("Share of No HA within each round: the median (each round):");
            out.println(table.markdown());
        });
        medians.variantRatios().ifPresent(table -> {
            out.println("Each variant over the first variant within each round: the median (each round):");
            out.println(table.markdown());
        });
        medians.growth().ifPresent(table -> {
            out.println("Rate at N over the rate at the previous N within each round: the median (each round):");
            out.println(table.markdown());
        });
        out.println("CPU per message (µs), medians: broker / replicas / clients / rest of the machine:");
        out.println(medians.cpuPerMessage().markdown());
    }

    private Report run(Progress progress) throws Exception {
        resolveOptions();
        ConnectionUrl external = null;
        if (url != null) {
            try {
                external = ConnectionUrl.of(url);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--url: " + e.getMessage());
            }
        }
        Path results = ResultsFolder.create(resultsBase, "matrix");
        Files.createDirectories(temp);
        Machine machine = Machine.describe(temp);
        Files.writeString(results.resolve("machine.md"), machine.markdown());
        FsyncCounter fsyncs = external != null ? FsyncCounter.disabled("an external broker is not measured")
                : noPerf ? FsyncCounter.disabled("--no-perf given") : FsyncCounter.probe();
        Plan plan = new Plan(configurations, clients, warmUp, window, jitWarmUp, rounds);
        loadAtStart = SystemCpu.loadAverage();
        progress.println(String.format(Locale.ROOT, "matrix: %s; N = %s; warm-up %s, window %s, body %d B;%s"
                        + " planned ~%s; results in %s", external != null ? "external broker " + external.uri()
                        : String.join(", ", configurations.stream().map(MatrixConfiguration::id).toList()),
                joined(clients), text(warmUp), text(window), bodySize, rounds > 1 ? " " + rounds + " rounds;" : "",
                Progress.human(plan.remaining(0, 0, true)), results));
        if (!fsyncs.available()) {
            progress.println("fsyncs will not be counted: " + fsyncs.unavailableBecause());
        }

        List<MatrixTables> roundTables = new ArrayList<>();
        List<BrokerNotes> allBrokers = new ArrayList<>();
        journals.clear();
        for (int round = 0; round < rounds; round++) {
            roundTables.add(runRound(round, results, external, fsyncs, plan, machine, progress, allBrokers));
        }
        MatrixMedians medians = new MatrixMedians(configurations, clients, roundTables);
        if (rounds > 1) {
            roundsCsv(roundTables).writeCsv(results.resolve("matrix.csv"));
            writeCharts(results, (configuration, n) -> {
                OptionalDouble median = medians.messagesPerSecond(configuration, n);
                return median.isPresent() ? median.getAsDouble() : null;
            });
            Files.writeString(results.resolve("matrix.md"), roundsDocument(medians, machine, external));
        }
        return new Report(roundTables, medians, allBrokers, results);
    }

    /**
     * One pass over every configuration (in reverse order in odd rounds), its report written to {@code results}
     * or, with several rounds, to {@code results/round-<k>}; the brokers' notes are added to {@code allBrokers}.
     */
    private MatrixTables runRound(int round, Path results, ConnectionUrl external, FsyncCounter fsyncs, Plan plan,
                                  Machine machine, Progress progress, List<BrokerNotes> allBrokers)
            throws Exception {
        Path folder = rounds == 1 ? results : Files.createDirectories(results.resolve("round-" + (round + 1)));
        List<MatrixConfiguration> order = new ArrayList<>(configurations);
        if (round % 2 == 1) {
            Collections.reverse(order);
        }
        plan.startRound(round, order);
        if (rounds > 1) {
            progress.println(String.format(Locale.ROOT, "round %d of %d: %s", round + 1, rounds,
                    String.join(", ", order.stream().map(MatrixConfiguration::id).toList())));
        }
        List<MatrixRun> runs = new ArrayList<>();
        List<BrokerNotes> brokers = new ArrayList<>();
        Map<String, Duration> startups = new LinkedHashMap<>();
        if (external != null) {
            runExternal(external, configurations.get(0), fsyncs, plan, progress, runs);
        } else {
            for (int k = 0; k < order.size(); k++) {
                runConfiguration(order.get(k), k, fsyncs, plan, progress, folder, runs, brokers, startups);
            }
        }
        MatrixTables tables = new MatrixTables(configurations, clients, runs);
        tables.csv().writeCsv(folder.resolve("matrix.csv"));
        for (Map.Entry<String, String> distribution : tables.latencyDistributions().entrySet()) {
            Files.writeString(folder.resolve(distribution.getKey()), distribution.getValue());
        }
        writeCharts(folder, (configuration, n) -> tables.measured(configuration.id(), n)
                .map(MatrixRun::messagesPerSecond).orElse(null));
        Files.writeString(folder.resolve("matrix.md"), document(tables, brokers, startups, machine, fsyncs,
                external));
        allBrokers.addAll(brokers);
        return tables;
    }

    /** Every round's CSV rows, each with its round number first. */
    private static Table roundsCsv(List<MatrixTables> roundTables) {
        Table first = roundTables.get(0).csv();
        List<String> headers = new ArrayList<>();
        headers.add("round");
        headers.addAll(first.header());
        Table table = new Table(headers);
        for (int k = 0; k < roundTables.size(); k++) {
            for (List<String> row : roundTables.get(k).csv().rows()) {
                List<String> numbered = new ArrayList<>();
                numbered.add(Integer.toString(k + 1));
                numbered.addAll(row);
                table.add(numbered);
            }
        }
        return table;
    }

    /** Applies the profile's defaults to the options not given, and checks the combination. */
    private void resolveOptions() {
        CommandLine commandLine = spec.commandLine();
        if (clients == null) {
            clients = profile.clients;
        }
        if (jitWarmUp == null) {
            jitWarmUp = profile.jitWarmUp;
        }
        if (warmUp == null) {
            warmUp = profile.warmUp;
        }
        if (window == null) {
            window = profile.window;
        }
        if (minWindowMessages == null) {
            minWindowMessages = profile.minWindowMessages;
        }
        if (rounds < 1) {
            throw new CommandLine.ParameterException(commandLine, "--rounds must be 1 or more");
        }
        if (clients.isEmpty() || clients.stream().anyMatch(n -> n < 1)) {
            throw new CommandLine.ParameterException(commandLine, "--clients: each N must be 1 or more");
        }
        clients = List.copyOf(new LinkedHashSet<>(clients)).stream().sorted().toList();
        if (bodySize < 0) {
            throw new CommandLine.ParameterException(commandLine, "--body-size must not be negative");
        }
        try {
            BrokerFiles.parameterElements("envConfig", concat(envConfig, repConfig)); // the stores' own rule
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine, "--je / --rep: " + e.getMessage());
        }
        if (url != null) {
            if (configs != null) {
                throw new CommandLine.ParameterException(commandLine,
                        "--url drives one external broker; --configs applies only to the brokers this command starts");
            }
            if (!variantOptions.isEmpty() || !variantLibs.isEmpty()) {
                throw new CommandLine.ParameterException(commandLine,
                        "--url drives one external broker; --variant applies only to the brokers this command starts");
            }
            configurations = List.of(MatrixConfiguration.external(label));
            return;
        }
        if (user != null || password != null || queue != null) {
            throw new CommandLine.ParameterException(commandLine,
                    "--user, --password and --queue apply only with --url");
        }
        List<MatrixConfiguration> chosen = new ArrayList<>();
        for (String id : configs != null ? configs : profile.configs) {
            try {
                MatrixConfiguration configuration = MatrixConfiguration.named(id.strip());
                if (!chosen.contains(configuration)) {
                    chosen.add(configuration);
                }
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(commandLine, "--configs: " + e.getMessage());
            }
        }
        chosen.sort(Comparator.comparingInt(MatrixConfiguration.ALL::indexOf));
        List<BrokerVariant> variants;
        try {
            variants = BrokerVariant.parse(variantOptions, variantLibs, lib, brokerJvmOptions);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine, e.getMessage());
        }
        configurations = List.copyOf(withVariants(chosen, variants));
    }

    /** Each Tandem configuration once per variant, in the variants' order, side by side; the peers as they are. */
    private static List<MatrixConfiguration> withVariants(List<MatrixConfiguration> chosen,
                                                          List<BrokerVariant> variants) {
        if (variants.isEmpty()) {
            return chosen;
        }
        List<MatrixConfiguration> columns = new ArrayList<>();
        for (MatrixConfiguration configuration : chosen) {
            if (configuration.isPeer()) {
                columns.add(configuration);
            } else {
                variants.forEach(variant -> columns.add(configuration.withVariant(variant)));
            }
        }
        return columns;
    }

    /** The columns a command line would run, in their order, without running anything (for tests). */
    static List<MatrixConfiguration> columns(String... args) {
        MatrixBenchmark benchmark = new MatrixBenchmark();
        CommandLine commandLine = commandLine(benchmark);
        commandLine.parseArgs(args);
        benchmark.spec = commandLine.getCommandSpec();
        benchmark.resolveOptions();
        return benchmark.configurations;
    }

    // ------------------------------------------------------------------ configurations started here

    private void runConfiguration(MatrixConfiguration configuration, int k, FsyncCounter fsyncs, Plan plan,
                                  Progress progress, Path results, List<MatrixRun> runs, List<BrokerNotes> brokers,
                                  Map<String, Duration> startups) {
        String name = String.format(Locale.ROOT, "config %d/%d %s", k + 1, configurations.size(),
                configuration.id());
        progress.run(name, plan.remaining(k, 0, true));
        progress.println(String.format(Locale.ROOT, "[%s] starting: %s (about %s left)", name,
                configuration.settings(), Progress.human(plan.remaining(k, 0, true))));
        int before = runs.size();
        Path directory = null;
        long startNanos = System.nanoTime();
        try {
            directory = Files.createTempDirectory(temp, "tandem-perf-matrix-" + configuration.id() + "-");
            List<BrokerProcess> nodes = new ArrayList<>();
            String user;
            String password;
            HaCluster cluster = null;
            PeerCluster peer = null;
            BrokerVariant tandem = brokersOf(configuration);
            try {
                if (configuration.isPeer()) {
                    peer = PeerCluster.write(directory, configuration.peer(), brokerJvmOptions);
                    List<Path> xmls = peer.brokerXmls();
                    for (int i = 0; i < xmls.size(); i++) {
                        Files.copy(xmls.get(i), results.resolve("broker-" + configuration.id() + "-"
                                + peer.roles().get(i) + ".xml"));
                    }
                    try {
                        peer.start();
                    } finally {
                        nodes.addAll(peer.processes());
                    }
                    journals.put(configuration.id(), peer.journal());
                    progress.println(String.format(Locale.ROOT, "[%s] Artemis journal: %s", name, peer.journal()));
                    user = PeerCluster.USER;
                    password = PeerCluster.PASSWORD;
                } else if (configuration.replicated()) {
                    List<String> rep = new ArrayList<>(configuration.nodes() == 2
                            ? List.of("je.rep.electionsPrimaryRetries=0") : List.of());
                    rep.addAll(repConfig);
                    rep.addAll(tandem.repConfig());
                    cluster = HaCluster.write(directory, tandem.lib(), tandem.jvmOptions(), configuration.nodes(),
                            configuration.durability(), configuration.coalescingSync(), false, rep,
                            configuration.replicationTls(), concat(envConfig, tandem.envConfig()));
                    try {
                        cluster.start(Duration.ZERO);
                    } finally {
                        for (int i = 0; i < cluster.size(); i++) {
                            if (cluster.node(i) != null) {
                                nodes.add(cluster.node(i));
                            }
                        }
                    }
                    user = cluster.user();
                    password = cluster.password();
                } else {
                    BrokerFiles files = BrokerFiles.write(directory, tandem.lib(), StoreSetup.COALESCING, "128MiB",
                            concat(envConfig, tandem.envConfig()));
                    nodes.add(BrokerProcess.start(tandem.lib(), files, tandem.jvmOptions()));
                    user = files.user();
                    password = files.password();
                }
                String uri = failoverUri(nodes);
                int master = awaitMaster(uri, user, password, nodes);
                Duration startup = Duration.ofNanos(System.nanoTime() - startNanos);
                startups.put(configuration.id(), startup);
                plan.startedIn(configuration, startup);
                progress.println(String.format(Locale.ROOT, "[%s] ready in %.1f s; master: node %d of %d", name,
                        startup.toMillis() / 1000.0, master + 1, nodes.size()));
                Clients jms = new Clients(uri, user, password, bodySize, 0);
                measure(configuration, k, name, jms, nodes, master, fsyncs, plan, progress, runs);
            } finally {
                stop(configuration, nodes, results, brokers);
                if (cluster != null) {
                    cluster.close();
                }
                if (peer != null) {
                    peer.close();
                }
            }
        } catch (Exception e) {
            String why = (runs.size() == before ? "did not start: " : "failed: ") + reason(e);
            progress.println("[" + name + "] " + why);
            for (int n : clients) {
                if (runs.stream().noneMatch(r -> r.configuration().equals(configuration) && r.clients() == n)) {
                    runs.add(MatrixRun.failed(configuration, n, why));
                }
            }
        } finally {
            if (directory != null) {
                ResultsFolder.deleteTree(directory);
            }
        }
    }

    /**
     * The build, JVM options and JE parameters of a Tandem column's brokers: its variant, else the command's own
     * ({@code --lib}, {@code --broker-jvm-option}); {@code --je} and {@code --rep} go before either's JE parameters.
     */
    private BrokerVariant brokersOf(MatrixConfiguration configuration) {
        return configuration.variant() != null ? configuration.variant()
                : new BrokerVariant("command", lib, brokerJvmOptions, List.of());
    }

    private void measure(MatrixConfiguration configuration, int k, String name, Clients jms,
                         List<BrokerProcess> nodes, int master, FsyncCounter fsyncs, Plan plan, Progress progress,
                         List<MatrixRun> runs) throws InterruptedException {
        BrokerProcess masterProcess = nodes.get(master);
        if (!jitWarmUp.isZero()) {
            progress.run(String.format(Locale.ROOT, "%s JIT warm-up, 16 pairs (not measured)", name),
                    plan.remaining(k, 0, false));
            long started = System.nanoTime();
            new PairedLoad(jms, "perf-" + configuration.id() + "-jit", JIT_WARM_UP_PAIRS).run(masterProcess,
                    jitWarmUp, Duration.ofSeconds(1), 1, drainTimeout, FsyncCounter.disabled("JIT warm-up"), progress);
            plan.warmedUp(Duration.ofNanos(System.nanoTime() - started));
        }
        for (int i = 0; i < this.clients.size(); i++) {
            int n = this.clients.get(i);
            if (!nodes.stream().allMatch(BrokerProcess::isAlive)) {
                runs.add(MatrixRun.failed(configuration, n, "a broker process exited during an earlier run"));
                continue;
            }
            progress.run(String.format(Locale.ROOT, "%s N=%d", name, n), plan.remaining(k, i + 1, false));
            Duration replicasBefore = replicaCpu(nodes, master);
            long started = System.nanoTime();
            PairedLoad.Result result = new PairedLoad(jms, "perf-" + configuration.id() + "-n" + n, n).run(
                    masterProcess, warmUp, window, minWindowMessages, drainTimeout, fsyncs, progress);
            long elapsed = System.nanoTime() - started;
            plan.ran(Duration.ofNanos(elapsed));
            double replicaCpu = 100.0 * replicaCpu(nodes, master).minus(replicasBefore).toNanos() / elapsed;
            MatrixRun run = new MatrixRun(configuration, n, result, replicaCpu, null);
            runs.add(run);
            progress.println(summary(name, run));
        }
    }

    private void stop(MatrixConfiguration configuration, List<BrokerProcess> nodes, Path results,
                      List<BrokerNotes> brokers) throws Exception {
        int first = brokers.size(); // replicas stop first, the notes list node 1 first
        for (int i = nodes.size() - 1; i >= 0; i--) {
            BrokerProcess node = nodes.get(i);
            String process = nodes.size() == 1 ? "broker" : "node-" + (i + 1);
            int exit = node.stop(Duration.ofSeconds(60));
            node.saveOutput(results.resolve("broker-" + configuration.id()
                    + (nodes.size() == 1 ? "" : "-node-" + (i + 1)) + ".log"));
            brokers.add(first, new BrokerNotes(configuration.id(), process, exit,
                    node.warnings(), node.errors(), node.problems()));
            node.close();
        }
    }

    /** {@code failover:(every node)} with a short constant reconnect delay, bounded so that no client hangs forever. */
    private static String failoverUri(List<BrokerProcess> nodes) {
        return "failover:(" + String.join(",", nodes.stream().map(BrokerProcess::uri).toList())
                + ")?failover.reconnectDelay=50&failover.useReconnectBackOff=false"
                + "&failover.maxReconnectAttempts=600&failover.warnAfterReconnectAttempts=0";
    }

    /**
     * Sends one persistent message through the failover URI and receives it back: the group is ready when a
     * commit completes under its durability policy. Returns the index of the node the client ended up connected
     * to, the master.
     */
    private int awaitMaster(String uri, String user, String password, List<BrokerProcess> nodes) throws Exception {
        Clients probe = new Clients(Clients.withOption(uri, "jms.sendTimeout=" + PROBE_TIMEOUT.toMillis()), user,
                password, bodySize, 0);
        URI connected = withDeadline("round trip of a probe message", () -> {
            try (Connection connection = probe.syncSendConnection("perf-matrix-probe")) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("perf-matrix-probe");
                MessageProducer producer = session.createProducer(queue);
                producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                producer.send(probe.message(session, 0, 0));
                MessageConsumer consumer = session.createConsumer(queue);
                if (consumer.receive(PROBE_TIMEOUT.toMillis()) == null) {
                    throw new IllegalStateException("the probe message was not delivered back");
                }
                return ((JmsConnection) connection).getConnectedURI();
            }
        });
        for (int i = 0; i < nodes.size(); i++) {
            if (URI.create(nodes.get(i).uri()).getPort() == connected.getPort()) {
                return i;
            }
        }
        throw new IllegalStateException("connected to " + connected + ", which is none of the nodes");
    }

    private static Duration replicaCpu(List<BrokerProcess> nodes, int master) {
        Duration total = Duration.ZERO;
        for (int i = 0; i < nodes.size(); i++) {
            if (i != master) {
                total = total.plus(nodes.get(i).cpuTime());
            }
        }
        return total;
    }

    // ------------------------------------------------------------------ external broker

    private void runExternal(ConnectionUrl external, MatrixConfiguration configuration, FsyncCounter fsyncs,
                             Plan plan, Progress progress, List<MatrixRun> runs) throws InterruptedException {
        String effectiveUser = user != null ? user : external.user();
        String effectivePassword = password != null ? password : external.password();
        external.notes().forEach(note -> progress.println("--url: " + note));
        if (external.clientId() != null) {
            progress.println("--url: client ID '" + external.clientId() + "' is not used: every benchmark"
                    + " connection sets its own");
        }
        String name = "external " + configuration.label();
        Clients jms = new Clients(external.uri(), effectiveUser, effectivePassword, bodySize, 0);
        try {
            withDeadline("connection", () -> {
                try (Connection connection = jms.connection("perf-matrix-probe")) {
                    return connection.getMetaData().getProviderVersion();
                }
            });
        } catch (Exception e) {
            String why = "cannot connect to " + external.uri() + ": " + reason(e);
            progress.println("[" + name + "] " + why);
            clients.forEach(n -> runs.add(MatrixRun.failed(configuration, n, why)));
            return;
        }
        String prefix = "perftest-" + LocalDateTime.now().format(STAMP);
        for (int i = 0; i < this.clients.size(); i++) {
            int n = this.clients.get(i);
            progress.run(String.format(Locale.ROOT, "%s N=%d", name, n), plan.remaining(0, i + 1, false));
            long started = System.nanoTime();
            PairedLoad.Result result = new PairedLoad(jms, queue != null ? queue : prefix + "-n" + n, n).run(
                    null, warmUp, window, minWindowMessages, drainTimeout, fsyncs, progress);
            plan.ran(Duration.ofNanos(System.nanoTime() - started));
            MatrixRun run = new MatrixRun(configuration, n, result, 0, null);
            runs.add(run);
            progress.println(summary(name, run));
        }
    }

    // ------------------------------------------------------------------ output

    /** The rate a chart shows for a configuration at N, in msg/s; null where it did not measure. */
    private interface ChartRate {
        Double of(MatrixConfiguration configuration, int n);
    }

    private void writeCharts(Path results, ChartRate rate) throws Exception {
        Map<String, List<Double>> messages = new LinkedHashMap<>();
        Map<String, List<Double>> kilobytes = new LinkedHashMap<>();
        for (MatrixConfiguration configuration : configurations) {
            List<Double> m = new ArrayList<>();
            List<Double> kb = new ArrayList<>();
            for (int n : clients) {
                Double perSecond = rate.of(configuration, n);
                m.add(perSecond);
                kb.add(perSecond == null ? null : perSecond * bodySize / 1024.0);
            }
            messages.put(configuration.label(), m);
            kilobytes.put(configuration.label(), kb);
        }
        String subtitle = String.format(Locale.ROOT, " (persistent %d B messages, window %s)", bodySize,
                text(window));
        ThroughputChart.write(results.resolve("throughput.png"), "Throughput vs clients" + subtitle,
                "messages/s consumed", clients, messages);
        ThroughputChart.write(results.resolve("throughput-kbs.png"), "Throughput vs clients" + subtitle,
                "KB/s consumed (1 KB = 1,024 B of body)", clients, kilobytes);
    }

    private String document(MatrixTables tables, List<BrokerNotes> brokers, Map<String, Duration> startups,
                            Machine machine, FsyncCounter fsyncs, ConnectionUrl external) {
        StringBuilder text = new StringBuilder();
        text.append("# Durability matrix, ").append(LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
                .substring(0, 19)).append("\n\n");
        text.append(String.format(Locale.ROOT, "Profile %s; N = %s producers and as many consumers, each on its"
                        + " own connection, one queue per run; persistent %d-byte messages, synchronous sends,"
                        + " AUTO_ACKNOWLEDGE consumers; each configuration's fresh brokers first ran %s of"
                        + " unmeasured load (16 pairs, so that the JIT compiled their hot paths); then each run had a"
                        + " warm-up of %s and a measured window of %s. Load average (1 min) %.1f at"
                        + " the start, %.1f at the end (this machine has %d cores). ",
                profile.name().toLowerCase(Locale.ROOT), joined(clients), bodySize, text(jitWarmUp), text(warmUp),
                text(window),
                loadAtStart, SystemCpu.loadAverage(), Runtime.getRuntime().availableProcessors()));
        if (external != null) {
            text.append("Broker: external, ").append(external.uri()).append(external.virtualHost() == null ? ""
                    : " (virtual host " + external.virtualHost() + ")").append(".\n\n");
            external.notes().forEach(note -> text.append("- URL translation: ").append(note).append('\n'));
            text.append('\n');
        } else {
            text.append("Each configuration runs as separate broker processes on loopback (this machine), started"
                    + " for it and stopped after it; clients connect through Qpid JMS with a failover:(...) URI"
                    + " listing every node. ").append(brokerSettings()).append(".\n\n");
        }
        text.append("## Throughput (the spec's layout)\n\n");
        text.append("KB/s consumed (1 KB = 1,024 bytes of message body)").append(external != null ? ".\n\n"
                : " and, in brackets, the difference to No HA for the same number of clients.").append(
                        tables.hasPeer() ? " The Artemis pair's bracket is its difference to Artemis standalone;"
                                + " \"1.23x peer\" after a Tandem cell is Tandem / peer, its KB/s over the Artemis"
                                + " column of the same kind (standalone, or the replicated pair).\n\n" : "\n\n");
        text.append(tables.specLayout().markdown()).append('\n');
        String footnotes = tables.footnotesMarkdown();
        if (!footnotes.isEmpty()) {
            text.append(footnotes.replace("\n", "  \n")).append('\n');
        }
        if (tables.comparesWithPeer()) {
            text.append("## Tandem / peer\n\nEach Tandem column's KB/s over the peer's of the same kind at the same N"
                    + " (standalone over Artemis standalone, replicated over the Artemis replicated pair); above 1.00x"
                    + " Tandem moved more.\n\n")
                    .append(tables.peerRatios().markdown()).append('\n');
        }
        new MatrixMedians(configurations, clients, List.of(tables)).variantRatios().ifPresent(table -> text.append(
                "## Each variant over the first\n\nEach later variant's KB/s over the first variant's column of the"
                        + " same set-up at the same N.\n\n").append(table.markdown()).append('\n'));
        text.append("## Targets\n\n");
        text.append("The default configuration (NO_SYNC, NO_SYNC, SIMPLE_MAJORITY with coalescing-sync, two nodes)"
                + " at 16 and 64 clients: at least 75 % of No HA, and at least 4x SYNC, SYNC, ALL.\n\n");
        text.append(tables.targetsMarkdown()).append('\n');
        text.append("## Messages per second\n\n").append(tables.messagesPerSecond().markdown()).append('\n');
        text.append("## Latency p50 / p99 (ms)\n\nEnd to end, from the send call to the consumer's receive, over"
                + " the messages consumed in the window.\n\n").append(tables.latency().markdown()).append('\n');
        text.append("## CPU per message (µs): broker / replicas / clients / rest of the machine\n\nCPU time in the"
                + " window per message consumed in it. Broker: the master (for a peer, its active server); replicas:"
                + " their CPU over the whole run (warm-up, window, drain) over the window's rate, so an upper bound;"
                + " clients: this benchmark's JVM (every producer and consumer); the rest: everything else the"
                + " machine ran in the window (kernel threads, other processes, and the replicas again: their window"
                + " share is in both columns).\n\n").append(tables.cpuPerMessage().markdown())
                .append('\n');
        text.append("## Per run\n\n").append(tables.details().markdown()).append('\n');
        text.append(fsyncs.available()
                ? "fsyncs/msg: fsync + fdatasync calls of the master process in the window (perf stat) per message"
                        + " produced in it; each synchronous send is one store commit (n/a where the window had to be"
                        + " extended past the counted period).\n"
                : "fsyncs/msg: n/a: " + fsyncs.unavailableBecause() + ".\n");
        text.append("CPU: in % of one core (this machine has ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores); broker = the master, over the window; replica = the other nodes together, over the"
                        + " whole run; other = every other process on the machine, over the window (where it is"
                        + " high, the figures were disturbed).\n\n");
        if (external == null) {
            text.append("## Configurations\n\n");
            Table table = new Table(List.of("id", "column", "settings", "journal", "ready after"));
            for (MatrixConfiguration c : configurations) {
                Duration startup = startups.get(c.id());
                table.add(List.of(c.id(), c.label(), c.settings(), c.isPeer()
                        ? journals.getOrDefault(c.id(), "unknown (did not start)") : "JE log",
                        startup == null ? "did not start"
                        : String.format(Locale.ROOT, "%.1f s", startup.toMillis() / 1000.0)));
            }
            text.append(table.markdown()).append('\n');
            if (configurations.stream().anyMatch(MatrixConfiguration::isPeer)) {
                text.append(PEER_NOTE).append("\n\n");
            }
            text.append("## Brokers\n\n");
            for (BrokerNotes b : brokers) {
                text.append(String.format(Locale.ROOT, "- %s %s: exit code %d after SIGTERM, %d WARN and %d ERROR"
                        + " lines%n", b.configuration(), b.process(), b.exitCode(), b.warnings(), b.errors()));
                b.problems().stream().limit(10).forEach(line -> text.append("    ").append(line).append('\n'));
            }
            text.append('\n');
        }
        text.append("## Charts\n\n`throughput.png` (messages/s) and `throughput-kbs.png` (KB/s) against N.\n\n");
        text.append("## Machine\n\n").append(machine.markdown());
        return text.toString();
    }

    /** matrix.md of a run of several rounds: the medians, and where each round's full report is. */
    private String roundsDocument(MatrixMedians medians, Machine machine, ConnectionUrl external) {
        StringBuilder text = new StringBuilder();
        text.append("# Durability matrix, ").append(medians.rounds()).append(" rounds, ")
                .append(LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).substring(0, 19))
                .append("\n\n");
        text.append(String.format(Locale.ROOT, "Profile %s; N = %s producers and as many consumers; persistent"
                        + " %d-byte messages; %s of unmeasured load per configuration's fresh brokers, then per run a"
                        + " warm-up of %s and a window of %s. The whole matrix ran %d times, fresh brokers each time,"
                        + " the configurations in reverse order every other round%s. Load average (1 min) %.1f at the"
                        + " start, %.1f at the end (this machine has %d cores). %s.\n\n",
                profile.name().toLowerCase(Locale.ROOT), joined(clients), bodySize, text(jitWarmUp), text(warmUp),
                text(window), medians.rounds(), external != null ? " (an external broker: " + external.uri() + ")"
                        : "", loadAtStart, SystemCpu.loadAverage(), Runtime.getRuntime().availableProcessors(),
                brokerSettings()));
        text.append("Each figure is the median of the rounds that measured it. Ratios are taken within each round,"
                + " where the setups ran side by side, and then their median; the bracket lists each round's ratio in"
                + " order (\"-\": that round did not measure both). Each round's full report (the spec's layout,"
                + " targets, latency, fsyncs, per-run details, broker logs) is in `round-1/matrix.md` to `round-")
                .append(medians.rounds()).append("/matrix.md`; `matrix.csv` here holds every round's rows.\n\n");
        text.append("## Messages per second, median (lowest-highest)\n\n")
                .append(medians.messagesPerSecondTable().markdown()).append('\n');
        Table peer = medians.peerRatios();
        if (peer.header().size() > 1) {
            text.append("## Tandem / peer, median (each round)\n\nEach Tandem column's rate over the peer's of the"
                    + " same kind (standalone over Artemis standalone, replicated over the Artemis replicated pair)"
                    + " in the same round.\n\n").append(peer.markdown()).append('\n');
        }
        medians.shareOfStandalone().ifPresent(table -> text.append("## Share of No HA, median (each round)\n\n"
                + "The target for the default configuration at N = 16 and 64 is 75 %.\n\n")
                .append(table.markdown()).append('\n'));
        medians.variantRatios().ifPresent(table -> text.append("## Each variant over the first, median (each round)"
                + "\n\nEach later variant's rate over the first variant's column of the same set-up in the same round."
                + "\n\n").append(table.markdown()).append('\n'));
        medians.growth().ifPresent(table -> text.append("## Rate against the previous N, median (each round)\n\n")
                .append(table.markdown()).append('\n'));
        text.append("## Latency p50 / p99 (ms), medians\n\n").append(medians.latency().markdown()).append('\n');
        text.append("## CPU per message (µs), medians: broker / replicas / clients / rest of the machine\n\n"
                + "Each part as each round's report defines it (the replicas' over the whole run, so an upper"
                + " bound), then the median of the rounds.\n\n").append(medians.cpuPerMessage().markdown())
                .append('\n');
        text.append("## Charts\n\n`throughput.png` (messages/s) and `throughput-kbs.png` (KB/s): the medians"
                + " against N; each round's in its folder.\n\n");
        text.append("## Machine\n\n").append(machine.markdown());
        return text.toString();
    }

    /** What the peer columns are, for matrix.md. */
    static final String PEER_NOTE = "Peer columns: Apache ActiveMQ Artemis 2.50 (a perftests dependency only),"
            + " started by this harness as embedded servers in their own JVMs (ArtemisPeer) from the generated"
            + " broker-artemis*-*.xml kept in this folder: AMQP acceptor on loopback, persistence on, security off,"
            + " queues created on attach. The standalone server syncs its journal before a commit completes"
            + " (journal-sync-transactional and journal-sync-non-transactional true); in the pair (shared-nothing"
            + " replication, ha-policy replication primary/backup) the primary also waits for the backup's"
            + " replication acknowledgement, and the backup appends without syncing. Journal: ASYNCIO when libaio"
            + " loads (libaio direct I/O; with journal-datasync it still calls fdatasync, counted in fsyncs/msg),"
            + " NIO otherwise; the results record which the server used (matrix: column journal; ha: the set-up)."
            + " The pair is measured only after the backup announced itself"
            + " and finished its initial replication; clients use a failover:(primary,backup) URI.";

    private static String summary(String name, MatrixRun run) {
        PairedLoad.Result r = run.result();
        DeliveryLedger.Check check = r.ledger();
        return String.format(Locale.ROOT, "[%s N=%d] %,.0f msg/s, %,.0f KB/s; latency p50 %s ms, p99 %s ms"
                        + " (a send's confirmation p99 %s ms); %,d of %,d confirmed received%s", name, run.clients(),
                run.messagesPerSecond(), run.kbPerSecond(), ThroughputBenchmark.millis(r.latencyMicros(), 50),
                ThroughputBenchmark.millis(r.latencyMicros(), 99),
                ThroughputBenchmark.millis(r.sendLatencyMicros(), 99), check.confirmed() - check.missing(),
                check.confirmed(), run.measured() ? "" : "; FAILED: " + run.failure());
    }

    /** The options given to the brokers: JVM options (every broker) and JE parameters (Tandem's stores). */
    private String brokerSettings() {
        List<String> je = concat(envConfig, repConfig);
        List<BrokerVariant> variants = configurations.stream().map(MatrixConfiguration::variant)
                .filter(Objects::nonNull).distinct().toList();
        return "Broker JVM options: " + (brokerJvmOptions.isEmpty() ? "none (JVM defaults)"
                : String.join(" ", brokerJvmOptions)) + "; JE parameters of Tandem's stores: "
                + (je.isEmpty() ? "none (the shipped defaults)" : String.join(" ", je))
                + (variants.isEmpty() ? "" : "; variants of Tandem's brokers: " + String.join("; ",
                        variants.stream().map(BrokerVariant::describe).toList()));
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> both = new ArrayList<>(first);
        both.addAll(second);
        return both;
    }

    private static String joined(List<Integer> values) {
        return String.join(", ", values.stream().map(String::valueOf).toList());
    }

    /** {@code 500 ms}, {@code 6 s}, {@code 2.5 s}, {@code 5 min}. */
    static String text(Duration duration) {
        long millis = duration.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 120_000 || millis % 60_000 != 0) {
            return millis % 1000 == 0 ? millis / 1000 + " s"
                    : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        return millis / 60_000 + " min";
    }

    /** The first line of the innermost useful message. */
    private static String reason(Throwable e) {
        Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String message = t.getMessage() == null ? t.getClass().getSimpleName()
                : t.getClass().getSimpleName() + ": " + t.getMessage();
        return message.lines().findFirst().orElse(message);
    }

    /** Runs {@code task} on a daemon thread and waits at most {@link #PROBE_TIMEOUT} for it. */
    private static <T> T withDeadline(String what, Callable<T> task) throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "perf-matrix-probe");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<T> future = executor.submit(task);
            try {
                return future.get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                future.cancel(true);
                throw new IllegalStateException("no " + what + " within " + PROBE_TIMEOUT.toSeconds() + " s");
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /**
     * The expected duration of what is left, for the progress line: the runs (warm-up, window and the overhead of
     * connecting and draining, learnt from the runs so far) and the start-ups (learnt per node).
     */
    private static final class Plan {
        private List<MatrixConfiguration> configurations;
        private final List<Integer> clients;
        private final Duration perRunWindows;
        private final int rounds;
        private int round;
        private long jitWarmUpMillis;
        private long overheadMillis = 3_000;
        private int runsSeen;
        private long startupPerNodeMillis = 6_000;
        private int startupsSeen;

        Plan(List<MatrixConfiguration> configurations, List<Integer> clients, Duration warmUp, Duration window,
             Duration jitWarmUp, int rounds) {
            this.configurations = configurations;
            this.clients = clients;
            this.perRunWindows = warmUp.plus(window);
            this.jitWarmUpMillis = jitWarmUp.isZero() ? 0 : jitWarmUp.toMillis() + 4_000;
            this.rounds = rounds;
        }

        /** Round {@code round} (from 0) runs the configurations in {@code order}. */
        void startRound(int round, List<MatrixConfiguration> order) {
            this.round = round;
            this.configurations = List.copyOf(order);
        }

        void warmedUp(Duration wall) {
            jitWarmUpMillis = wall.toMillis();
        }

        void ran(Duration wall) {
            long overhead = Math.max(0, wall.minus(perRunWindows).toMillis());
            overheadMillis = (overheadMillis * runsSeen + overhead) / (runsSeen + 1);
            runsSeen++;
        }

        void startedIn(MatrixConfiguration configuration, Duration startup) {
            long perNode = startup.toMillis() / Math.max(1, configuration.nodes());
            startupPerNodeMillis = (startupPerNodeMillis * startupsSeen + perNode) / (startupsSeen + 1);
            startupsSeen++;
        }

        /**
         * From configuration {@code k} of this round's order, run index {@code i} on (its start-up too when
         * {@code withStartup}), to the end of the last round.
         */
        Duration remaining(int k, int i, boolean withStartup) {
            long millis = (rounds - round - 1) * remainingInRound(0, 0, true);
            return Duration.ofMillis(millis + remainingInRound(k, i, withStartup));
        }

        private long remainingInRound(int k, int i, boolean withStartup) {
            long millis = 0;
            for (int c = k; c < configurations.size(); c++) {
                if (c > k || withStartup) {
                    millis += startupPerNodeMillis * Math.max(1, configurations.get(c).nodes()) + 2_000
                            + jitWarmUpMillis;
                }
                for (int n = c == k ? i : 0; n < clients.size(); n++) {
                    millis += perRunWindows.toMillis() + overheadMillis;
                }
            }
            return millis;
        }
    }
}
