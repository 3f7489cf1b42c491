package org.tandembroker.core.daemon;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.ManagementConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.frontend.ProtocolFrontEndFactory;
import org.tandembroker.core.frontend.RehearsalClient;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.AuthResult;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.security.AccessControl;
import org.tandembroker.core.security.SecurityStatistics;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.BrokerVirtualHosts;
import org.tandembroker.core.vhost.VirtualHostState;

/**
 * The start-up warm-up ({@code <warmUp duration>}): before the broker opens its stores and listeners, it moves
 * persistent messages through a scratch virtual host with the protocol's own client on loopback, so that the JIT
 * compiler has compiled the publish and consume paths (protocol codec, front end, virtual host, queue, store
 * records and group commit) by the time the first real client connects. A cold broker moves about half of its warm
 * rate for its first 10-20 s; this spends that time before serving instead.
 *
 * <p>The scratch virtual host has the real configuration's connection limits and heap window and a store of the
 * same engine ({@link MessageStoreFactory#rehearsalStore}, in {@code WORK/.warm-up}, deleted afterwards), a
 * listener on 127.0.0.1 with an ephemeral port that only SASL ANONYMOUS can use, and an operational log of its own
 * (none of its lines reach the operators' log). A replicated node rehearses as the master of a scratch group of two
 * of its own in this JVM, its replica started beside it, so that the feeder and the replica's replay are compiled too
 * (its real group is not touched). It runs in {@link #ROUNDS} rounds, each on a fresh scratch virtual host, store
 * and front end, so that the code its set-up and tear-down threw away is compiled again by the second. A round ends
 * once the compiler has been nearly idle for a second ({@link #SETTLED_COMPILE_MILLIS_PER_SECOND}) after at least
 * {@link #MINIMUM} of load; the rehearsal ends at {@code duration} (a later round that would have less than
 * {@link #MINIMUM} before it is not started).
 *
 * <p>It never stops the broker from starting: any failure is one {@code BRK-1010} line and start-up goes on.
 * Thread: the starting thread; the client's connections run on their own threads.
 */
final class Rehearsal {
    private static final Logger LOG = LoggerFactory.getLogger(Rehearsal.class);
    static final String VIRTUAL_HOST = "warm-up";
    static final String DIRECTORY = ".warm-up";
    /** Publisher/consumer pairs: enough concurrent commits to exercise group commit, few enough for two cores. */
    static final int PAIRS = 8;
    /**
     * The whole rehearsal twice: set-up, load and tear-down, then again on a fresh store. Tearing down (connections
     * closing, the store closing) and setting up (a store opening) take branches that the load never took, and the
     * compiler then throws away (deoptimizes) hot code it had compiled without them; the second round compiles it
     * again with them, so that the end of the rehearsal and the real store's start no longer leave the hot paths to
     * be compiled afresh under the first real clients.
     */
    static final int ROUNDS = 2;
    /** The least load of each round before the compiler's quiet may end it. */
    static final Duration MINIMUM = Duration.ofSeconds(3);
    /** The compiler counts as settled when it compiled for less than this many ms in the last second. */
    static final long SETTLED_COMPILE_MILLIS_PER_SECOND = 40;

    private Rehearsal() {
    }

    /** What a rehearsal did, for the log line and the tests. */
    record Outcome(long messages, int rounds, Duration took, Duration compiling, boolean settled) {
    }

    /**
     * Rehearses if {@code config} asks for it and a protocol with a rehearsal client is on the class path; logs
     * {@code BRK-1010} with what it did (or why it could not) and returns.
     */
    static void runIfConfigured(BrokerConfig config, Path workDirectory, Map<String, MessageStoreFactory> stores,
                                OperationalLog operationalLog) {
        if (!config.warmsUp()) {
            return;
        }
        try {
            Optional<Outcome> outcome = run(config, workDirectory, stores, compilerClock());
            if (outcome.isEmpty()) {
                operationalLog.log(LogCode.BRK_1010, "skipped: no protocol front end with a rehearsal client");
                return;
            }
            Outcome done = outcome.get();
            operationalLog.log(LogCode.BRK_1010, String.format(
                    "%,d messages through a scratch virtual host in %.1f s, %d round%s (JIT compiling %.1f s; %s)",
                    done.messages(), done.took().toMillis() / 1000.0, done.rounds(), done.rounds() == 1 ? "" : "s",
                    done.compiling().toMillis() / 1000.0,
                    done.settled() ? "ended as the compiler settled" : "ended at warmUp@duration "
                            + config.warmUp().toSeconds() + "s"));
        } catch (Exception e) {
            operationalLog.log(LogCode.BRK_1010, "failed, starting without it: " + e);
            LOG.debug("Warm-up failed", e);
        }
    }

