package org.tandembroker.perftests;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * The durability matrix's tables, from its runs: the spec's performance comparison (rows {@code 1 (1/1)} to
 * {@code 7 (64/64)}, a column per configuration, cells in KB/s with the difference to the non-HA broker for the
 * same N), messages per second, latency, a per-run detail table, the CSV, and the targets the harness must show.
 *
 * <p>Threads: built and read by one thread.
 */
public final class MatrixTables {
    /** Target: the default configuration keeps at least this share of non-HA throughput. */
    public static final double MIN_SHARE_OF_NON_HA = 0.75;
    /** Target: the default configuration is at least this many times faster than {@code SYNC,SYNC,ALL}. */
    public static final double MIN_FACTOR_OVER_SYNC = 4.0;
    /** The N at which the targets are checked. */
    public static final List<Integer> TARGET_CLIENTS = List.of(16, 64);
    /** The spec's test numbers: its table's row for N is "test (N/N)". */
    private static final Map<Integer, Integer> SPEC_TEST_NUMBER = Map.of(1, 1, 2, 2, 4, 3, 8, 4, 16, 5, 32, 6,
            64, 7);

    private final List<MatrixConfiguration> configurations;
    private final List<Integer> clients;
    private final List<MatrixRun> runs;
    private final Map<MatrixRun, Integer> footnotes = new LinkedHashMap<>();

    public MatrixTables(List<MatrixConfiguration> configurations, List<Integer> clients, List<MatrixRun> runs) {
        this.configurations = List.copyOf(configurations);
        this.clients = List.copyOf(clients);
        this.runs = List.copyOf(runs);
        for (MatrixRun run : runs) {
            if (!run.measured()) {
                footnotes.put(run, footnotes.size() + 1);
            }
        }
    }

    /** Whether a target is met at one N. */
    public enum Outcome { MET, MISSED, NOT_MEASURED }

    /**
     * One target at one N for one column (the default, or one of its variants), with the figures it was judged on
     * (KB/s; 0 when not measured).
     */
    public record Target(String configurationId, int clients, String description, Outcome outcome, double actual,
                         double baseline, String text) {
    }

    /** The heading of the column that {@link #specRow} fills. */
    public static final String SPEC_ROW_HEADING = "Test (producers/consumers)";

    /** The row heading of N in the spec's table: {@code "3 (4/4)"}; N outside the spec's list gets {@code "-"}. */
    public static String specRow(int n) {
        Integer test = SPEC_TEST_NUMBER.get(n);
        return (test == null ? "-" : test.toString()) + " (" + n + "/" + n + ")";
    }

    /** The spec's layout: KB/s and the difference to non-HA for the same N; failed runs and missed targets marked. */
    public Table specLayout() {
        List<String> headers = new ArrayList<>();
        headers.add("Test/Broker");
        configurations.forEach(c -> headers.add(c.label()));
        Table table = new Table(headers);
        for (int n : clients) {
            List<String> row = new ArrayList<>();
            row.add(specRow(n));
            List<Target> targets = targets();
            Optional<MatrixRun> peerBaseline = measured(MatrixConfiguration.ARTEMIS.id(), n);
            for (MatrixConfiguration c : configurations) {
                boolean missed = targets.stream().anyMatch(t -> t.configurationId().equals(c.id())
                        && t.clients() == n && t.outcome() == Outcome.MISSED);
                row.add(cell(c, n, run -> {
                    String kb = grouped(run.kbPerSecond());
                    Optional<MatrixRun> base = !c.isPeer() ? standalone(c, n)
                            : c.replicated() ? peerBaseline : Optional.empty();
                    String vsBaseline = base.map(b -> " (" + percent(run.kbPerSecond(), b.kbPerSecond()) + ")")
                            .orElse("");
                    String vsPeer = peerRatio(c, n).map(ratio -> " " + ratio + " peer").orElse("");
                    String flag = missed ? " **MISSED**" : "";
                    return kb + vsBaseline + vsPeer + flag;
                }));
            }
            table.add(row);
        }
        return table;
    }

    /**
     * Tandem / peer at N for a Tandem column: its KB/s over the compared peer column's ({@code 1.23x}), when both
     * measured.
     */
    public Optional<String> peerRatio(MatrixConfiguration configuration, int n) {
        return peerRatioValue(configuration, n).map(MatrixTables::times);
    }

