package org.tandembroker.amqp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/**
 * The AMQP front end under hostile input: every input of the saved corpus (src/test/resources/fuzz/amqp-corpus,
 * which holds the inputs that once found a bug) and a run of inputs from {@link AmqpFrameGenerator} are played
 * against the front end in front of the core's virtual host, while a control client publishes and consumes.
 * For every input the broker answers as {@link HostileClient} requires; over the run nothing escapes an event
 * loop or a task, no buffer leaks (PARANOID leak detection), the control client never misses a round, every
 * hostile connection is gone at the end and the heap after GC does not grow beyond a bound.
 *
 * <p>The long profile (docs/testing.md): {@code -Dfuzz.inputs=100000} (also {@code fuzz.seed}, {@code fuzz.threads};
 * {@code fuzz.saveCorpus=DIR} saves every {@code fuzz.saveEvery}th (500) generated input there).
 */
class HostileAmqpInputTest {
    private static final long SEED = Long.getLong("fuzz.seed", 20261124L);
    private static final int GENERATED = Integer.getInteger("fuzz.inputs", 1000);
    private static final int THREADS = Integer.getInteger("fuzz.threads", 4);
    private static final int SAVE_EVERY = Integer.getInteger("fuzz.saveEvery", 500);
    private static final long HEAP_GROWTH_LIMIT = 48L << 20;

    @Test
    void everyHostileInputIsRefusedWithAnAmqpErrorOrServedWhileOtherClientsCarryOn() throws Exception {
        Path saveCorpus = Optional.ofNullable(System.getProperty("fuzz.saveCorpus")).map(Path::of).orElse(null);
        List<FuzzInput> corpus = loadCorpus();
        if (saveCorpus == null) {
            assertThat(corpus).as("the saved corpus").hasSizeGreaterThanOrEqualTo(100);
        }
        Map<HostileClient.Ending, AtomicLong> endings = new ConcurrentHashMap<>();
        List<String> wrong = new java.util.concurrent.CopyOnWriteArrayList<>();
        Path failures = Path.of("target", "fuzz-failures");

        try (ProblemWatch watch = new ProblemWatch();
             FuzzedBroker broker = new FuzzedBroker(watch, FuzzedBroker.limits(), Optional.empty(), 64L << 20);
             ControlClient control = new ControlClient(broker.uri(), FuzzedBroker.USER, FuzzedBroker.PASSWORD, "control")) {
            await().atMost(Duration.ofSeconds(90)).until(() -> control.roundTrips() > 0 || control.failure() != null);

            long started = System.nanoTime();
            long heapBefore = 0;
            ExecutorService players = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> work = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    work.add(players.submit(() -> {
                        HostileClient client = new HostileClient(broker.port());
                        for (int i = thread; i < corpus.size(); i += THREADS) {
                            play(client, corpus.get(i), "corpus-" + i, endings, wrong, failures);
                        }
                        return null;
                    }));
                }
                for (Future<?> done : work) {
                    done.get();
                }
                heapBefore = usedHeapAfterGc(); // after the corpus: the broker's classes and pools are warm
                work.clear();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    work.add(players.submit(() -> {
                        HostileClient client = new HostileClient(broker.port());
                        AmqpFrameGenerator generator = new AmqpFrameGenerator(FuzzedBroker.USER, FuzzedBroker.PASSWORD,
                                FuzzedBroker.HOST);
                        for (long i = thread; i < GENERATED; i += THREADS) {
                            FuzzInput input = generator.generate(SEED, i);
                            if (saveCorpus != null && i % SAVE_EVERY == 0) {
                                save(saveCorpus.resolve(String.format("seed%d-%06d.tfz", SEED, i)), input);
                            }
                            play(client, input, "seed " + SEED + " input " + i, endings, wrong, failures);
                        }
                        return null;
                    }));
                }
                for (Future<?> done : work) {
                    done.get();
                }
            } finally {
                players.shutdownNow();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> broker.connectionCount() == 1);
            long heapAfter = usedHeapAfterGc();
            watch.collectLeakReports();
            long roundTrips = control.roundTrips();
            System.out.printf("hostile AMQP run: seed %d, %d corpus + %d generated inputs, %d threads, %.1f s; endings %s;"
                            + " control round trips %d (longest %d ms); heap after GC %d KiB -> %d KiB%n", SEED, corpus.size(),
                    GENERATED, THREADS, (System.nanoTime() - started) / 1e9, new EnumMap<>(Map.copyOf(endings)), roundTrips,
                    control.longestRoundMillis(), heapBefore >> 10, heapAfter >> 10);

            assertThat(wrong).as("inputs the broker answered wrongly (saved under %s)", failures).isEmpty();
            assertThat(watch.problems()).as("exceptions, errors and leaks").isEmpty();
            assertThat(control.failure()).as("the control client").isNull();
            assertThat(roundTrips).as("control round trips").isPositive();
            assertThat(heapAfter - heapBefore).as("heap growth over the run").isLessThan(HEAP_GROWTH_LIMIT);
            assertThat(endings.get(HostileClient.Ending.CLOSED_WITH_ERROR)).as("inputs refused with an AMQP error").isNotNull();
        }
    }

    @Test
    void leakDetectorCatchesABufferNobodyReleased() {
        try (ProblemWatch watch = new ProblemWatch()) {
            leakOneBuffer();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                watch.collectLeakReports();
                return watch.problems().stream().anyMatch(p -> p.startsWith("buffer leak"));
            });
        }
    }

    private static void leakOneBuffer() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.buffer(64);
        leaked.writeLong(42);
    }

    private static void play(HostileClient client, FuzzInput input, String name, Map<HostileClient.Ending, AtomicLong> endings,
                             List<String> wrong, Path failures) {
        HostileClient.Verdict verdict;
        try {
            verdict = client.play(input);
        } catch (IOException e) {
            verdict = new HostileClient.Verdict(HostileClient.Ending.WRONG, "client I/O: " + e);
        }
        endings.computeIfAbsent(verdict.ending(), e -> new AtomicLong()).incrementAndGet();
        if (!verdict.acceptable()) {
            wrong.add(name + ": " + verdict.detail());
            save(failures.resolve(name.replace(' ', '-') + ".tfz"), input);
        }
    }

    private static void save(Path file, FuzzInput input) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, input.toBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<FuzzInput> loadCorpus() throws IOException, URISyntaxException {
        URL directory = HostileAmqpInputTest.class.getResource("/fuzz/amqp-corpus");
        if (directory == null) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(Path.of(directory.toURI()))) {
            List<Path> sorted = files.filter(f -> f.toString().endsWith(".tfz")).sorted().toList();
            List<FuzzInput> inputs = new ArrayList<>();
            for (Path file : sorted) {
                inputs.add(FuzzInput.fromBytes(Files.readAllBytes(file)));
            }
            return inputs;
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
