package org.tandembroker.perftests;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.DoubleFunction;
import java.util.function.Function;

/**
 * The matrix repeated ({@code --rounds}): each figure as the median of the rounds in which it was measured, with the
 * spread or each round's value beside it. On this machine kind one broker's rate moves by up to 1.5x between runs of
 * the same command, so a verdict from one round, or best against best, says more about the run than about the
 * broker. Ratios (Tandem / peer, a replicated column / No HA, N / the previous N) are taken within each round, where
 * the setups ran side by side, and then their median over the rounds, never a ratio of medians.
 *
 * <p>Threads: built and read by one thread.
 */
public final class MatrixMedians {
    private final List<MatrixConfiguration> configurations;
    private final List<Integer> clients;
    private final List<MatrixTables> rounds;

    /** {@code rounds}: each round's tables, over the same configurations and N. */
    public MatrixMedians(List<MatrixConfiguration> configurations, List<Integer> clients, List<MatrixTables> rounds) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("no round to summarise");
        }
        this.configurations = List.copyOf(configurations);
        this.clients = List.copyOf(clients);
        this.rounds = List.copyOf(rounds);
    }

    public int rounds() {
        return rounds.size();
    }

    /** The median msg/s of a configuration at N over the rounds that measured it; empty when none did. */
    public OptionalDouble messagesPerSecond(MatrixConfiguration configuration, int n) {
        return median(perRound(tables -> tables.measured(configuration.id(), n).map(MatrixRun::messagesPerSecond)));
    }

    /**
     * Messages per second consumed in the window: the median of the rounds and, in brackets, the lowest and the
     * highest; {@code [2 of 3]} when some rounds failed at that cell.
     */
    public Table messagesPerSecondTable() {
        return perConfiguration(configurations, (c, n) -> {
            List<Optional<Double>> values = perRound(tables -> tables.measured(c.id(), n)
                    .map(MatrixRun::messagesPerSecond));
            List<Double> measured = values.stream().flatMap(Optional::stream).sorted().toList();
            if (measured.isEmpty()) {
                return "failed";
            }
            String spread = measured.size() == 1 ? "" : " (" + MatrixTables.grouped(measured.get(0)) + "-"
                    + MatrixTables.grouped(measured.get(measured.size() - 1)) + ")";
            String text = MatrixTables.grouped(median(values).getAsDouble()) + spread;
            return text + measuredOf(measured.size());
        });
    }

    /**
     * Tandem / peer: each Tandem column's rate over the peer's of the same kind, within each round; the median
     * and, in brackets, every round's ratio in order ({@code -} where a round did not measure both).
     */
    public Table peerRatios() {
        List<MatrixConfiguration> tandem = configurations.stream()
                .filter(c -> c.comparedPeer().filter(configurations::contains).isPresent()).toList();
        return perConfiguration(tandem, c -> c.label() + " / " + c.comparedPeer().get().label(),
                (c, n) -> ratios(tables -> tables.peerRatioValue(c, n), MatrixTables::times));
    }

    /**
     * Each replicated Tandem column as a share of No HA (Tandem standalone) at the same N, within each round: the
     * median and every round's share. Empty when No HA is not among the configurations.
     */
    public Optional<Table> shareOfStandalone() {
        List<MatrixConfiguration> replicated = configurations.stream()
                .filter(c -> c.replicated() && !c.isPeer())
                .filter(c -> configurations.contains(c.sameVariant(MatrixConfiguration.NON_HA))).toList();
        if (replicated.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(perConfiguration(replicated,
                c -> c.label() + " / " + c.sameVariant(MatrixConfiguration.NON_HA).label(), (c, n) -> ratios(
                        tables -> rate(tables, c, n).flatMap(rate -> rate(tables,
                                c.sameVariant(MatrixConfiguration.NON_HA), n).map(standalone -> rate / standalone)),
                        share -> String.format(Locale.ROOT, "%.0f %%", 100 * share))));
    }

    /**
     * With variants ({@code --variant}): each later variant's column over the first variant's column of the same
     * set-up, within each round: the median and every round's ratio. Empty without a second variant.
     */
    public Optional<Table> variantRatios() {
        List<MatrixConfiguration> later = configurations.stream()
                .filter(c -> c.variant() != null && firstVariantOf(c).filter(first -> !first.equals(c)).isPresent())
                .toList();
        if (later.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(perConfiguration(later, c -> c.label() + " / " + firstVariantOf(c).get().label(),
                (c, n) -> ratios(tables -> rate(tables, c, n).flatMap(rate -> rate(tables, firstVariantOf(c).get(), n)
                        .map(first -> rate / first)), MatrixTables::times)));
    }

    /** The column of the same set-up run by the first variant, if the run has it. */
    private Optional<MatrixConfiguration> firstVariantOf(MatrixConfiguration configuration) {
        return configurations.stream().filter(c -> c.variant() != null && c.setupId().equals(configuration.setupId()))
                .findFirst();
    }

    /**
     * Whether throughput grows with clients: each configuration's rate at N over its rate at the previous N of the
     * run, within each round (the first N has none). Empty when the run has one N.
     */
    public Optional<Table> growth() {
        if (clients.size() < 2) {
            return Optional.empty();
        }
        List<String> headers = new ArrayList<>();
        headers.add("N against the previous N");
        configurations.forEach(c -> headers.add(c.label()));
        Table table = new Table(headers);
        for (int i = 1; i < clients.size(); i++) {
            int n = clients.get(i);
            int previous = clients.get(i - 1);
            List<String> row = new ArrayList<>();
            row.add(n + " / " + previous);
            for (MatrixConfiguration c : configurations) {
                row.add(ratios(tables -> rate(tables, c, n).flatMap(rate -> rate(tables, c, previous)
                        .map(before -> rate / before)), MatrixTables::times));
            }
            table.add(row);
        }
        return Optional.of(table);
    }

    /**
     * CPU per message consumed, in microseconds, each part the median of the rounds: broker / replicas / clients /
     * rest of the machine, as {@link MatrixTables#cpuPerMessage()} defines them.
     */
    public Table cpuPerMessage() {
        return perConfiguration(configurations, (c, n) -> {
            if (perRound(tables -> tables.measured(c.id(), n)).stream().allMatch(Optional::isEmpty)) {
                return "failed";
            }
            String broker = c.external() ? "-" : micros(c, n, r -> r.result().brokerCpuPercent());
            String replicas = c.replicated() ? micros(c, n, MatrixRun::replicaCpuPercent) : "-";
            return broker + " / " + replicas + " / " + micros(c, n, r -> r.result().clientCpuPercent()) + " / "
                    + micros(c, n, r -> r.result().otherCpuPercent());
        });
    }

    /** End-to-end latency: the median of the rounds' p50 and of their p99, in milliseconds. */
    public Table latency() {
        return perConfiguration(configurations, (c, n) -> {
            OptionalDouble p50 = median(perRound(tables -> tables.measured(c.id(), n)
                    .map(run -> run.result().latencyMicros().getValueAtPercentile(50) / 1000.0)));
            OptionalDouble p99 = median(perRound(tables -> tables.measured(c.id(), n)
                    .map(run -> run.result().latencyMicros().getValueAtPercentile(99) / 1000.0)));
            return p50.isEmpty() ? "failed" : String.format(Locale.ROOT, "%.2f / %.2f", p50.getAsDouble(),
                    p99.getAsDouble());
        });
    }

    private String micros(MatrixConfiguration c, int n, Function<MatrixRun, Double> cpuPercent) {
        OptionalDouble median = median(perRound(tables -> tables.measured(c.id(), n)
                .map(run -> MatrixTables.microsPerMessage(cpuPercent.apply(run), run.messagesPerSecond()))));
        return median.isEmpty() ? "-" : String.format(Locale.ROOT, "%.0f", median.getAsDouble());
    }

    private static Optional<Double> rate(MatrixTables tables, MatrixConfiguration configuration, int n) {
        return tables.measured(configuration.id(), n).map(MatrixRun::messagesPerSecond).filter(rate -> rate > 0);
    }

    /** {@code median (round 1 / round 2 / ...)}, or {@code -} when no round has the ratio. */
    private String ratios(Function<MatrixTables, Optional<Double>> ratio, DoubleFunction<String> format) {
        List<Optional<Double>> values = perRound(ratio);
        OptionalDouble median = median(values);
        if (median.isEmpty()) {
            return "-";
        }
        String each = String.join(" / ", values.stream().map(v -> v.map(format::apply).orElse("-")).toList());
        return format.apply(median.getAsDouble()) + (rounds.size() == 1 ? "" : " (" + each + ")");
    }

    private <T> List<Optional<T>> perRound(Function<MatrixTables, Optional<T>> figure) {
        return rounds.stream().map(figure).toList();
    }

    private static OptionalDouble median(List<Optional<Double>> values) {
        double[] sorted = values.stream().flatMap(Optional::stream).mapToDouble(Double::doubleValue).sorted()
                .toArray();
        return sorted.length == 0 ? OptionalDouble.empty() : OptionalDouble.of(Statistics.median(sorted));
    }

    private String measuredOf(int measured) {
        return measured == rounds.size() ? "" : " [" + measured + " of " + rounds.size() + "]";
    }

    private interface CellText {
        String of(MatrixConfiguration configuration, int n);
    }

    private Table perConfiguration(List<MatrixConfiguration> columns, CellText text) {
        return perConfiguration(columns, MatrixConfiguration::label, text);
    }

    private Table perConfiguration(List<MatrixConfiguration> columns, Function<MatrixConfiguration, String> heading,
                                   CellText text) {
        List<String> headers = new ArrayList<>();
        headers.add(MatrixTables.SPEC_ROW_HEADING);
        columns.forEach(c -> headers.add(heading.apply(c)));
        Table table = new Table(headers);
        for (int n : clients) {
            List<String> row = new ArrayList<>();
            row.add(MatrixTables.specRow(n));
            for (MatrixConfiguration c : columns) {
                row.add(text.of(c, n));
            }
            table.add(row);
        }
        return table;
    }
}