    /** Tandem / peer at N for a Tandem column as a number, when both measured. */
    Optional<Double> peerRatioValue(MatrixConfiguration configuration, int n) {
        Optional<MatrixConfiguration> peer = configuration.comparedPeer();
        if (peer.isEmpty()) {
            return Optional.empty();
        }
        Optional<MatrixRun> run = measured(configuration.id(), n);
        Optional<MatrixRun> peerRun = measured(peer.get().id(), n);
        if (run.isEmpty() || peerRun.isEmpty() || peerRun.get().kbPerSecond() <= 0) {
            return Optional.empty();
        }
        return Optional.of(run.get().kbPerSecond() / peerRun.get().kbPerSecond());
    }

    /** Whether this run's configurations include a peer column. */
    public boolean hasPeer() {
        return configurations.stream().anyMatch(MatrixConfiguration::isPeer);
    }

    /** Whether the run has a Tandem column and the peer column it is compared with, so a Tandem / peer ratio. */
    public boolean comparesWithPeer() {
        return configurations.stream().anyMatch(c -> c.comparedPeer().filter(configurations::contains).isPresent());
    }

    /**
     * Tandem / peer: for each Tandem column, its throughput over the peer's of the same kind (standalone over
     * Artemis standalone, replicated over the Artemis pair) at each N; "-" where either did not measure.
     */
    public Table peerRatios() {
        List<String> headers = new ArrayList<>();
        headers.add(SPEC_ROW_HEADING);
        List<MatrixConfiguration> tandem = configurations.stream()
                .filter(c -> c.comparedPeer().filter(configurations::contains).isPresent()).toList();
        tandem.forEach(c -> headers.add(c.label() + " / " + c.comparedPeer().get().label()));
        Table table = new Table(headers);
        for (int n : clients) {
            List<String> row = new ArrayList<>();
            row.add(specRow(n));
            for (MatrixConfiguration c : tandem) {
                row.add(peerRatio(c, n).orElse("-"));
            }
            table.add(row);
        }
        return table;
    }

    /** Messages per second consumed in the window. */
    public Table messagesPerSecond() {
        return perN(run -> grouped(run.messagesPerSecond()));
    }

    /** End-to-end latency of the window's messages, p50 / p99 in milliseconds. */
    public Table latency() {
        return perN(run -> ThroughputBenchmark.millis(run.result().latencyMicros(), 50) + " / "
                + ThroughputBenchmark.millis(run.result().latencyMicros(), 99));
    }

    /**
     * CPU time per message consumed in the window, in microseconds: the broker (the master; for a peer, its active
     * server), the replicas (their CPU over the whole run spread over the window's rate, so an upper bound), the
     * clients, and the rest of the machine in the window (the replicas' window share included again). Where a
     * message's CPU goes in each set-up, so that the next change aims at the largest part.
     */
    public Table cpuPerMessage() {
        return perN(run -> {
            PairedLoad.Result r = run.result();
            double perSecond = r.consumedPerSecond();
            if (perSecond <= 0) {
                return "-";
            }
            MatrixConfiguration c = run.configuration();
            return (c.external() ? "-" : micros(r.brokerCpuPercent(), perSecond)) + " / "
                    + (c.replicated() ? micros(run.replicaCpuPercent(), perSecond) : "-") + " / "
                    + micros(r.clientCpuPercent(), perSecond) + " / " + micros(r.otherCpuPercent(), perSecond);
        });
    }

    /** {@link #microsPerMessage}, as a whole number of microseconds. */
    static String micros(double cpuPercent, double messagesPerSecond) {
        return String.format(Locale.ROOT, "%.0f", microsPerMessage(cpuPercent, messagesPerSecond));
    }

    /** Microseconds of CPU per message from a CPU share (% of one core) and a rate. */
    static double microsPerMessage(double cpuPercent, double messagesPerSecond) {
        return cpuPercent / 100 * 1e6 / messagesPerSecond;
    }

