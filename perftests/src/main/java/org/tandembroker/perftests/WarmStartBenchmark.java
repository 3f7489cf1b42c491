package org.tandembroker.perftests;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Warm start: how soon a cold broker moves what it moves warm. For each setup ({@link WarmStartRun.Setup}: a
 * fresh standalone broker, and a replica that has just become master after a kill -9) and each variant (a broker
 * build and its JVM options), the load of {@code bin/perftest throughput} (N pairs, synchronous persistent
 * messages) runs from the moment the broker listens (or the master is killed) until the same broker is warm;
 * throughput is counted per bucket (1 s) from the first message it served, against the warm rate of the same
 * broker after {@code --warm-after} (60 s). Target (issue 13): at least 80 % of warm within 10 s of serving.
 * The clients' JVM (this one) is warmed first against a throwaway broker, so that only the broker is cold.
 * Variants alternate within each round, so that every variant sees the same load on the machine.
 *
 * <p>Threads: the main thread runs everything; {@link SteadyLoad} has its own.
 */
@Command(name = "warm-start", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Throughput per second of a fresh broker and of a replica that has just become master,"
                + " against the same broker warm (target: >= 80 %% within 10 s of serving). The brokers it starts"
                + " do not warm up before serving unless a variant says so: --variant warmup=-Dtandem.warmUp=40s"
                + " (the shipped etc/broker.xml warms up for at most 40 s).")
public final class WarmStartBenchmark implements Callable<Integer> {
    private static final Duration REPORTED_BUCKET = Duration.ofSeconds(2);

    @Spec
    private CommandSpec spec;

    @Option(names = "--smoke", description = "A check that the harness works: 2 pairs, 1 round, 2 s before the"
            + " kill, warm window 1 s at 3 s, no client warm-up.")
    private boolean smoke;

    @Option(names = "--setups", split = ",", paramLabel = "NAME", defaultValue = "fresh,failover",
            description = "fresh (a new standalone broker), failover (kill -9 of a two-node group's master)"
                    + " (default: ${DEFAULT-VALUE}).")
    private List<String> setups;

    @Option(names = "--variant", paramLabel = "NAME=OPTIONS",
            description = "A variant: its name and the broker JVM options (and je.NAME=VALUE JE parameters) it adds,"
                    + " space-separated (repeatable; default: one variant 'default' without options), e.g. --variant"
                    + " base= --variant c2='-XX:Tier4InvocationThreshold=2000'.")
    private List<String> variantOptions = new ArrayList<>();