    /**
     * Rehearses for at most {@code config.warmUp()}, in {@link #ROUNDS} rounds; {@code compileMillis} is the JIT's
     * total compilation time so far (or -1 when unknown: then the rehearsal runs its whole duration). Empty when no
     * front end has a client.
     */
    static Optional<Outcome> run(BrokerConfig config, Path workDirectory, Map<String, MessageStoreFactory> stores,
                                 LongSupplier compileMillis) throws Exception {
        Optional<ProtocolFrontEndFactory> protocol = ServiceLoader.load(ProtocolFrontEndFactory.class).stream()
                .map(ServiceLoader.Provider::get).filter(f -> f.rehearsalClient().isPresent()).findFirst();
        if (protocol.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(run(config, workDirectory, stores, protocol.get(), compileMillis));
    }

    /** Rehearses with {@code protocol}'s front end and client (which it must have). */
    static Outcome run(BrokerConfig config, Path workDirectory, Map<String, MessageStoreFactory> stores,
                       ProtocolFrontEndFactory protocol, LongSupplier compileMillis) throws Exception {
        long start = System.nanoTime();
        long compileAtStart = compileMillis.getAsLong();
        long deadline = start + config.warmUp().toNanos();
        long messages = 0;
        int rounds = 0;
        boolean settled = false;
        for (int round = 0; round < ROUNDS && (round == 0 || deadline - System.nanoTime() >= MINIMUM.toNanos());
             round++) {
            Round done = rehearseOnce(config, workDirectory, stores, protocol, compileMillis, deadline);
            messages += done.messages();
            settled = done.settled();
            rounds++;
        }
        long compileAtEnd = compileMillis.getAsLong();
        return new Outcome(messages, rounds, Duration.ofNanos(System.nanoTime() - start),
                Duration.ofMillis(compileAtStart < 0 ? 0 : compileAtEnd - compileAtStart), settled);
    }

    private record Round(long messages, boolean settled) {
    }

    /**
     * One round: a scratch virtual host on a fresh scratch store and a front end are set up, the client's load runs
     * until the compiler settles (or {@code deadlineNanos}), and everything is torn down and deleted again.
     */
    private static Round rehearseOnce(BrokerConfig config, Path workDirectory, Map<String, MessageStoreFactory> stores,
                                      ProtocolFrontEndFactory protocol, LongSupplier compileMillis,
                                      long deadlineNanos) throws Exception {
        Path directory = workDirectory.resolve(DIRECTORY);
        deleteRecursively(directory);
        Files.createDirectories(directory);
        OperationalLog scratchLog = OperationalLog.unlogged();
        ExecutorService queuePool = Executors.newFixedThreadPool(Math.max(2,
                Runtime.getRuntime().availableProcessors()), new NamedThreadFactory("warm-up-queue-worker", true));
        ScheduledExecutorService housekeeping =
                Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("warm-up-housekeeping", true));
        BrokerVirtualHost host = null;
        ProtocolFrontEnd frontEnd = null;
        try {
            MessageStore store = scratchStore(config, directory, stores, scratchLog);
            VirtualHostConfig hostConfig = new VirtualHostConfig(directory.resolve("warm-up.xml"), VIRTUAL_HOST,
                    new StoreSettings(directory.resolve("warm-up.xml"), "rehearsal", Map.of(), List.of(), List.of()),
                    true, new QueueConfig("defaults", true, 0, 0, 0, 0, null), List.of(), List.of(), List.of());
            host = new BrokerVirtualHost(hostConfig, () -> store, scratchLog,
                    new ContentBudget(config.messageMemoryBudget()), config.queueWindow(), queuePool, housekeeping);
            host.start();
            VirtualHostState state = host.firstRoleDecided().get(60, TimeUnit.SECONDS);
            if (state != VirtualHostState.ACTIVE) {
                throw new IllegalStateException("the scratch virtual host did not become active: " + state);
            }
            BrokerConfig scratchConfig = new BrokerConfig(directory.resolve("warm-up-broker.xml"),
                    List.of(new ListenerConfig("warm-up", "127.0.0.1", 0, Optional.empty())), null,
                    directory.resolve("users"), true, config.limits(), config.messageMemoryBudget(),
                    List.of(hostConfig), VIRTUAL_HOST, ManagementConfig.OFF,
                    new SecurityConfig(Optional.empty(), false, Duration.ZERO, Duration.ZERO));
            frontEnd = protocol.create(new FrontEndContext(scratchConfig, directory,
                    new BrokerVirtualHosts(Map.of(VIRTUAL_HOST, host), VIRTUAL_HOST, Set.of()),
                    AnonymousOnly.INSTANCE, scratchLog, AccessControl.unrestricted(scratchLog,
                            new SecurityStatistics(), "warm-up")));
            frontEnd.start();
            InetSocketAddress address = loopbackAddress(frontEnd.boundAddresses().get(0));
            long roundStart = System.nanoTime();
            CompilerWatch watch = new CompilerWatch(compileMillis, roundStart,
                    Duration.ofNanos(Math.max(0, deadlineNanos - roundStart)));
            long messages = protocol.rehearsalClient().orElseThrow()
                    .rehearse(address, VIRTUAL_HOST, PAIRS, watch::keepGoing);
            return new Round(messages, watch.settled());
        } finally {
            if (frontEnd != null) {
                frontEnd.close();
            }
            if (host != null) {
                try {
                    host.stop().get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    LOG.debug("Stopping the warm-up's virtual host failed", e);
                }
            }
            housekeeping.shutdownNow();
            queuePool.shutdownNow();
            deleteRecursively(directory);
        }
    }