    /** One row per run with everything measured (failed runs show their reason). */
    public Table details() {
        Table table = new Table(List.of("configuration", "N", "msg/s", "KB/s", "p50 ms", "p99 ms", "fsyncs/msg",
                "broker CPU", "replica CPU", "client CPU", "other CPU", "received/confirmed", "duplicates",
                "outcome"));
        for (MatrixRun run : runs) {
            PairedLoad.Result r = run.result();
            String outcome = run.measured() ? "ok" : "failed [" + footnotes.get(run) + "]";
            if (r == null) {
                table.add(List.of(run.configuration().id(), Integer.toString(run.clients()), "-", "-", "-", "-", "-",
                        "-", "-", "-", "-", "-", "-", outcome));
                continue;
            }
            DeliveryLedger.Check check = r.ledger();
            table.add(List.of(run.configuration().id(), Integer.toString(run.clients()), grouped(run.messagesPerSecond()),
                    grouped(run.kbPerSecond()), ThroughputBenchmark.millis(r.latencyMicros(), 50),
                    ThroughputBenchmark.millis(r.latencyMicros(), 99), fsyncsPerMessage(r).orElse("n/a"),
                    run.configuration().external() ? "-" : pct(r.brokerCpuPercent()),
                    run.configuration().replicated() ? pct(run.replicaCpuPercent()) : "-",
                    pct(r.clientCpuPercent()), pct(r.otherCpuPercent()),
                    String.format(Locale.ROOT, "%,d/%,d", check.received() - check.unconfirmedArrivals(),
                            check.confirmed()),
                    String.format(Locale.ROOT, "%,d", check.duplicates()), outcome));
        }
        return table;
    }

    /**
     * Each measured run's latency distributions in HdrHistogram's percentile format (milliseconds), by the file
     * name each goes under: end to end as {@code latency-<configuration>-n<N>.hgrm}, a send's confirmation as
     * {@code send-latency-<configuration>-n<N>.hgrm}. The CSV keeps a few percentiles; these keep the whole tail,
     * for comparing where two brokers' latencies part and whether a tail comes from publishing or after it.
     */
    public Map<String, String> latencyDistributions() {
        Map<String, String> files = new LinkedHashMap<>();
        for (MatrixRun run : runs) {
            if (run.measured() && run.result() != null) {
                String cell = run.configuration().id() + "-n" + run.clients() + ".hgrm";
                percentileText(run.result().latencyMicros()).ifPresent(text -> files.put("latency-" + cell, text));
                percentileText(run.result().sendLatencyMicros())
                        .ifPresent(text -> files.put("send-latency-" + cell, text));
            }
        }
        return files;
    }

    private static Optional<String> percentileText(Histogram micros) {
        if (micros.getTotalCount() == 0) {
            return Optional.empty();
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            micros.outputPercentileDistribution(out, 1000.0);
        }
        return Optional.of(text.toString(StandardCharsets.UTF_8));
    }

    /** Columns of {@link #csv()}: a failed run's row is empty up to the last, which holds why it failed. */
    static final List<String> CSV_HEADER = List.of("configuration", "label", "nodes", "durability",
            "coalescing_sync", "n", "body_bytes", "window_s", "consumed_msgs", "produced_msgs", "msg_per_s",
            "kb_per_s", "produced_msg_per_s", "pct_vs_non_ha", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms",
            "latency_p99_9_ms", "latency_max_ms", "send_p50_ms", "send_p99_ms", "send_p99_9_ms", "fsyncs",
            "fsyncs_per_msg", "broker_cpu_pct", "replica_cpu_pct", "client_cpu_pct", "other_cpu_pct", "confirmed",
            "received", "missing", "duplicates", "ledger_ok", "drained", "ratio_vs_peer", "error");

