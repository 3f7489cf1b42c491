package org.tandembroker.perftests;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * One warm-start run: a broker that starts serving cold under the load of {@link SteadyLoad}, followed until it
 * is warm. Two setups: a fresh standalone broker (the default store), whose origin is the moment it listens; and
 * a two-node group (the default durability) under load whose master is killed with {@code kill -9}, the replica
 * designated primary at once (a two-node group without an arbiter), whose origin is the kill. The same load
 * continues on the same broker until the warm reference window has passed.
 *
 * <p>Threads: the benchmark's thread; the load has its own.
 */
public final class WarmStartRun {
    private static final Duration LIMIT = Duration.ofMinutes(2);

    /** Where a warm-start run starts from. */
    public enum Setup {
        FRESH("fresh", "a fresh standalone broker (default store, NO_SYNC + coalescing), from the moment it listens"),
        FAILOVER("failover", "a two-node group (NO_SYNC,NO_SYNC,SIMPLE_MAJORITY + coalescing) under load: kill -9 of"
                + " the master, the replica designated primary at once, from the kill");

        private final String label;
        private final String description;

        Setup(String label, String description) {
            this.label = label;
            this.description = description;
        }

        public String label() {
            return label;
        }

        public String description() {
            return description;
        }

        public static Setup named(String name) {
            for (Setup setup : values()) {
                if (setup.label.equals(name)) {
                    return setup;
                }
            }
            throw new IllegalArgumentException("unknown setup '" + name + "': fresh or failover");
        }
    }

    /** The timing of a run. */
    public record Timing(int pairs, int bodySize, Duration beforeKill, Duration warmAfter, Duration warmWindow,
                         Duration drainLimit) {
        /** How long the curve's slots must reach: to the end of the warm window, with room for a slow start. */
        Duration curveLength() {
            return warmAfter.plus(warmWindow).plus(LIMIT);
        }
    }

    /** What a run saw. */
    public record Result(Setup setup, BrokerVariant variant, int round, double loadAverage, long[] slots,
                         DeliveryLedger.Check ledger, boolean drained, List<String> errors, String note) {
        /** Whether every confirmed message arrived, the load ran without errors, and the curve has data. */
        public boolean ok() {
            return note.isEmpty() && errors.isEmpty() && drained && ledger != null && ledger.complete();
        }
    }

    private final Timing timing;
    private final Path temp;
    private final Path results;
    private final Progress progress;

    public WarmStartRun(Timing timing, Path temp, Path results, Progress progress) {
        this.timing = timing;
        this.temp = temp;
        this.results = results;
        this.progress = progress;
    }

    /** Runs {@code setup} with {@code variant}; a failure is a result with a note, never an exception. */
    public Result run(Setup setup, BrokerVariant variant, int round) throws InterruptedException {
        double load = SystemCpu.loadAverage();
        String prefix = String.format(Locale.ROOT, "%s-%s-%d", setup.label(), variant.name(), round);
        try {
            return setup == Setup.FRESH ? fresh(variant, round, load, prefix) : failover(variant, round, load, prefix);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            progress.println(prefix + " failed: " + e);
            return new Result(setup, variant, round, load, new long[0], null, false, List.of(), e.toString());
        }
    }

    /**
     * Runs the load against a throwaway standalone broker for {@code length}, so that the clients' JVM (this one)
     * is warm before a measured broker starts: then only the broker is cold.
     */
    public void warmClients(BrokerVariant variant, Duration length) throws Exception {
        if (length.isZero()) {
            return;
        }
        Path directory = Files.createTempDirectory(temp, "tandem-perf-warm-clients-");
        try {
            BrokerFiles files = BrokerFiles.write(directory, variant.lib(), StoreSetup.COALESCING, null,
                    variant.envConfig());
            try (BrokerProcess broker = BrokerProcess.start(variant.lib(), files, variant.jvmOptions())) {
                SteadyLoad load = new SteadyLoad(new Clients(patient(broker.uri()), files.user(),
                        files.password(), timing.bodySize(), 0), "warm-clients", timing.pairs());
                progress.run("warming the clients' JVM", Duration.ZERO);
                load.start((int) LIMIT.toSeconds());
                progress.countDown("clients", length, load::consumed);
                finish(load);
                broker.stop(Duration.ofSeconds(60));
            }
        } finally {
            ResultsFolder.deleteTree(directory);
        }
    }

