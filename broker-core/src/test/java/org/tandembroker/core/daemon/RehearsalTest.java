package org.tandembroker.core.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.ManagementConfig;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.oplog.OperationalLog;

/**
 * How long the start-up warm-up runs (its end follows the JIT compiler) and what it does where it cannot run. The
 * rehearsal itself, with the AMQP client, is specified end to end in broker-dist's {@code WarmUpTest}.
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