    /** One row per run, every figure unformatted (empty where not measured). */
    public Table csv() {
        Table table = new Table(CSV_HEADER);
        for (MatrixRun run : runs) {
            MatrixConfiguration c = run.configuration();
            List<String> row = new ArrayList<>(List.of(c.id(), c.label(), Integer.toString(c.nodes()),
                    c.durability(), Boolean.toString(c.coalescingSync()), Integer.toString(run.clients())));
            PairedLoad.Result r = run.result();
            String failure = run.failure() == null ? "" : run.failure();
            if (r == null) {
                while (row.size() < CSV_HEADER.size() - 1) {
                    row.add("");
                }
                row.add(failure);
                table.add(row);
                continue;
            }
            DeliveryLedger.Check check = r.ledger();
            Histogram latency = r.latencyMicros();
            Histogram send = r.sendLatencyMicros();
            Optional<MatrixRun> baseline = standalone(c, run.clients());
            row.addAll(List.of(Integer.toString(r.bodySize()), fixed(r.window().toMillis() / 1000.0, 3),
                    Long.toString(r.consumedInWindow()), Long.toString(r.producedInWindow()),
                    fixed(r.consumedPerSecond(), 1), fixed(run.kbPerSecond(), 1), fixed(r.producedPerSecond(), 1),
                    baseline.isPresent() && run.measured()
                            ? fixed(100 * (run.kbPerSecond() / baseline.get().kbPerSecond() - 1), 2) : "",
                    ThroughputBenchmark.millis(latency, 50), ThroughputBenchmark.millis(latency, 90),
                    ThroughputBenchmark.millis(latency, 99), ThroughputBenchmark.millis(latency, 99.9),
                    ThroughputBenchmark.millis(latency, 100), ThroughputBenchmark.millis(send, 50),
                    ThroughputBenchmark.millis(send, 99), ThroughputBenchmark.millis(send, 99.9),
                    r.fsyncs().available() ? Long.toString(r.fsyncs().count()) : "", fsyncsPerMessage(r).orElse(""),
                    c.external() ? "" : fixed(r.brokerCpuPercent(), 1),
                    c.replicated() ? fixed(run.replicaCpuPercent(), 1) : "", fixed(r.clientCpuPercent(), 1),
                    fixed(r.otherCpuPercent(), 1), Long.toString(check.confirmed()), Long.toString(check.received()),
                    Long.toString(check.missing()), Long.toString(check.duplicates()),
                    Boolean.toString(check.complete()), Boolean.toString(r.drained()),
                    peerRatioValue(c, run.clients()).map(ratio -> fixed(ratio, 3)).orElse(""), failure));
            table.add(row);
        }
        return table;
    }

    /**
     * The run of No HA that a Tandem column's bracket compares with at N: the standalone broker in the same variant
     * (plain No HA without variants).
     */
    private Optional<MatrixRun> standalone(MatrixConfiguration configuration, int n) {
        return measured(configuration.sameVariant(MatrixConfiguration.NON_HA).id(), n);
    }

    /**
     * The targets at N = 16 and 64: the default configuration at least 75 % of non-HA, and at least 4x
     * {@code SYNC,SYNC,ALL}, both in KB/s; with variants, each variant's default against the same variant's
     * baselines.
     */
    public List<Target> targets() {
        List<MatrixConfiguration> defaults = configurations.stream()
                .filter(c -> c.runs(MatrixConfiguration.DEFAULT)).toList();
        if (defaults.isEmpty()) {
            defaults = List.of(MatrixConfiguration.DEFAULT);
        }
        List<Target> targets = new ArrayList<>();
        for (int n : TARGET_CLIENTS) {
            for (MatrixConfiguration c : defaults) {
                String name = c.variant() == null ? "default" : "default [" + c.variant().name() + "]";
                targets.add(target(n, c.id(), c.sameVariant(MatrixConfiguration.NON_HA).id(),
                        String.format(Locale.ROOT, "%s >= %.0f %% of No HA", name, 100 * MIN_SHARE_OF_NON_HA),
                        MIN_SHARE_OF_NON_HA, (actual, base) -> String.format(Locale.ROOT,
                                "%.1f %% of No HA (%s vs %s KB/s)", 100 * actual / base, grouped(actual),
                                grouped(base))));
                targets.add(target(n, c.id(), c.sameVariant(MatrixConfiguration.SYNC_SYNC_ALL).id(),
                        String.format(Locale.ROOT, "%s >= %.0fx SYNC, SYNC, ALL", name, MIN_FACTOR_OVER_SYNC),
                        MIN_FACTOR_OVER_SYNC, (actual, base) -> String.format(Locale.ROOT, "%.2fx SYNC, SYNC, ALL"
                                + " (%s vs %s KB/s)", actual / base, grouped(actual), grouped(base))));
            }
        }
        return targets;
    }

    private interface Figures {
        String text(double actual, double baseline);
    }

