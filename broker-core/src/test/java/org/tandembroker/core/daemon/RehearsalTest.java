package org.tandembroker.core.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.ManagementConfig;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.frontend.ProtocolFrontEndFactory;
import org.tandembroker.core.frontend.RehearsalClient;
import org.tandembroker.core.oplog.OperationalLog;

/**
 * How long the start-up warm-up runs (its end follows the JIT compiler), in how many rounds, and what it does where
 * it cannot run. The rehearsal itself, with the AMQP client, is specified end to end in broker-dist's
 * {@code WarmUpTest}.
 */
class RehearsalTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final Duration LIMIT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    /** A compiler that compiles {@code millisPerSecond} in every second the watch samples. */
    private static Rehearsal.CompilerWatch watch(long millisPerSecond, AtomicLong now) {
        AtomicLong compiled = new AtomicLong();
        long start = now.get();
        return new Rehearsal.CompilerWatch(
                () -> compiled.get() + (now.get() - start) / SECOND * millisPerSecond, start, LIMIT);
    }

    @Test
    void aQuietCompilerEndsTheRehearsalOnceTheMinimumLoadHasRunAndNotBefore() {
        AtomicLong now = new AtomicLong(1_000 * SECOND);
        Rehearsal.CompilerWatch watch = watch(Rehearsal.SETTLED_COMPILE_MILLIS_PER_SECOND - 1, now);
        long minimumSeconds = Rehearsal.MINIMUM.toSeconds();

        for (long s = 1; s < minimumSeconds; s++) {
            now.addAndGet(SECOND);
            assertThat(watch.keepGoing(now.get())).as("after %d s", s).isTrue();
        }
        now.addAndGet(SECOND);
        assertThat(watch.keepGoing(now.get())).as("after %d s", minimumSeconds).isFalse();
        assertThat(watch.settled()).isTrue();
        assertThat(watch.keepGoing(now.get())).as("once stopped, stopped").isFalse();
    }

    @Test
    void aBusyCompilerKeepsTheRehearsalGoingUntilItsDuration() {
        AtomicLong now = new AtomicLong(0);
        Rehearsal.CompilerWatch watch = watch(Rehearsal.SETTLED_COMPILE_MILLIS_PER_SECOND * 3, now);

        for (long s = 1; s < LIMIT.toSeconds(); s++) {
            now.addAndGet(SECOND);
            assertThat(watch.keepGoing(now.get())).as("after %d s", s).isTrue();
        }
        now.addAndGet(SECOND);
        assertThat(watch.keepGoing(now.get())).isFalse();
        assertThat(watch.settled()).as("ended by its duration").isFalse();
    }

    @Test
    void aJvmThatDoesNotReportCompilationTimeRehearsesForTheWholeDuration() {
        AtomicLong now = new AtomicLong(0);
        Rehearsal.CompilerWatch watch = new Rehearsal.CompilerWatch(() -> -1, 0, LIMIT);

        for (long s = 1; s < LIMIT.toSeconds(); s++) {
            now.addAndGet(SECOND);
            assertThat(watch.keepGoing(now.get())).as("after %d s", s).isTrue();
        }
        assertThat(watch.keepGoing(LIMIT.toNanos())).isFalse();
        assertThat(watch.settled()).isFalse();
    }

    @Test
    void theRehearsalRunsTwiceEachRoundOnAFreshScratchVirtualHostAndFrontEndAndEndsWhenTheCompilerSettles()
            throws Exception {
        CountingProtocol protocol = new CountingProtocol(directory);

        Rehearsal.Outcome outcome = Rehearsal.run(config(LIMIT), directory, Map.of(), protocol, () -> 0);

        assertThat(outcome.rounds()).isEqualTo(Rehearsal.ROUNDS).isEqualTo(2);
        assertThat(protocol.frontEndsCreated).hasValue(2);
        assertThat(protocol.roundsSeen).as("each round had its own front end, the one before it closed")
                .containsExactly("front end 1 of 1 open", "front end 2 of 2 open");
        assertThat(outcome.messages()).isEqualTo(protocol.messagesSent.get()).isPositive();
        assertThat(outcome.settled()).as("the compiler was quiet").isTrue();
        assertThat(outcome.took()).as("each round ends once the minimum load ran and the compiler was quiet")
                .isLessThan(LIMIT.dividedBy(2));
        assertThat(Files.exists(directory.resolve(Rehearsal.DIRECTORY))).isFalse();
    }

    @Test
    void aSecondRoundThatWouldHaveLessThanTheMinimumLoadBeforeTheDurationIsNotStarted() throws Exception {
        CountingProtocol protocol = new CountingProtocol(directory);
        Duration shortWarmUp = Rehearsal.MINIMUM.plusSeconds(1);

        Rehearsal.Outcome outcome = Rehearsal.run(config(shortWarmUp), directory, Map.of(), protocol, () -> 0);

        assertThat(outcome.rounds()).isEqualTo(1);
        assertThat(protocol.frontEndsCreated).hasValue(1);
        assertThat(outcome.took()).isLessThan(shortWarmUp.plusSeconds(2));
    }

    @Test
    void aWarmUpShorterThanTheMinimumLoadStillRunsItsFirstRoundToItsDuration() throws Exception {
        CountingProtocol protocol = new CountingProtocol(directory);

        Rehearsal.Outcome outcome = Rehearsal.run(config(Duration.ofSeconds(1)), directory, Map.of(), protocol,
                () -> 0);

        assertThat(outcome.rounds()).isEqualTo(1);
        assertThat(outcome.messages()).isPositive();
        assertThat(outcome.settled()).as("ended by its duration, before the minimum load").isFalse();
    }

    /**
     * A protocol whose front end binds nothing and whose client sends one message every 10 ms until told to stop;
     * it records, at each round, how many of its front ends were created and how many were open.
     */
    private static final class CountingProtocol implements ProtocolFrontEndFactory, RehearsalClient {
        final AtomicInteger frontEndsCreated = new AtomicInteger();
        final AtomicInteger frontEndsOpen = new AtomicInteger();
        final AtomicLong messagesSent = new AtomicLong();
        final List<String> roundsSeen = new CopyOnWriteArrayList<>();
        private final Path workDirectory;

        CountingProtocol(Path workDirectory) {
            this.workDirectory = workDirectory;
        }

        @Override
        public String protocol() {
            return "counting";
        }

        @Override
        public ProtocolFrontEnd create(FrontEndContext context) {
            frontEndsCreated.incrementAndGet();
            return new ProtocolFrontEnd() {
                private final AtomicBoolean open = new AtomicBoolean();

                @Override
                public void start() {
                    open.set(true);
                    frontEndsOpen.incrementAndGet();
                }

                @Override
                public List<String> boundAddresses() {
                    return List.of("counting://127.0.0.1:5");
                }

                @Override
                public void close() {
                    if (open.compareAndSet(true, false)) {
                        frontEndsOpen.decrementAndGet();
                    }
                }
            };
        }

        @Override
        public Optional<RehearsalClient> rehearsalClient() {
            return Optional.of(this);
        }

        @Override
        public long rehearse(InetSocketAddress address, String virtualHost, int pairs, BooleanSupplier keepGoing)
                throws InterruptedException {
            assertThat(Files.isDirectory(workDirectory.resolve(Rehearsal.DIRECTORY))).isTrue();
            roundsSeen.add("front end " + frontEndsCreated.get() + " of " + frontEndsCreated.get()
                    + (frontEndsOpen.get() == 1 ? " open" : " with " + frontEndsOpen.get() + " open"));
            long sent = 0;
            while (keepGoing.getAsBoolean()) {
                Thread.sleep(10);
                sent++;
            }
            messagesSent.addAndGet(sent);
            return sent;
        }
    }

    @Test
    void withoutAProtocolThatHasARehearsalClientTheBrokerSaysSoAndStartsWithoutLeavingAScratchDirectory() {
        List<String> lines = new CopyOnWriteArrayList<>();
        OperationalLog log = new OperationalLog();
        log.addObserver(lines::add);

        Rehearsal.runIfConfigured(config(Duration.ofSeconds(5)), directory, Map.of(), log);

        assertThat(lines).containsExactly(
                "BRK-1010 : Warm-up : skipped: no protocol front end with a rehearsal client");
        assertThat(Files.exists(directory.resolve(Rehearsal.DIRECTORY))).isFalse();
    }

    @Test
    void aBrokerWithoutWarmUpSaysNothing() {
        List<String> lines = new CopyOnWriteArrayList<>();
        OperationalLog log = new OperationalLog();
        log.addObserver(lines::add);

        Rehearsal.runIfConfigured(config(Duration.ZERO), directory, Map.of(), log);

        assertThat(lines).isEmpty();
    }

    @Test
    void anUnloggedOperationalLogStillTellsItsObservers() {
        List<String> lines = new CopyOnWriteArrayList<>();
        OperationalLog log = OperationalLog.unlogged();
        log.addObserver(lines::add);

        log.log(org.tandembroker.core.oplog.LogCode.BRK_1004);

        assertThat(lines).containsExactly("BRK-1004 : Ready");
    }

    private BrokerConfig config(Duration warmUp) {
        return new BrokerConfig(directory.resolve("broker.xml"),
                List.of(new ListenerConfig("amqp", "127.0.0.1", 0, Optional.empty())), null,
                directory.resolve("users"), false, ConnectionLimits.DEFAULTS, 0, List.of(), "default",
                ManagementConfig.OFF, SecurityConfig.DEFAULTS, BrokerConfig.OnStoreFailure.EXIT,
                BrokerConfig.DEFAULT_QUEUE_WINDOW, warmUp);
    }
}