    @Option(names = "--variant-lib", paramLabel = "NAME=DIR",
            description = "The assembled broker a variant runs (default: --lib), to compare builds.")
    private List<String> variantLibs = new ArrayList<>();

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "2",
            description = "Rounds; each runs every setup with every variant in turn (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--pairs", paramLabel = "N", defaultValue = "16",
            description = "Producer/consumer pairs (default: ${DEFAULT-VALUE}).")
    private int pairs;

    @Option(names = "--span", converter = DurationConverter.class, paramLabel = "DURATION", defaultValue = "30s",
            description = "How much of the curve after serving is reported (default: ${DEFAULT-VALUE}).")
    private Duration span;

    @Option(names = "--bucket", converter = DurationConverter.class, paramLabel = "DURATION", defaultValue = "1s",
            description = "The curve's bucket (default: ${DEFAULT-VALUE}).")
    private Duration bucket;

    @Option(names = "--warm-after", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "60s", description = "Where the warm reference window starts, from serving"
                    + " (default: ${DEFAULT-VALUE}).")
    private Duration warmAfter;

    @Option(names = "--warm-window", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "20s", description = "The warm reference window (default: ${DEFAULT-VALUE}).")
    private Duration warmWindow;

    @Option(names = "--before-kill", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "60s", description = "failover: load on the group before the kill, so that the"
                    + " replica's own paths are warm (default: ${DEFAULT-VALUE}).")
    private Duration beforeKill;

    @Option(names = "--client-warmup", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "40s", description = "Load against a throwaway broker first, so that the clients are"
                    + " warm (default: ${DEFAULT-VALUE}; 0s: none).")
    private Duration clientWarmUp;

    @Option(names = "--target", paramLabel = "FRACTION", defaultValue = "0.8",
            description = "The fraction of the warm rate to reach (default: ${DEFAULT-VALUE}).")
    private double target;

    @Option(names = "--deadline", converter = DurationConverter.class, paramLabel = "DURATION", defaultValue = "10s",
            description = "Within how long of serving (default: ${DEFAULT-VALUE}).")
    private Duration deadline;

    @Option(names = "--body-size", paramLabel = "BYTES", defaultValue = "1024",
            description = "Message body size (default: ${DEFAULT-VALUE}).")
    private int bodySize;

    @Option(names = "--broker-jvm-option", paramLabel = "OPTION",
            description = "A JVM option for every broker process of every variant (repeatable).")
    private List<String> brokerJvmOptions = new ArrayList<>();

    @Option(names = "--drain-timeout", converter = DurationConverter.class, paramLabel = "DURATION",
            defaultValue = "2min", description = "How long to wait for the backlog after a run"
                    + " (default: ${DEFAULT-VALUE}).")
    private Duration drainTimeout;

    @Option(names = "--lib", paramLabel = "DIR",
            description = "The assembled broker's libraries (default: broker-dist/target/lib).")
    private Path lib = BrokerProcess.defaultLib();

    @Option(names = "--results", paramLabel = "DIR",
            description = "Parent folder of the results folder (default: perftests/target/results).")
    private Path resultsBase;

    @Option(names = "--temp", paramLabel = "DIR",
            description = "Where the brokers' temporary directories (and stores) go (default: the system's).")
    private Path temp = Path.of(System.getProperty("java.io.tmpdir"));

    /** A run and what its curve shows. */
    public record Row(WarmStartRun.Result result, WarmStartCurve.Reading reading) {
    }

    /** Everything a benchmark run produced. */
    public record Report(List<Row> rows, Path resultsFolder, String markdown) {
        /** Whether every run served, drained and received every confirmed message. */
        public boolean complete() {
            return !rows.isEmpty() && rows.stream().allMatch(r -> r.result().ok()
                    && r.reading().toServing().isPresent());
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new WarmStartBenchmark()).execute(args));
    }

    /** Parses {@code args} as the command line would and runs the benchmark (for tests). */
    public static Report run(String... args) throws Exception {
        WarmStartBenchmark benchmark = new WarmStartBenchmark();
        new CommandLine(benchmark).parseArgs(args);
        return benchmark.run(Progress.console());
    }

    @Override
    public Integer call() throws Exception {
        Report report = run(Progress.console());
        PrintStream out = System.out;
        out.println();
        out.println(report.markdown());
        out.println("Results: " + report.resultsFolder());
        return report.complete() ? 0 : 1;
    }

    private Report run(Progress progress) throws Exception {
        applyPresets();
        List<WarmStartRun.Setup> chosen = setups.stream().map(WarmStartRun.Setup::named).toList();
        List<BrokerVariant> variants = variants();
        if (bucket.toMillis() % WarmStartCurve.SLOT_MILLIS != 0
                || REPORTED_BUCKET.toMillis() % bucket.toMillis() != 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--bucket must divide 2 s and be a multiple of 10 ms: " + bucket);
        }
        Path results = ResultsFolder.create(resultsBase, "warm-start");
        Files.createDirectories(temp);
        Machine machine = Machine.describe(temp);
        WarmStartRun.Timing timing = new WarmStartRun.Timing(pairs, bodySize, beforeKill, warmAfter, warmWindow,
                drainTimeout);
        WarmStartRun runner = new WarmStartRun(timing, temp, results, progress);
        progress.println(String.format(Locale.ROOT, "warm-start: setups %s, variants %s, %d rounds, N=%d,"
                        + " warm reference %s from %s after serving; results in %s", setups,
                variants.stream().map(BrokerVariant::name).toList(), rounds, pairs, warmWindow, warmAfter,
                results));
        runner.warmClients(variants.get(0), clientWarmUp);
        List<Row> rows = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            for (WarmStartRun.Setup setup : chosen) {
                for (BrokerVariant variant : variants) {
                    progress.run(String.format(Locale.ROOT, "round %d/%d %s %s", round, rounds, setup.label(),
                            variant.name()), Duration.ZERO);
                    WarmStartRun.Result result = runner.run(setup, variant, round);
                    Row row = new Row(result, read(result));
                    rows.add(row);
                    progress.println(summary(row));
                }
            }
        }
        curveTable(rows, true).writeCsv(results.resolve("warm-start-curve.csv"));
        runTable(rows, true).writeCsv(results.resolve("warm-start.csv"));
        Files.writeString(results.resolve("machine.md"), machine.markdown());
        String markdown = document(rows, variants, machine);
        Files.writeString(results.resolve("warm-start.md"), markdown);
        return new Report(rows, results, markdown);
    }

    private void applyPresets() {
        if (!smoke) {
            return;
        }
        CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (!given.hasMatchedOption("--pairs")) {
            pairs = 2;
        }
        if (!given.hasMatchedOption("--rounds")) {
            rounds = 1;
        }
        if (!given.hasMatchedOption("--span")) {
            span = Duration.ofSeconds(2);
        }
        if (!given.hasMatchedOption("--warm-after")) {
            warmAfter = Duration.ofSeconds(3);
        }
        if (!given.hasMatchedOption("--warm-window")) {
            warmWindow = Duration.ofSeconds(1);
        }
        if (!given.hasMatchedOption("--before-kill")) {
            beforeKill = Duration.ofSeconds(2);
        }
        if (!given.hasMatchedOption("--client-warmup")) {
            clientWarmUp = Duration.ZERO;
        }
        if (!given.hasMatchedOption("--deadline")) {
            deadline = Duration.ofSeconds(2);
        }
    }

    private List<BrokerVariant> variants() {
        try {
            return BrokerVariant.parse(variantOptions.isEmpty() ? List.of("default=") : variantOptions, variantLibs,
                    lib, brokerJvmOptions);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private WarmStartCurve.Reading read(WarmStartRun.Result result) {
        if (result.slots().length == 0) {
            return new WarmStartCurve.Reading(Optional.empty(), new double[0], 0, new double[0], Optional.empty(),
                    false, 0);
        }
        return WarmStartCurve.read(result.slots(), bucket, span, warmAfter, warmWindow, target, deadline);
    }

    private String summary(Row row) {
        WarmStartCurve.Reading r = row.reading();
        WarmStartRun.Result result = row.result();
        return String.format(Locale.ROOT, "%s %s round %d: serving after %s, warm %,.0f msg/s, mean %.0f %% of warm"
                        + " in the first %s, %s %.0f %% %s%s", result.setup().label(), result.variant().name(),
                result.round(), r.toServing().map(WarmStartBenchmark::seconds).orElse("never"), r.warmRate(),
                100 * r.meanRatioToDeadline(), Progress.human(deadline),
                r.reached().map(d -> "reached at " + seconds(d) + ":").orElse("never held"), 100 * target,
                r.met() ? "(target met)" : "(target missed)",
                result.note().isEmpty() ? "" : "; " + result.note());
    }

    private Table runTable(List<Row> rows, boolean csv) {
        Table table = new Table(csv
                ? List.of("setup", "variant", "round", "load_average", "pairs", "to_serving_s", "warm_msg_per_s",
                        "mean_ratio_to_deadline", "deadline_s", "target", "reached_s", "target_met",
                        "min_ratio_after_deadline", "confirmed", "received", "missing", "duplicates", "drained",
                        "note", "jvm_options")
                : List.of("setup", "variant", "round", "load", "to serving", "warm msg/s",
                        "mean of first " + Progress.human(deadline), "lowest " + Progress.human(bucket)
                                + " after it", "held ≥ " + percent(target) + " from", "target",
                        "received/confirmed"));
        for (Row row : rows) {
            WarmStartRun.Result result = row.result();
            WarmStartCurve.Reading r = row.reading();
            DeliveryLedger.Check check = result.ledger();
            double lowestAfter = lowestAfterDeadline(r);
            if (csv) {
                table.add(List.of(result.setup().label(), result.variant().name(), Integer.toString(result.round()),
                        fixed(result.loadAverage(), 2), Integer.toString(pairs),
                        r.toServing().map(d -> fixed(d.toMillis() / 1000.0, 2)).orElse(""), fixed(r.warmRate(), 1),
                        fixed(r.meanRatioToDeadline(), 3), fixed(deadline.toMillis() / 1000.0, 1),
                        fixed(target, 2), r.reached().map(d -> fixed(d.toMillis() / 1000.0, 1)).orElse(""),
                        Boolean.toString(r.met()), Double.isNaN(lowestAfter) ? "" : fixed(lowestAfter, 3),
                        check == null ? "" : Long.toString(check.confirmed()),
                        check == null ? "" : Long.toString(check.received()),
                        check == null ? "" : Long.toString(check.missing()),
                        check == null ? "" : Long.toString(check.duplicates()), Boolean.toString(result.drained()),
                        String.join("; ", java.util.stream.Stream.concat(java.util.stream.Stream.of(result.note())
                                .filter(n -> !n.isEmpty()), result.errors().stream()).toList()),
                        String.join(" ", result.variant().jvmOptions())));
            } else {
                table.add(List.of(result.setup().label(), result.variant().name(), Integer.toString(result.round()),
                        fixed(result.loadAverage(), 1), r.toServing().map(WarmStartBenchmark::seconds).orElse("never"),
                        grouped(r.warmRate()), percent(r.meanRatioToDeadline()),
                        Double.isNaN(lowestAfter) ? "-" : percent(lowestAfter),
                        r.reached().map(WarmStartBenchmark::seconds).orElse("never"),
                        r.met() ? "**met**" : "missed",
                        check == null ? result.note() : String.format(Locale.ROOT, "%,d/%,d%s%s",
                                check.received() - check.unconfirmedArrivals(), check.confirmed(),
                                result.drained() ? "" : " (drain timed out)",
                                result.note().isEmpty() ? "" : " " + result.note(),
                                result.errors().isEmpty() ? "" : "; " + result.errors().size()
                                        + " client errors, first: " + result.errors().get(0))));
            }
        }
        return table;
    }

    private double lowestAfterDeadline(WarmStartCurve.Reading r) {
        int from = (int) (deadline.toMillis() / bucket.toMillis());
        double[] ratios = r.ratios();
        return from >= ratios.length ? Double.NaN : Arrays.stream(ratios, from, ratios.length).min().orElse(Double.NaN);
    }

    /** One CSV row per run and bucket. */
    private Table curveTable(List<Row> rows, boolean csv) {
        Table table = new Table(List.of("setup", "variant", "round", "from_serving_s", "to_s", "msg_per_s",
                "ratio_to_warm"));
        for (Row row : rows) {
            double[] rates = row.reading().rates();
            for (int b = 0; b < rates.length; b++) {
                table.add(List.of(row.result().setup().label(), row.result().variant().name(),
                        Integer.toString(row.result().round()), fixed(b * bucket.toMillis() / 1000.0, 2),
                        fixed((b + 1) * bucket.toMillis() / 1000.0, 2), fixed(rates[b], 1),
                        fixed(row.reading().ratios()[b], 3)));
            }
        }
        return table;
    }

    /** Rows: 2 s from serving; columns: the runs; cells: % of that run's warm rate. */
    private Table ratioTable(List<Row> rows) {
        List<String> header = new ArrayList<>();
        header.add("s from serving");
        rows.forEach(r -> header.add(r.result().setup().label() + " " + r.result().variant().name() + " #"
                + r.result().round()));
        Table table = new Table(header);
        int perReported = (int) (REPORTED_BUCKET.toMillis() / bucket.toMillis());
        int reported = (int) (span.toMillis() / REPORTED_BUCKET.toMillis());
        for (int i = 0; i < reported; i++) {
            List<String> cells = new ArrayList<>();
            cells.add(String.format(Locale.ROOT, "%d-%d", i * 2, i * 2 + 2));
            for (Row row : rows) {
                double[] ratios = row.reading().ratios();
                int from = i * perReported;
                if (from + perReported > ratios.length) {
                    cells.add("-");
                } else {
                    double mean = Arrays.stream(ratios, from, from + perReported).average().orElse(0);
                    cells.add(percent(mean));
                }
            }
            table.add(cells);
        }
        return table;
    }

    /** Per setup and variant: the best of its rounds. */
    private Table bestTable(List<Row> rows) {
        Table table = new Table(List.of("setup", "variant", "rounds", "best mean of first " + Progress.human(deadline),
                "median", "earliest held ≥ " + percent(target), "target met in", "warm msg/s (best)"));
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Row row : rows) {
            groups.computeIfAbsent(row.result().setup().label() + "\u0000" + row.result().variant().name(),
                    k -> new ArrayList<>()).add(row);
        }
        for (List<Row> group : groups.values()) {
            double[] means = group.stream().mapToDouble(r -> r.reading().meanRatioToDeadline()).sorted().toArray();
            Optional<Duration> earliest = group.stream().map(r -> r.reading().reached()).flatMap(Optional::stream)
                    .min(Comparator.naturalOrder());
            long met = group.stream().filter(r -> r.reading().met()).count();
            table.add(List.of(group.get(0).result().setup().label(), group.get(0).result().variant().name(),
                    Integer.toString(group.size()), percent(means[means.length - 1]), percent(Statistics.median(means)),
                    earliest.map(WarmStartBenchmark::seconds).orElse("never"), met + " of " + group.size(),
                    grouped(group.stream().mapToDouble(r -> r.reading().warmRate()).max().orElse(0))));
        }
        return table;
    }

    private String document(List<Row> rows, List<BrokerVariant> variants, Machine machine) {
        StringBuilder text = new StringBuilder();
        text.append("# Warm start, ").append(LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME))
                .append("\n\n");
        text.append(String.format(Locale.ROOT, "%d producer/consumer pairs, persistent %d-byte messages sent"
                        + " synchronously, AUTO_ACKNOWLEDGE consumers (the load of `bin/perftest throughput`), the"
                        + " clients' JVM warmed for %s against a throwaway broker first. Throughput is consumed"
                        + " msg/s per %s from the first message the broker served, against the same broker's warm"
                        + " rate over %s from %s after serving. Target: %s of warm within %s of serving, held:"
                        + " \"held from\" is the end of the first bucket at or above it from which on the mean"
                        + " of the buckets up to %s also is.%n%n", pairs, bodySize, Progress.human(clientWarmUp),
                Progress.human(bucket), Progress.human(warmWindow), Progress.human(warmAfter), percent(target),
                Progress.human(deadline), Progress.human(span)));
        for (String setup : setups) {
            text.append("- ").append(setup).append(": ").append(WarmStartRun.Setup.named(setup).description())
                    .append('\n');
        }
        text.append("\nVariants (in each round every setup runs every variant, in this order):\n\n");
        variants.forEach(v -> text.append("- ").append(v.describe()).append('\n'));
        text.append("\n## Best of the rounds\n\n").append(bestTable(rows).markdown());
        text.append("\n## Every run\n\n").append(runTable(rows, false).markdown());
        text.append("\n\"load\": the machine's 1-minute load average as the run started.\n");
        text.append("\n## % of warm, per 2 s from serving\n\n").append(ratioTable(rows).markdown());
        text.append("\n## Machine\n\n").append(machine.markdown());
        return text.toString();
    }

    private static String seconds(Duration d) {
        return fixed(d.toMillis() / 1000.0, 1) + " s";
    }

    private static String percent(double ratio) {
        return String.format(Locale.ROOT, "%.0f %%", 100 * ratio);
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String grouped(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }
}