    private Target target(int n, String id, String baselineId, String description, double ratio, Figures figures) {
        Optional<MatrixRun> run = measured(id, n);
        Optional<MatrixRun> baseline = measured(baselineId, n);
        if (run.isEmpty() || baseline.isEmpty() || baseline.get().kbPerSecond() <= 0) {
            return new Target(id, n, description, Outcome.NOT_MEASURED, 0, 0, "N=" + n + ": " + description
                    + ": not measured (" + whyNotMeasured(run.isEmpty() ? id : baselineId, n) + ")");
        }
        double actual = run.get().kbPerSecond();
        double base = baseline.get().kbPerSecond();
        Outcome outcome = actual >= ratio * base ? Outcome.MET : Outcome.MISSED;
        return new Target(id, n, description, outcome, actual, base, "N=" + n + ": " + description + ": "
                + (outcome == Outcome.MET ? "met" : "**MISSED**") + ", " + figures.text(actual, base));
    }

    private String whyNotMeasured(String id, int n) {
        if (configurations.stream().noneMatch(c -> c.id().equals(id))) {
            return id + " is not among this run's configurations";
        }
        if (!clients.contains(n)) {
            return "N=" + n + " is not among this run's client counts";
        }
        return "the run of " + id + " at N=" + n + " failed";
    }

    /** The Markdown of the targets: one line each. */
    public String targetsMarkdown() {
        StringBuilder text = new StringBuilder();
        for (Target target : targets()) {
            text.append("- ").append(target.text()).append('\n');
        }
        return text.toString();
    }

    /** The footnotes of failed runs ({@code [k] id N=n: reason}), and the MISSED mark's meaning when used. */
    public String footnotesMarkdown() {
        StringBuilder text = new StringBuilder();
        if (targets().stream().anyMatch(t -> t.outcome() == Outcome.MISSED)
                && configurations.stream().anyMatch(c -> c.runs(MatrixConfiguration.DEFAULT))) {
            text.append("**MISSED**: at this N the default configuration misses a target (see Targets).\n");
        }
        footnotes.forEach((run, number) -> text.append(String.format(Locale.ROOT, "[%d] %s, N=%d: %s%n", number,
                run.configuration().id(), run.clients(), run.failure())));
        return text.toString();
    }

    /** A successful run of configuration {@code id} at N, if there is one. */
    public Optional<MatrixRun> measured(String id, int n) {
        return runs.stream().filter(r -> r.configuration().id().equals(id) && r.clients() == n && r.measured())
                .findFirst();
    }

    /** The runs these tables show, in the order they ran. */
    public List<MatrixRun> runs() {
        return runs;
    }

    private interface CellText {
        String of(MatrixRun run);
    }

    private Table perN(CellText text) {
        List<String> headers = new ArrayList<>();
        headers.add(SPEC_ROW_HEADING);
        configurations.forEach(c -> headers.add(c.label()));
        Table table = new Table(headers);
        for (int n : clients) {
            List<String> row = new ArrayList<>();
            row.add(specRow(n));
            for (MatrixConfiguration c : configurations) {
                row.add(cell(c, n, text));
            }
            table.add(row);
        }
        return table;
    }

    private String cell(MatrixConfiguration configuration, int n, CellText text) {
        MatrixRun run = runs.stream().filter(r -> r.configuration().id().equals(configuration.id())
                && r.clients() == n).findFirst().orElse(null);
        if (run == null) {
            return "-";
        }
        return run.measured() ? text.of(run) : "failed [" + footnotes.get(run) + "]";
    }

    private static Optional<String> fsyncsPerMessage(PairedLoad.Result r) {
        return r.fsyncs().available() && r.producedInWindow() > 0
                ? Optional.of(fixed((double) r.fsyncs().count() / r.producedInWindow(), 3)) : Optional.empty();
    }

    /** {@code +12.3%}, {@code -61.4%}, {@code 0.0%}. */
    static String percent(double value, double baseline) {
        double difference = 100 * (value / baseline - 1);
        if (Math.abs(difference) < 0.05) {
            return "0.0%";
        }
        return String.format(Locale.ROOT, "%+.1f%%", difference);
    }

    /** A ratio as {@code 1.23x}. */
    static String times(double ratio) {
        return String.format(Locale.ROOT, "%.2fx", ratio);
    }

    /** A rate with thousands grouped: {@code 12,345}. */
    static String grouped(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }

    private static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String pct(double value) {
        return String.format(Locale.ROOT, "%.0f %%", value);
    }
}