    private Result fresh(BrokerVariant variant, int round, double loadAverage, String prefix) throws Exception {
        Path directory = Files.createTempDirectory(temp, "tandem-perf-warm-start-");
        try {
            BrokerFiles files = BrokerFiles.write(directory, variant.lib(), StoreSetup.COALESCING, null,
                    variant.envConfig());
            progress.update(prefix + ": starting a fresh broker");
            try (BrokerProcess broker = BrokerProcess.start(variant.lib(), files, variant.jvmOptions())) {
                long listening = System.nanoTime();
                WarmStartCurve curve = new WarmStartCurve(listening, timing.curveLength());
                SteadyLoad load = new SteadyLoad(new Clients(patient(broker.uri()), files.user(),
                        files.password(), timing.bodySize(), 0), "warm-start", timing.pairs());
                load.watch(curve, listening);
                load.start((int) LIMIT.toSeconds());
                Result result = follow(Setup.FRESH, variant, round, loadAverage, load, curve, broker::isAlive);
                broker.stop(Duration.ofSeconds(60));
                broker.saveOutput(results.resolve(prefix + "-broker.log"));
                return result;
            }
        } finally {
            ResultsFolder.deleteTree(directory);
        }
    }

    private Result failover(BrokerVariant variant, int round, double loadAverage, String prefix) throws Exception {
        try (HaCluster cluster = HaCluster.write(Files.createTempDirectory(temp, "tandem-perf-warm-failover-"),
                variant.lib(), variant.jvmOptions(), 2, FailoverRun.DURABILITY, true, true, variant.repConfig(), false,
                variant.envConfig())) {
            progress.update(prefix + ": starting a two-node group");
            cluster.start(Duration.ZERO);
            CatchUpProbe.awaitRoles(cluster, LIMIT, progress).close();
            SteadyLoad load = new SteadyLoad(new Clients(patient(cluster.failoverUri()), cluster.user(),
                    cluster.password(), timing.bodySize(), 0), "warm-failover", timing.pairs());
            load.start((int) LIMIT.toSeconds());
            progress.countDown("load on the group before the kill", timing.beforeKill(), load::consumed);
            if (!load.errors().isEmpty()) {
                throw new IllegalStateException("a client failed before the kill: " + load.errors().get(0));
            }
            progress.update(prefix + ": kill -9 of node-1 (the master), node-2 designated primary");
            long killed = System.nanoTime();
            WarmStartCurve curve = new WarmStartCurve(killed, timing.curveLength());
            cluster.kill(0);
            // The kill returned: the master is gone, so every confirmation from now on comes from node-2. (Watching
            // from before the kill would count what the dying master confirmed as served by node-2.)
            load.watch(curve, System.nanoTime());
            cluster.designate(1);
            Result result = follow(Setup.FAILOVER, variant, round, loadAverage, load, curve,
                    () -> cluster.node(1).isAlive());
            cluster.stopAll(results, prefix);
            return result;
        }
    }

    /** Waits for the first confirmation from the watched broker, then follows it to the end of the warm window. */
    private Result follow(Setup setup, BrokerVariant variant, int round, double loadAverage, SteadyLoad load,
                          WarmStartCurve curve, Supplier<Boolean> alive) throws InterruptedException {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (load.firstConfirmAfterOrigin() == 0 && System.nanoTime() < deadline && alive.get()
                && load.errors().isEmpty()) {
            progress.update("waiting for the broker to serve");
            Thread.sleep(20);
        }
        String note = "";
        if (load.firstConfirmAfterOrigin() == 0) {
            note = load.errors().isEmpty() ? "the broker confirmed no send within " + Progress.human(LIMIT)
                    : "the clients failed before the broker confirmed a send";
        } else {
            progress.countDown("following the broker until warm", timing.warmAfter().plus(timing.warmWindow())
                    .plusSeconds(1), load::consumed);
            if (!alive.get()) {
                note = "the broker exited during the run";
            }
        }
        boolean drained = finish(load);
        DeliveryLedger.Check check = load.ledger().check();
        progress.println(String.format(Locale.ROOT, "%s %s round %d: %,d of %,d confirmed received%s%s",
                setup.label(), variant.name(), round, check.confirmed() - check.missing(), check.confirmed(),
                drained ? "" : " (DRAIN TIMED OUT)", load.errors().isEmpty() ? "" : "; errors: " + load.errors()));
        return new Result(setup, variant, round, loadAverage, curve.slots(), check, drained, load.errors(), note);
    }

    private boolean finish(SteadyLoad load) throws InterruptedException {
        load.stopProducing(60);
        DeliveryLedger ledger = load.ledger();
        boolean drained = progress.awaitDrain(timing.drainLimit(), ledger::confirmedCount, ledger::confirmedArrivals,
                load::consuming);
        load.stopConsuming(30);
        return drained;
    }

    /**
     * {@code uri} with a connect timeout of a minute instead of Qpid JMS's 15 s: on a busy machine a cold broker
     * can take longer than that to answer 32 connections' SCRAM exchanges, and the clients would give up.
     */
    static String patient(String uri) {
        return Clients.withOption(uri, "jms.connectTimeout=60000");
    }
}