    private static MessageStore scratchStore(BrokerConfig config, Path directory,
                                             Map<String, MessageStoreFactory> stores, OperationalLog scratchLog)
            throws Exception {
        StoreContext context = new StoreContext(VIRTUAL_HOST, directory, null, scratchLog);
        for (VirtualHostConfig vhc : config.virtualHosts()) {
            MessageStoreFactory factory = stores.get(vhc.store().type());
            if (factory != null) {
                Optional<MessageStore> store = factory.rehearsalStore(directory.resolve("store"), context);
                if (store.isPresent()) {
                    return store.get();
                }
            }
        }
        return new MemoryMessageStore();
    }

    private static InetSocketAddress loopbackAddress(String bound) {
        int port = Integer.parseInt(bound.substring(bound.lastIndexOf(':') + 1));
        return new InetSocketAddress("127.0.0.1", port);
    }

    /** The JIT's total compilation time in ms, or -1 where the JVM does not say. */
    static LongSupplier compilerClock() {
        CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        if (compiler == null || !compiler.isCompilationTimeMonitoringSupported()) {
            return () -> -1;
        }
        return compiler::getTotalCompilationTime;
    }

    /**
     * Says whether the rehearsal goes on: until the deadline, or, after {@link #MINIMUM}, until the compiler
     * spent less than {@link #SETTLED_COMPILE_MILLIS_PER_SECOND} in the last whole second. Called from the client's
     * threads, so synchronized; cheap between samples.
     */
    static final class CompilerWatch {
        private final LongSupplier compileMillis;
        private final long startNanos;
        private final long deadlineNanos;
        private long sampleNanos;
        private long sampleCompileMillis;
        private boolean settled;
        private boolean stopped;

        CompilerWatch(LongSupplier compileMillis, long startNanos, Duration limit) {
            this.compileMillis = compileMillis;
            this.startNanos = startNanos;
            this.deadlineNanos = startNanos + limit.toNanos();
            this.sampleNanos = startNanos;
            this.sampleCompileMillis = compileMillis.getAsLong();
        }

        boolean keepGoing() {
            return keepGoing(System.nanoTime());
        }

        synchronized boolean keepGoing(long now) {
            if (stopped) {
                return false;
            }
            if (now - deadlineNanos >= 0) {
                stopped = true;
                return false;
            }
            if (now - sampleNanos >= TimeUnit.SECONDS.toNanos(1)) {
                long compiled = compileMillis.getAsLong();
                boolean quiet = compiled >= 0 && sampleCompileMillis >= 0
                        && compiled - sampleCompileMillis < SETTLED_COMPILE_MILLIS_PER_SECOND;
                sampleNanos = now;
                sampleCompileMillis = compiled;
                if (quiet && now - startNanos >= MINIMUM.toNanos()) {
                    settled = true;
                    stopped = true;
                    return false;
                }
            }
            return true;
        }

        synchronized boolean settled() {
            return settled;
        }
    }

    /** The scratch listener's only way in: SASL ANONYMOUS. */
    private enum AnonymousOnly implements Authenticator {
        INSTANCE;

        @Override
        public boolean anonymousEnabled() {
            return true;
        }

        @Override
        public AuthResult authenticate(String username, char[] password, SocketAddress remote) {
            return AuthResult.failure("the warm-up listener takes SASL ANONYMOUS only");
        }
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        Files.walkFileTree(directory, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
