package org.tandembroker.perftests;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Throughput and end-to-end latency of persistent messages per store setup: for each setup a broker process is
 * started from the assembled distribution with a generated configuration, loaded with N producer/consumer pairs
 * for N = 1, 4, 16 (one queue per N), stopped with SIGTERM, and its temporary directory deleted. Prints a Markdown
 * table and writes it, a CSV file, the machine's description and each broker's console output into a results
 * folder. Exit code 0 when every confirmed message was received in every run, 1 otherwise.
 *
 * <p>Threads: the main thread runs the configurations one after another; {@link PairedLoad} has its own.
 */
@Command(name = "throughput", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Throughput and latency per store durability setting (persistent messages, sync sends).")
public final class ThroughputBenchmark implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--quick", description = "2 s warm-up and 5 s windows (unless --warmup/--window are given).")
    private boolean quick;

    @Option(names = "--smoke", description = "A check that the harness works: N=1, 1 s warm-up, 1 s window"
            + " extended until 200 messages were consumed.")
    private boolean smoke;

    @Option(names = "--warmup", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "Warm-up before each measured window (default: ${DEFAULT-VALUE}).", defaultValue = "5s")
    private Duration warmUp;

    @Option(names = "--window", converter = DurationConverter.class, paramLabel = "DURATION",
            description = "Measured window of each run (default: ${DEFAULT-VALUE}).", defaultValue = "20s")
    private Duration window;

    @Option(names = "--pairs", split = ",", paramLabel = "N",
            description = "Producer/consumer pair counts (default: ${DEFAULT-VALUE}).", defaultValue = "1,4,16")
    private List<Integer> pairs;

    @Option(names = "--stores", split = ",", paramLabel = "NAME",
            description = "Store setups: coalescing, no-sync, sync (default: ${DEFAULT-VALUE}).",
            defaultValue = "coalescing,no-sync,sync")
    private List<String> stores;

    @Option(names = "--min-window-messages", paramLabel = "N", defaultValue = "1",
            description = "Extend a window (by at most a minute) until N messages were consumed in it"
                    + " (default: ${DEFAULT-VALUE}; --smoke: 200).")
    private long minWindowMessages;

    @Option(names = "--body-size", paramLabel = "BYTES", defaultValue = "1024",
            description = "Message body size (default: ${DEFAULT-VALUE}).")
    private int bodySize;

    @Option(names = "--broker-jvm-option", paramLabel = "OPTION",
            description = "A JVM option for the broker process (repeatable), e.g. -Xmx1g.")
    private List<String> brokerJvmOptions = new ArrayList<>();

    @Option(names = "--no-perf", description = "Do not count the broker's fsyncs with perf.")
    private boolean noPerf;

    @Option(names = "--drain-timeout", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "5min",
            description = "How long to wait for the backlog after a window (default: ${DEFAULT-VALUE}).")
    private Duration drainTimeout;

    @Option(names = "--je", paramLabel = "NAME=VALUE",
            description = "A JE parameter for the store's <envConfig> (repeatable), e.g. je.maxMemoryPercent=20.")
    private List<String> envConfig = new ArrayList<>();

    @Option(names = "--prefetch", paramLabel = "N", defaultValue = "0",
            description = "Each consumer's prefetch (link credit); 0 keeps Qpid JMS's default, 1000.")
    private int prefetch;

    @Option(names = "--lib", paramLabel = "DIR",
            description = "The assembled broker's libraries (default: broker-dist/target/lib).")
    private Path lib = BrokerProcess.defaultLib();

    @Option(names = "--results", paramLabel = "DIR",
            description = "Parent folder of the results folder (default: perftests/target/results).")
    private Path resultsBase;

    @Option(names = "--temp", paramLabel = "DIR",
            description = "Where the brokers' temporary directories (and stores) go (default: the system's).")
    private Path temp = Path.of(System.getProperty("java.io.tmpdir"));

    /** One run: a store setup under N pairs. */
    public record Row(StoreSetup store, PairedLoad.Result result) {
    }

    /** How one store setup's broker behaved over its runs. */
    public record BrokerNotes(StoreSetup store, int exitCode, int warnings, int errors, List<String> problems) {
    }

    /** Everything a benchmark run produced. */
    public record Report(List<Row> rows, List<BrokerNotes> brokers, Table table, Path resultsFolder) {
        /** Whether every run received every confirmed message and drained in time. */
        public boolean complete() {
            return rows.stream().allMatch(r -> r.result().drained() && r.result().ledger().complete()
                    && r.result().errors().isEmpty());
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ThroughputBenchmark()).execute(args));
    }

    /** Parses {@code args} as the command line would and runs the benchmark (for tests). */
    public static Report run(String... args) throws Exception {
        ThroughputBenchmark benchmark = new ThroughputBenchmark();
        new CommandLine(benchmark).parseArgs(args);
        return benchmark.run(Progress.console());
    }

    @Override
    public Integer call() throws Exception {
        Report report = run(Progress.console());
        PrintStream out = System.out;
        out.println();
        out.println(report.table().markdown());
        out.println("Results: " + report.resultsFolder());
        return report.complete() ? 0 : 1;
    }

    private Report run(Progress progress) throws Exception {
        applyPresets();
        List<StoreSetup> setups = stores.stream().map(StoreSetup::named).toList();
        Path results = ResultsFolder.create(resultsBase, "throughput");
        Files.createDirectories(temp);
        Machine machine = Machine.describe(temp);
        FsyncCounter fsyncs = noPerf ? FsyncCounter.disabled("--no-perf given") : FsyncCounter.probe();
        if (!fsyncs.available()) {
            progress.println("fsyncs will not be counted: " + fsyncs.unavailableBecause());
        }
        progress.println(String.format(Locale.ROOT, "throughput: stores %s, N %s, warm-up %s, window %s, body %d B;"
                + " results in %s", stores, pairs, warmUp, window, bodySize, results));

        List<Row> rows = new ArrayList<>();
        List<BrokerNotes> brokers = new ArrayList<>();
        int totalRuns = setups.size() * pairs.size();
        for (StoreSetup store : setups) {
            Path directory = Files.createTempDirectory(temp, "tandem-perf-" + store.name() + "-");
            try {
                BrokerFiles files = BrokerFiles.write(directory, lib, store, null, envConfig);
                try (BrokerProcess broker = BrokerProcess.start(lib, files, brokerJvmOptions)) {
                    Clients clients = new Clients(broker.uri(), files.user(), files.password(), bodySize, prefetch);
                    for (int n : pairs) {
                        int done = rows.size();
                        progress.run(String.format(Locale.ROOT, "run %d/%d %s N=%d", done + 1, totalRuns,
                                store.name(), n), perRun().multipliedBy(totalRuns - done - 1));
                        PairedLoad load = new PairedLoad(clients, "perf-" + store.name() + "-n" + n, n);
                        PairedLoad.Result result = load.run(broker, warmUp, window, minWindowMessages, drainTimeout,
                                fsyncs, progress);
                        rows.add(new Row(store, result));
                        progress.println(summary(store, result));
                        if (!broker.isAlive()) {
                            progress.println("the broker exited during the run; skipping the rest of " + store.name());
                            break;
                        }
                    }
                    int exit = broker.stop(Duration.ofSeconds(60));
                    broker.saveOutput(results.resolve("broker-" + store.name() + ".log"));
                    brokers.add(new BrokerNotes(store, exit, broker.warnings(), broker.errors(), broker.problems()));
                }
            } finally {
                ResultsFolder.deleteTree(directory);
            }
        }
        Table table = table(rows);
        table(rows, true).writeCsv(results.resolve("throughput.csv"));
        Files.writeString(results.resolve("machine.md"), machine.markdown());
        Files.writeString(results.resolve("throughput.md"), document(table, brokers, machine, fsyncs));
        return new Report(rows, brokers, table, results);
    }

    private void applyPresets() {
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (smoke) {
            if (!given.hasMatchedOption("--warmup")) {
                warmUp = Duration.ofSeconds(1);
            }
            if (!given.hasMatchedOption("--window")) {
                window = Duration.ofSeconds(1);
            }
            if (!given.hasMatchedOption("--pairs")) {
                pairs = List.of(1);
            }
            if (!given.hasMatchedOption("--min-window-messages")) {
                minWindowMessages = 200;
            }
        } else if (quick) {
            if (!given.hasMatchedOption("--warmup")) {
                warmUp = Duration.ofSeconds(2);
            }
            if (!given.hasMatchedOption("--window")) {
                window = Duration.ofSeconds(5);
            }
        }
    }

    /** A rough duration of one run, for the progress line's estimate. */
    private Duration perRun() {
        return warmUp.plus(window).plusSeconds(3);
    }

    private String summary(StoreSetup store, PairedLoad.Result r) {
        DeliveryLedger.Check check = r.ledger();
        return String.format(Locale.ROOT, "%s N=%d: %,.0f msg/s consumed, %,.0f produced; latency p50 %s ms, p99 %s ms;"
                        + " %,d of %,d confirmed received%s%s", store.name(), r.pairs(), r.consumedPerSecond(),
                r.producedPerSecond(), millis(r.latencyMicros(), 50), millis(r.latencyMicros(), 99),
                check.confirmed() - check.missing(), check.confirmed(),
                r.drained() ? "" : " (DRAIN TIMED OUT)",
                r.errors().isEmpty() ? "" : "; errors: " + r.errors());
    }

    static Table table(List<Row> rows) {
        return table(rows, false);
    }

    private static Table table(List<Row> rows, boolean csv) {
        Table table = new Table(csv
                ? List.of("store", "durability", "coalescingSync", "fsynced_before_confirm", "pairs", "window_s",
                        "consumed_msgs", "produced_msgs", "consumed_msg_per_s", "consumed_kib_per_s",
                        "produced_msg_per_s", "produced_kib_per_s", "latency_p50_ms", "latency_p99_ms",
                        "latency_max_ms", "fsyncs", "fsyncs_per_msg", "broker_cpu_pct", "client_cpu_pct", "other_cpu_pct",
                        "confirmed_total", "received_total", "missing", "duplicates", "drained", "errors")
                : List.of("store", "durability, coalescingSync", "confirm means", "N", "consumed msg/s",
                        "consumed KiB/s", "produced msg/s", "produced KiB/s", "p50 ms", "p99 ms", "fsyncs/msg",
                        "broker CPU", "client CPU", "other CPU", "received/confirmed"));
        for (Row row : rows) {
            PairedLoad.Result r = row.result();
            StoreSetup s = row.store();
            DeliveryLedger.Check check = r.ledger();
            String fsyncsPerMessage = r.fsyncs().available() && r.producedInWindow() > 0
                    ? String.format(Locale.ROOT, "%.3f", (double) r.fsyncs().count() / r.producedInWindow()) : "n/a";
            if (csv) {
                table.add(List.of(s.name(), s.durability(), Boolean.toString(s.coalescingSync()),
                        Boolean.toString(s.fsyncBeforeConfirm()), Integer.toString(r.pairs()),
                        fixed(r.window().toMillis() / 1000.0, 3), Long.toString(r.consumedInWindow()),
                        Long.toString(r.producedInWindow()), fixed(r.consumedPerSecond(), 1),
                        fixed(r.consumedPerSecond() * kibPerMessage(row), 1), fixed(r.producedPerSecond(), 1),
                        fixed(r.producedPerSecond() * kibPerMessage(row), 1), millis(r.latencyMicros(), 50),
                        millis(r.latencyMicros(), 99), millis(r.latencyMicros(), 100),
                        r.fsyncs().available() ? Long.toString(r.fsyncs().count()) : "",
                        fsyncsPerMessage.equals("n/a") ? "" : fsyncsPerMessage,
                        fixed(r.brokerCpuPercent(), 0), fixed(r.clientCpuPercent(), 0),
                        fixed(r.otherCpuPercent(), 0), Long.toString(check.confirmed()), Long.toString(check.received()),
                        Long.toString(check.missing()), Long.toString(check.duplicates()),
                        Boolean.toString(r.drained()), String.join("; ", r.errors())));
            } else {
                table.add(List.of(s.name(), s.durability() + ", " + s.coalescingSync(),
                        s.fsyncBeforeConfirm() ? (s.coalescingSync() ? "fsync per batch" : "fsync per commit")
                                : "**not fsynced**",
                        Integer.toString(r.pairs()), grouped(r.consumedPerSecond()),
                        grouped(r.consumedPerSecond() * kibPerMessage(row)), grouped(r.producedPerSecond()),
                        grouped(r.producedPerSecond() * kibPerMessage(row)), millis(r.latencyMicros(), 50),
                        millis(r.latencyMicros(), 99), fsyncsPerMessage,
                        fixed(r.brokerCpuPercent(), 0) + " %", fixed(r.clientCpuPercent(), 0) + " %",
                        fixed(r.otherCpuPercent(), 0) + " %",
                        String.format(Locale.ROOT, "%,d/%,d%s", check.received() - check.unconfirmedArrivals(),
                                check.confirmed(), r.drained() ? "" : " (drain timed out)")));
            }
        }
        return table;
    }

    private static double kibPerMessage(Row row) {
        return row.result().bodySize() / 1024.0;
    }

    private String document(Table table, List<BrokerNotes> brokers, Machine machine, FsyncCounter fsyncs) {
        StringBuilder text = new StringBuilder();
        text.append("# Throughput, ").append(LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME))
                .append("\n\n");
        text.append(String.format(Locale.ROOT, "Persistent %d-byte messages, one queue per run, N producer/consumer"
                + " pairs each on its own connection, synchronous sends, AUTO_ACKNOWLEDGE consumers; warm-up %s,"
                + " measured window %s. Broker JVM options: %s. JE parameters: %s.%n%n", bodySize, warmUp, window,
                brokerJvmOptions.isEmpty() ? "none (JVM defaults)" : String.join(" ", brokerJvmOptions),
                envConfig.isEmpty() ? "defaults" : String.join(" ", envConfig)));
        text.append(table.markdown()).append('\n');
        text.append(fsyncs.available()
                ? "fsyncs/msg: fsync + fdatasync calls of the broker process in the window (perf stat on the syscall"
                        + " tracepoints) per message produced in it; each synchronous send is one store commit.\n"
                : "fsyncs/msg: n/a: " + fsyncs.unavailableBecause() + "; the broker reports no fsync count itself.\n");
        text.append("CPU columns: CPU time used in the window, in % of one core (the machine has "
                + Runtime.getRuntime().availableProcessors() + " cores); \"other\" is every other process on the"
                + " machine: where it is high, the figures were disturbed.\n");
        text.append("\n## Brokers\n\n");
        for (BrokerNotes b : brokers) {
            text.append(String.format(Locale.ROOT, "- %s: exit code %d after SIGTERM, %d WARN and %d ERROR lines%n",
                    b.store().name(), b.exitCode(), b.warnings(), b.errors()));
            b.problems().stream().limit(20).forEach(line -> text.append("    ").append(line).append('\n'));
        }
        text.append("\n## Machine\n\n").append(machine.markdown());
        return text.toString();
    }

    static String millis(Histogram micros, double percentile) {
        if (micros.getTotalCount() == 0) {
            return "n/a";
        }
        long value = percentile >= 100 ? micros.getMaxValue() : micros.getValueAtPercentile(percentile);
        return fixed(value / 1000.0, value < 10_000 ? 2 : 1);
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String grouped(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }
}
