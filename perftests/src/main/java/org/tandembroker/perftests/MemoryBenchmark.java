package org.tandembroker.perftests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A deep queue against a small heap: a broker process with {@code -Xmx512m} and GC logging; producers publish
 * 1,000,000 persistent 1 KiB messages to one queue (asynchronous sends, a bounded number in flight each), then
 * consumers drain it. Checks that every confirmed message arrives (count, and no gap per producer), and records
 * the broker's peak heap (from its GC log), peak resident memory (sampled from {@code /proc}), whether it stayed
 * up, and the time each phase took. Exit code 0 when every confirmed message arrived and the broker stayed up.
 *
 * <p>Threads: the main thread paces the phases; publishers, consumers and the memory sampler have their own.
 */
@Command(name = "memory", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Publish a million persistent messages to one queue under -Xmx512m, then drain them.")
public final class MemoryBenchmark implements Callable<Integer> {

    @Option(names = "--messages", defaultValue = "1000000",
            description = "Messages to publish (default: ${DEFAULT-VALUE}).")
    private long messages;

    @Option(names = "--producers", defaultValue = "4",
            description = "Publishing connections (default: ${DEFAULT-VALUE}).")
    private int producers;

    @Option(names = "--in-flight", defaultValue = "100",
            description = "Unsettled sends allowed per producer (default: ${DEFAULT-VALUE}).")
    private int inFlight;

    @Option(names = "--consumers", defaultValue = "4",
            description = "Draining connections (default: ${DEFAULT-VALUE}).")
    private int consumers;

    @Option(names = "--body-size", defaultValue = "1024",
            description = "Message body size (default: ${DEFAULT-VALUE}).")
    private int bodySize;

    @Option(names = "--heap", defaultValue = "512m",
            description = "The broker's -Xmx (default: ${DEFAULT-VALUE}).")
    private String heap;

    @Option(names = "--message-budget", paramLabel = "SIZE",
            description = "<memory messageBudget> of broker.xml, e.g. 128MiB (default: not set, the broker's default).")
    private String messageBudget;

    @Option(names = "--queue-window", paramLabel = "N",
            description = "<memory queueWindow> of broker.xml (standalone only), e.g. 0 to keep every message on the "
                    + "heap (default: not set, the broker's default, 20000).")
    private Integer queueWindow;

    @Option(names = "--nodes", defaultValue = "1",
            description = "1: a standalone broker (--store); 2: a bdb-ha pair with the default durability "
                    + "(NO_SYNC,NO_SYNC,SIMPLE_MAJORITY, coalescingSync), clients on the master (default: ${DEFAULT-VALUE}).")
    private int nodes;

    @Option(names = "--store", defaultValue = "coalescing",
            description = "Store setup: coalescing, no-sync or sync (default: ${DEFAULT-VALUE}).")
    private String store;

    @Option(names = "--broker-jvm-option", paramLabel = "OPTION",
            description = "A further JVM option for the broker process (repeatable).")
    private List<String> brokerJvmOptions = new ArrayList<>();

    @Option(names = "--timeout", converter = DurationConverter.class, defaultValue = "60min",
            description = "Limit of each phase, publishing and draining (default: ${DEFAULT-VALUE}).")
    private Duration timeout;

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
            description = "Where the broker's temporary directory (and store) goes (default: the system's).")
    private Path temp = Path.of(System.getProperty("java.io.tmpdir"));

    /** What the run observed. */
    public record Outcome(long confirmed, long failedSends, DeliveryLedger.Check ledger, boolean drained,
                          Duration publishTime, Duration drainTime, long storeBytesAfterPublish, GcLog gc,
                          long idleRssBytes, long peakRssBytes, long hwmBytes, boolean stayedUp,
                          boolean outOfMemory, int exitCode, int warnings, int errors, List<String> problems,
                          List<String> clientErrors, CpuShare publishCpu, CpuShare drainCpu, Path resultsFolder,
                          long idleHeapBytes, long queuedHeapBytes, long queuedRssBytes) {
        public boolean passed() {
            return ledger.complete() && drained && stayedUp && !outOfMemory && confirmed > 0
                    && clientErrors.isEmpty();
        }
    }

    /** CPU used during a phase by the broker, this client and every other process, in % of one core. */
    public record CpuShare(double broker, double client, double other) {
        static CpuShare between(CpuMark start, CpuMark end) {
            double nanos = Math.max(1, end.wall() - start.wall());
            double broker = end.broker().minus(start.broker()).toNanos();
            double client = end.client().minus(start.client()).toNanos();
            double machine = end.machine().minus(start.machine()).toNanos();
            return new CpuShare(100 * broker / nanos, 100 * client / nanos,
                    Math.max(0, 100 * (machine - broker - client) / nanos));
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.0f %% / %.0f %% / %.0f %%", broker, client, other);
        }
    }

    private record CpuMark(long wall, Duration broker, Duration client, Duration machine) {
        static CpuMark now(BrokerProcess broker) {
            return new CpuMark(System.nanoTime(), broker.cpuTime(),
                    ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO), SystemCpu.busy());
        }
    }

    private volatile String phase = "starting";

    public static void main(String[] args) {
        System.exit(new CommandLine(new MemoryBenchmark()).execute(args));
    }

    /** Parses {@code args} as the command line would and runs the benchmark (for tests). */
    public static Outcome run(String... args) throws Exception {
        MemoryBenchmark benchmark = new MemoryBenchmark();
        new CommandLine(benchmark).parseArgs(args);
        return benchmark.run(Progress.console());
    }

    @Override
    public Integer call() throws Exception {
        Outcome outcome = run(Progress.console());
        System.out.println();
        System.out.println(summary(outcome).markdown());
        System.out.println("Results: " + outcome.resultsFolder());
        return outcome.passed() ? 0 : 1;
    }

    private Outcome run(Progress progress) throws Exception {
        StoreSetup setup = StoreSetup.named(store);
        Path results = ResultsFolder.create(resultsBase, "memory");
        Files.createDirectories(temp);
        Machine machine = Machine.describe(temp);
        List<String> jvmOptions = new ArrayList<>(List.of("-Xmx" + heap,
                "-Xlog:gc:file=" + results.resolve("broker-gc-%p.log") + ":uptime"));
        jvmOptions.addAll(brokerJvmOptions);
        progress.println(String.format(Locale.ROOT, "memory: %,d messages of %d B, %d producers (%d in flight each),"
                        + " %d consumers (prefetch %d, 0 = client default); broker %s, messageBudget %s, store %s;"
                        + " JE parameters %s; queueWindow %s; %s; results in %s", messages, bodySize, producers, inFlight,
                consumers, prefetch, String.join(" ", jvmOptions), budget(), setup.name(), envConfig,
                queueWindow == null ? "default" : queueWindow, nodes == 1 ? "standalone" : nodes + " nodes",
                results));

        String queue = "perf-memory";
        DeliveryLedger ledger = new DeliveryLedger(producers);
        LongAdder confirmed = new LongAdder();
        LongAdder failed = new LongAdder();
        LongAdder consumed = new LongAdder();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        Path directory = Files.createTempDirectory(temp, "tandem-perf-memory-");
        HaCluster cluster = null;
        BrokerProcess standalone = null;
        try {
            BrokerProcess broker;
            BrokerProcess replica = null;
            String user;
            String password;
            Path storeDirectory;
            if (nodes == 1) {
                BrokerFiles files = BrokerFiles.write(directory, lib, setup, messageBudget, queueWindow, envConfig);
                standalone = BrokerProcess.start(lib, files, jvmOptions);
                broker = standalone;
                user = files.user();
                password = files.password();
                storeDirectory = files.work();
            } else if (nodes == 2) {
                cluster = HaCluster.write(directory, lib, jvmOptions, 2, PAIR_DURABILITY, true, false, List.of());
                cluster.start(Duration.ofSeconds(5));
                broker = cluster.node(0);
                replica = cluster.node(1);
                user = cluster.user();
                password = cluster.password();
                storeDirectory = directory.resolve("node-1");
            } else {
                throw new CommandLine.ParameterException(new CommandLine(this), "--nodes: 1 or 2, not " + nodes);
            }
            Path gcLog = results.resolve("broker-gc-" + broker.pid() + ".log");
            try (MemorySampler sampler = new MemorySampler(broker.pid(), 500, () -> phase, confirmed::sum,
                         consumed::sum)) {
                // A pair's clients use the failover URI of docs/operations.md, as a user of a group would.
                Clients clients = new Clients(cluster == null ? broker.uri() : cluster.failoverUri(), user, password,
                        bodySize, prefetch);
                sampler.sample();
                long idleRss = sampler.currentRssBytes();
                long idleHeap = LiveHeap.afterFullGc(broker.pid());

                phase = "publishing";
                progress.run("memory: publish", Duration.ZERO);
                long publishStart = System.nanoTime();
                CpuMark publishMark = CpuMark.now(broker);
                List<Thread> publishers = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    long share = messages / producers + (p < messages % producers ? 1 : 0);
                    publishers.add(start("perf-publisher-" + p, new AsyncPublisher(clients, queue, p, share,
                            inFlight, ledger, confirmed, failed, errors)));
                }
                awaitPublishers(publishers, broker, sampler, confirmed, progress);
                Duration publishTime = Duration.ofNanos(System.nanoTime() - publishStart);
                CpuMark drainMark = CpuMark.now(broker);
                CpuShare publishCpu = CpuShare.between(publishMark, drainMark);
                long storeBytes = sizeOf(storeDirectory);
                long queuedHeap = LiveHeap.afterFullGc(broker.pid());
                if (replica != null) {
                    progress.println(String.format(Locale.ROOT, "replica: %s; live heap after a full GC %s, RSS %s",
                            replica.isAlive() ? "up" : "DOWN", mib(LiveHeap.afterFullGc(replica.pid())),
                            mib(MemorySampler.rssBytes(replica.pid()))));
                }
                sampler.sample();
                long queuedRss = sampler.currentRssBytes();
                progress.println(String.format(Locale.ROOT, "live heap after a full GC: idle %s, with %,d queued %s"
                        + " (%,d B per queued message); broker RSS %s", mib(idleHeap), confirmed.sum(),
                        mib(queuedHeap), perMessage(queuedHeap - idleHeap, confirmed.sum()), mib(queuedRss)));
                progress.println(String.format(Locale.ROOT, "published %,d confirmed (%,d failed) in %s, %,.0f msg/s;"
                                + " broker RSS %s; store %s on disk", confirmed.sum(), failed.sum(),
                        seconds(publishTime), confirmed.sum() / seconds(publishTime.toNanos()),
                        mib(sampler.currentRssBytes()), mib(storeBytes)));

                phase = "draining";
                progress.run("memory: drain", Duration.ZERO);
                long drainStart = System.nanoTime();
                List<Thread> consumerThreads = new ArrayList<>();
                for (int c = 0; c < consumers; c++) {
                    consumerThreads.add(start("perf-consumer-" + c, new ConsumerLoop(clients, queue, c, ledger,
                            consumed, null, () -> "draining".equals(phase), errors, () -> { })));
                }
                boolean drained = broker.isAlive()
                        && progress.awaitDrain(timeout, ledger::confirmedCount, ledger::confirmedArrivals,
                        () -> broker.isAlive() && consumerThreads.stream().anyMatch(Thread::isAlive));
                Duration drainTime = Duration.ofNanos(System.nanoTime() - drainStart);
                CpuShare drainCpu = CpuShare.between(drainMark, CpuMark.now(broker));
                phase = "stopping";
                for (Thread consumer : consumerThreads) {
                    consumer.join(60_000);
                }
                progress.println(String.format(Locale.ROOT, "drained %,d in %s, %,.0f msg/s", consumed.sum(),
                        seconds(drainTime), consumed.sum() / seconds(drainTime.toNanos())));

                sampler.sample();
                boolean stayedUp = broker.isAlive() && (replica == null || replica.isAlive());
                if (replica != null) {
                    progress.println("replica stayed up: " + (replica.isAlive() ? "yes" : "NO"));
                    replica.stop(Duration.ofSeconds(60));
                    replica.saveOutput(results.resolve("broker-replica.log"));
                }
                int exit = broker.stop(Duration.ofSeconds(60));
                broker.saveOutput(results.resolve("broker-memory.log"));
                Outcome outcome = new Outcome(confirmed.sum(), failed.sum(), ledger.check(), drained, publishTime,
                        drainTime, storeBytes, GcLog.read(gcLog), idleRss, sampler.peakRssBytes(),
                        sampler.highWaterMarkBytes(), stayedUp, broker.sawOutOfMemory(), exit, broker.warnings(),
                        broker.errors(), broker.problems(), List.copyOf(errors), publishCpu, drainCpu,
                        results, idleHeap, queuedHeap, queuedRss);
                writeTimeline(sampler.samples(), results.resolve("memory-timeline.csv"));
                Table summary = summary(outcome);
                summary.writeCsv(results.resolve("memory.csv"));
                Files.writeString(results.resolve("machine.md"), machine.markdown());
                Files.writeString(results.resolve("memory.md"), document(summary, outcome, jvmOptions, machine));
                return outcome;
            }
        } finally {
            if (cluster != null) {
                cluster.close(); // deletes the directory
            }
            if (standalone != null) {
                standalone.close();
            }
            ResultsFolder.deleteTree(directory);
        }
    }

    /** The two-node default of docs/performance.md. */
    private static final String PAIR_DURABILITY = "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY";

    private void awaitPublishers(List<Thread> publishers, BrokerProcess broker, MemorySampler sampler,
                                 LongAdder confirmed, Progress progress) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long start = System.nanoTime();
        for (Thread publisher : publishers) {
            while (publisher.isAlive() && broker.isAlive() && System.nanoTime() < deadline) {
                publisher.join(1_000);
                long done = confirmed.sum();
                double rate = done / seconds(System.nanoTime() - start);
                progress.update(String.format(Locale.ROOT, "%,d of %,d confirmed, %,.0f msg/s, ~%s left; broker RSS %s",
                        done, messages, rate, Progress.human(Duration.ofSeconds(
                                rate > 0 ? (long) ((messages - done) / rate) : 0)), mib(sampler.currentRssBytes())));
            }
        }
        progress.done();
    }

    private static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.start();
        return thread;
    }

    private static long sizeOf(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    private Table summary(Outcome o) {
        DeliveryLedger.Check check = o.ledger();
        Table table = new Table(List.of("measure", "value"));
        table.add(List.of("messages confirmed / failed sends", String.format(Locale.ROOT, "%,d / %,d",
                o.confirmed(), o.failedSends())));
        table.add(List.of("publish time (queue depth reached)", String.format(Locale.ROOT, "%s (%,.0f msg/s; depth %,d)",
                seconds(o.publishTime()), o.confirmed() / seconds(o.publishTime().toNanos()), o.confirmed())));
        table.add(List.of("store on disk after publishing", mib(o.storeBytesAfterPublish())));
        table.add(List.of("drain time", String.format(Locale.ROOT, "%s (%,.0f msg/s)", seconds(o.drainTime()),
                check.received() / seconds(o.drainTime().toNanos()))));
        table.add(List.of("CPU while publishing: broker / client / other processes", o.publishCpu().toString()));
        table.add(List.of("CPU while draining: broker / client / other processes", o.drainCpu().toString()));
        table.add(List.of("total time", seconds(o.publishTime().plus(o.drainTime()))));
        table.add(List.of("received (distinct) / missing / duplicates", String.format(Locale.ROOT, "%,d / %,d / %,d",
                check.received(), check.missing(), check.duplicates())));
        table.add(List.of("every confirmed message received", check.complete() && o.drained() ? "yes" : "NO"));
        table.add(List.of("client errors", o.clientErrors().isEmpty() ? "none"
                : o.clientErrors().size() + ", first: " + o.clientErrors().get(0)));
        table.add(List.of("broker heap limit", "-Xmx" + heap));
        table.add(List.of("peak heap used (GC log, before a collection)", mib(o.gc().peakUsedBytes())));
        table.add(List.of("peak heap after a collection", mib(o.gc().peakAfterGcBytes())));
        table.add(List.of("live heap after a full GC: idle / all queued (jcmd GC.run)", mib(o.idleHeapBytes())
                + " / " + mib(o.queuedHeapBytes())));
        table.add(List.of("live heap per queued message", String.format(Locale.ROOT, "%,d B",
                perMessage(o.queuedHeapBytes() - o.idleHeapBytes(), o.confirmed()))));
        table.add(List.of("RSS with all queued", mib(o.queuedRssBytes())));
        table.add(List.of("GC pauses (full) / total pause", String.format(Locale.ROOT, "%d (%d) / %.0f ms",
                o.gc().pauses(), o.gc().fullPauses(), o.gc().pauseMillis())));
        table.add(List.of("RSS when idle / peak sampled / VmHWM", mib(o.idleRssBytes()) + " / "
                + mib(o.peakRssBytes()) + " / " + mib(o.hwmBytes())));
        table.add(List.of("broker stayed up", o.stayedUp() && !o.outOfMemory() ? "yes"
                : "NO" + (o.outOfMemory() ? " (OutOfMemoryError)" : "")));
        table.add(List.of("exit code after SIGTERM", Integer.toString(o.exitCode())));
        table.add(List.of("broker WARN / ERROR lines", o.warnings() + " / " + o.errors()));
        return table;
    }

    private String document(Table summary, Outcome o, List<String> jvmOptions, Machine machine) {
        StringBuilder text = new StringBuilder("# Memory, ")
                .append(LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME)).append("\n\n");
        text.append(String.format(Locale.ROOT, "%,d persistent %d-byte messages to one queue from %d producers"
                        + " (asynchronous sends, at most %d unsettled each), then drained by %d consumers (prefetch %s)."
                        + " Broker: %s, messageBudget %s, store %s (%s)%s.%n%n", messages, bodySize, producers, inFlight,
                consumers, prefetch > 0 ? Integer.toString(prefetch) : "Qpid JMS default, 1000",
                String.join(" ", jvmOptions), budget(), store, StoreSetup.named(store).settings(),
                envConfig.isEmpty() ? "" : ", JE parameters " + String.join(" ", envConfig)));
        text.append(summary.markdown()).append('\n');
        if (!o.clientErrors().isEmpty()) {
            text.append("Client errors:\n\n");
            o.clientErrors().stream().limit(20).forEach(e -> text.append("- ").append(e).append('\n'));
            text.append('\n');
        }
        if (!o.problems().isEmpty()) {
            text.append("Broker WARN/ERROR lines (first 40):\n\n```\n");
            o.problems().stream().limit(40).forEach(l -> text.append(l).append('\n'));
            text.append("```\n\n");
        }
        text.append("## Machine\n\n").append(machine.markdown());
        return text.toString();
    }

    private static void writeTimeline(List<MemorySampler.Sample> samples, Path file) throws IOException {
        Table table = new Table(List.of("elapsed_s", "phase", "rss_mib", "vmhwm_mib", "confirmed", "received"));
        for (MemorySampler.Sample s : samples) {
            table.add(List.of(String.format(Locale.ROOT, "%.1f", s.elapsedMillis() / 1000.0), s.phase(),
                    Long.toString(s.rssBytes() >> 20), Long.toString(s.hwmBytes() >> 20),
                    Long.toString(s.confirmed()), Long.toString(s.received())));
        }
        table.writeCsv(file);
    }

    private String budget() {
        return messageBudget == null ? "the broker's default" : messageBudget;
    }

    private static double seconds(long nanos) {
        return Math.max(1e-9, nanos / 1e9);
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    /** Bytes per message; 0 when either figure is missing. */
    private static long perMessage(long bytes, long count) {
        return bytes <= 0 || count <= 0 ? 0 : bytes / count;
    }

    private static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%,d MiB", bytes >> 20);
    }
}
