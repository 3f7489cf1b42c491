package org.tandembroker.systest.chaos;

import static org.awaitility.Awaitility.await;

import jakarta.jms.ConnectionFactory;
import jakarta.jms.Session;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.systest.cluster.ArbiterNode;
import org.tandembroker.systest.cluster.BrokerCluster;
import org.tandembroker.systest.cluster.BrokerNode;
import org.tandembroker.systest.cluster.StoreSection;
import org.tandembroker.systest.cluster.ZeroLossChecker;
import org.tandembroker.tools.haadmin.HaAdmin;

/**
 * The chaos soak: a replicated group in Docker containers ({@link BrokerCluster}), producers and consumers on Qpid
 * JMS failover URLs working all the time, and a nemesis injecting the faults of a {@link FaultPlan} drawn from a
 * printed seed: {@code kill -9} of the master or a replica (and its restart), a hung node ({@code docker pause}
 * longer than the heartbeat timeout), a network partition isolating the master or a replica (the node's network
 * disconnected: with three nodes that splits a minority of one from the majority), a full store volume (a
 * size-limited tmpfs filled to the last byte, then freed), overlapping faults, and time to recover in between.
 *
 * <p>At the end every fault is healed, the consumers stop while the producers go on a little (so the queues hold
 * a backlog), the replicas catch up, every node is stopped and its store digested ({@code store-digest}, run next
 * to the stopped node): all nodes must hold the same queues with the same depths and contents. The group is then
 * started again, the backlog drained, and the checker says: every confirmed message consumed at least once
 * (unless the durability policy documents a possible loss: counted under that policy), nothing consumed that was
 * never sent, committed transactions whole and rolled back ones all or nothing, each producer's order kept apart
 * from redeliveries, duplicates counted.
 *
 * <p>Threads: {@link #run} in the caller's thread (the nemesis); producers and consumers in threads of their own.
 */
public final class ChaosSoak {
    private static final Logger LOG = LoggerFactory.getLogger(ChaosSoak.class);
    private static final Duration RECOVERY = Duration.ofMinutes(3);
    /** The durability policy under which a confirmed message may be lost (docs/ha.md, docs/reliability.md). */
    static final String LOSSY_DURABILITY = "NO_SYNC,NO_SYNC,NONE";
    private static final int VOLUME_MEGABYTES = 256;
    static final String STOPPED = "the soak stopped: ";

    private final ChaosOptions options;
    private final ChaosLedger ledger = new ChaosLedger();
    private final Map<FaultPlan.Kind, Integer> injected = new EnumMap<>(FaultPlan.Kind.class);
    private final List<String> events = new ArrayList<>();
    private final List<ChaosProducer> producers = new ArrayList<>();
    private final List<ChaosConsumer> consumers = new ArrayList<>();
    private final long startedNanos = System.nanoTime();
    private int guardRefusals;
    private int designations;
    private int stepsRun;
    private BrokerCluster cluster;
    private ArbiterNode arbiter;
    private StoreVolumes volumes;
    private BrokerNode designated;

    public ChaosSoak(ChaosOptions options) {
        this.options = Objects.requireNonNull(options);
    }

    /** Runs the soak and returns its result (whose {@link ChaosResult#passed()} says whether it found nothing). */
    public ChaosResult run() {
        String runId = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        LOG.info("chaos soak {}: topology {}, durability {}, seed {}, duration {} (replay: bin/chaos --seed {} "
                + "--topology {}{})", runId, options.topology().label(), options.durabilityLabel(), options.seed(),
                options.duration(), options.seed(), options.topology().label(),
                options.durability() == null ? "" : " --durability " + options.durability());
        List<String> failures = new ArrayList<>();
        Map<String, String> digests = new LinkedHashMap<>();
        try {
            List<String> names = new ArrayList<>();
            for (int i = 1; i <= options.topology().brokers; i++) {
                names.add("node" + i);
            }
            volumes = StoreVolumes.create(runId, names, VOLUME_MEGABYTES);
            cluster = startCluster();
            if (options.topology().arbiter) {
                arbiter = ArbiterNode.start(cluster, "arbiter", ArbiterNode.QUICK_FAILURE_DETECTION);
            }
            BrokerNode master = cluster.awaitSingleActiveNode(RECOVERY);
            if (arbiter != null) {
                arbiter.awaitFollowingMaster(RECOVERY);
            }
            event("group up, master " + master.name());
            startWorkload();
            awaitProgress(50, "the workload to start");
            FaultPlan plan = FaultPlan.draw(options.seed(), options.maxFaults(), minimumHoldSeconds(), true);
            LOG.info("chaos plan (seed {}): {}", options.seed(), plan.steps());
            long deadline = System.nanoTime() + options.duration().toNanos(); // the fault phase, after start-up
            for (FaultPlan.Step step : plan.steps()) {
                if (System.nanoTime() > deadline) {
                    break;
                }
                runStep(step);
                stepsRun++;
            }
            finish(digests, failures);
        } catch (AssertionError | RuntimeException e) {
            LOG.error("chaos soak stopped: {}", e.toString(), e);
            failures.add(STOPPED + firstLines(e));
            stopWorkload();
        } finally {
            close();
        }
        ChaosResult result = ChaosResult.of(options, ledger, injected, stepsRun, events, guardRefusals, designations,
                digests, failures, Duration.ofNanos(System.nanoTime() - startedNanos));
        writeReport(result);
        return result;
    }

    // --- the group --------------------------------------------------------------------------------------------

    private BrokerCluster startCluster() {
        ChaosTopology topology = options.topology();
        return BrokerCluster.builder().nodes(topology.brokers)
                .store((node, group) -> {
                    StoreSection store = StoreSection.replicated(node, group)
                            .set("maxDisk", (VOLUME_MEGABYTES * 5 / 8) + "MB")
                            .envConfig("je.freeDisk", String.valueOf(8L * 1024 * 1024))
                            .envConfig("je.log.fileMax", String.valueOf(4L * 1024 * 1024));
                    if (options.durability() != null) {
                        store.set("durability", options.durability());
                        if (!options.durability().startsWith("NO_SYNC,NO_SYNC,SIMPLE")) {
                            store.set("coalescingSync", "false");
                        }
                    }
                    // The arbiter gets the same 5 s heartbeat timeout (ArbiterNode.QUICK_FAILURE_DETECTION).
                    store.quickFailureDetection();
                    if (topology.operator) {
                        store.immediatePrimaryActivation();
                    }
                    return store.xml();
                })
                .eachNode(node -> {
                    node.workVolume(volumes.volume(node.name()));
                    node.queues("""
                            <queues autoCreate="true"><defaults durable="true"/>
                              <queue name="chaos.topic.all"/><queue name="chaos.topic.b"/>
                            </queues>""");
                    node.virtualHostExtras("""
                            <exchanges><exchange name="chaos.events" type="topic" durable="true"/></exchanges>
                            <bindings>
                              <binding exchange="chaos.events" queue="chaos.topic.all" key="ev.#"/>
                              <binding exchange="chaos.events" queue="chaos.topic.b" key="ev.b.*"/>
                            </bindings>""");
                    if (topology.operator) {
                        node.jmx();
                    }
                })
                .start();
    }

    /** Pauses and partitions outlast the heartbeat timeout: 5 s, quick failure detection on every node. */
    private int minimumHoldSeconds() {
        return 8;
    }

    // --- the workload -----------------------------------------------------------------------------------------

    private void startWorkload() {
        ConnectionFactory factory = cluster.connectionFactory();
        List<String> all = List.of("chaos.topic.all");
        List<String> both = List.of("chaos.topic.all", "chaos.topic.b");
        producers.add(new ChaosProducer("plain-1", factory, "chaos.q1", false, List.of("chaos.q1"), 0, 20, ledger));
        producers.add(new ChaosProducer("txn-1", factory, "chaos.q2", false, List.of("chaos.q2"), 4, 60, ledger));
        producers.add(new ChaosProducer("plain-2", factory, "chaos.q3", false, List.of("chaos.q3"), 0, 40, ledger));
        producers.add(new ChaosProducer("txn-2", factory, "chaos.q3", false, List.of("chaos.q3"), 3, 80, ledger));
        producers.add(new ChaosProducer("topic-1", factory, "chaos.events/ev.b.1", true, both, 0, 40, ledger));
        producers.add(new ChaosProducer("topic-txn-1", factory, "chaos.events/ev.a.1", true, all, 3, 80, ledger));
        startConsumers(factory, "");
        producers.forEach(ChaosProducer::start);
        producers.forEach(p -> LOG.info("chaos producer {}", p.describe()));
    }

    private void startConsumers(ConnectionFactory factory, String suffix) {
        consumers.add(new ChaosConsumer("auto-q1" + suffix, factory, "chaos.q1", Session.AUTO_ACKNOWLEDGE, ledger));
        consumers.add(new ChaosConsumer("client-q2" + suffix, factory, "chaos.q2", Session.CLIENT_ACKNOWLEDGE,
                ledger));
        consumers.add(new ChaosConsumer("txn-q3" + suffix, factory, "chaos.q3", Session.SESSION_TRANSACTED,
                ledger));
        consumers.add(new ChaosConsumer("auto-topic-all" + suffix, factory, "chaos.topic.all",
                Session.AUTO_ACKNOWLEDGE, ledger));
        consumers.add(new ChaosConsumer("txn-topic-b" + suffix, factory, "chaos.topic.b",
                Session.SESSION_TRANSACTED, ledger));
        consumers.forEach(c -> {
            c.start();
            LOG.info("chaos consumer {}", c.describe());
        });
    }

    private long settledTotal() {
        return ledger.queues().values().stream().mapToLong(ZeroLossChecker::settledCount).sum();
    }

    private long receivedTotal() {
        return ledger.queues().values().stream().mapToLong(ZeroLossChecker::receivedCount).sum();
    }

    /** Waits until {@code count} more messages were confirmed and {@code count} more consumed. */
    private void awaitProgress(int count, String what) {
        long settled = settledTotal();
        long received = receivedTotal();
        awaitCondition(what + ": " + count + " more messages confirmed and consumed",
                () -> settledTotal() >= settled + count && receivedTotal() >= received + count);
    }

    private void stopWorkload() {
        producers.forEach(ChaosProducer::stop);
        consumers.forEach(ChaosConsumer::stop);
    }

    // --- the nemesis ------------------------------------------------------------------------------------------

    /** A fault in force: its target and how to heal it. */
    private record ActiveFault(FaultPlan.Kind kind, BrokerNode node) {
    }

    private void runStep(FaultPlan.Step step) {
        LOG.info("chaos step {}", step);
        List<ActiveFault> active = new ArrayList<>();
        long began = System.nanoTime();
        inject(step.kind(), active).ifPresent(active::add);
        if (step.overlapping() != null) {
            sleepSeconds(step.overlapAfterSeconds());
            inject(step.overlapping(), active).ifPresent(active::add);
        }
        long heldNanos = System.nanoTime() - began;
        sleepNanos(TimeUnit.SECONDS.toNanos(step.holdSeconds()) - heldNanos);
        for (int i = active.size() - 1; i >= 0; i--) {
            heal(active.get(i));
        }
        recover("after step " + step.index());
        sleepSeconds(step.restSeconds());
    }

    /** Injects {@code kind} on a node not already faulted, or nothing when none fits. */
    private Optional<ActiveFault> inject(FaultPlan.Kind kind, List<ActiveFault> active) {
        List<BrokerNode> faulted = active.stream().map(ActiveFault::node).toList();
        Optional<BrokerNode> target = target(kind, faulted);
        if (target.isEmpty()) {
            event("skipped " + kind.label() + ": no such node free of faults");
            return Optional.empty();
        }
        BrokerNode node = target.get();
        ledger.faultInjected(kind.label());
        switch (kind) {
            case KILL_MASTER, KILL_REPLICA -> node.kill();
            case PAUSE_MASTER, PAUSE_REPLICA -> node.pause();
            case PARTITION_MASTER, PARTITION_REPLICA -> node.disconnect();
            case DISK_FULL_MASTER, DISK_FULL_REPLICA -> volumes.fill(node.name());
            default -> throw new IllegalStateException(kind.name());
        }
        injected.merge(kind, 1, Integer::sum);
        event(kind.label() + " " + node.name());
        if (options.topology().operator && kind.isKill()) {
            designateSurvivorOf(node, faulted);
        }
        return Optional.of(new ActiveFault(kind, node));
    }

    private Optional<BrokerNode> target(FaultPlan.Kind kind, List<BrokerNode> faulted) {
        List<BrokerNode> free = cluster.nodes().stream().filter(n -> !faulted.contains(n)).toList();
        if (free.isEmpty()) {
            return Optional.empty();
        }
        Optional<BrokerNode> master = currentMaster().filter(free::contains);
        if (kind.targetsMaster()) {
            return master;
        }
        List<BrokerNode> replicas = free.stream().filter(n -> master.map(m -> m != n).orElse(true)).toList();
        if (replicas.isEmpty()) {
            return Optional.empty();
        }
        // The choice among replicas comes from the seed too, through the node count only.
        return Optional.of(replicas.get(new SplittableRandom(options.seed() + stepsRun).nextInt(replicas.size())));
    }

    /** The node serving clients now, if exactly one does. */
    private Optional<BrokerNode> currentMaster() {
        List<BrokerNode> accepting = cluster.nodesAcceptingClients();
        return accepting.size() == 1 ? Optional.of(accepting.get(0)) : Optional.empty();
    }

    private void heal(ActiveFault fault) {
        BrokerNode node = fault.node();
        switch (fault.kind()) {
            case KILL_MASTER, KILL_REPLICA -> node.restart();
            case PAUSE_MASTER, PAUSE_REPLICA -> node.unpause();
            case PARTITION_MASTER, PARTITION_REPLICA -> node.reconnect();
            case DISK_FULL_MASTER, DISK_FULL_REPLICA -> volumes.free(node.name());
            default -> throw new IllegalStateException(fault.kind().name());
        }
        event("healed " + fault.kind().label() + " " + node.name());
    }

    /**
     * After the faults of a step were healed: one node serves, messages flow again, and (two nodes with an
     * operator) the restarted node caught up, the designation is withdrawn and the split-brain guard is checked.
     */
    private void recover(String when) {
        BrokerNode master = cluster.awaitSingleActiveNode(RECOVERY);
        awaitProgress(20, "recovery " + when);
        if (options.topology().operator) {
            if (designated != null) {
                for (BrokerNode other : cluster.others(designated)) {
                    awaitCaughtUp(other, designated);
                }
                HaAdminRun undesignate = haAdmin(designated, "undesignate-primary", designated.name());
                if (undesignate.exitCode() != 0) {
                    throw new AssertionError("ha-admin undesignate-primary " + designated.name() + ": " + undesignate);
                }
                event("operator: undesignated " + designated.name());
                designated = null;
                master = cluster.awaitSingleActiveNode(RECOVERY);
            }
            checkSplitBrainGuard(master);
        }
        event("recovered " + when + ", master " + master.name());
    }

    /** The operator's rule: designate the survivor only when the other node is really down. */
    private void designateSurvivorOf(BrokerNode killed, List<BrokerNode> faulted) {
        if (killed.isRunning()) {
            throw new AssertionError(killed.name() + " still runs after kill -9");
        }
        BrokerNode survivor = cluster.others(killed).get(0);
        if (faulted.contains(survivor) || survivor.isPaused() || survivor.isDisconnected() || !survivor.isRunning()) {
            event("operator: no designation, " + survivor.name() + " is faulted too");
            return;
        }
        if (designated == survivor) {
            return;
        }
        HaAdminRun run = haAdmin(survivor, "designate-primary", survivor.name(), "--wait", "120");
        if (run.exitCode() != 0) {
            throw new AssertionError("ha-admin designate-primary " + survivor.name() + " after " + killed.name()
                    + " was killed: " + run);
        }
        designated = survivor;
        designations++;
        event("operator: designated " + survivor.name() + " (" + killed.name() + " is down)");
    }

    /** While both nodes answer, designating the replica must be refused (exit 1, the split-brain explanation). */
    private void checkSplitBrainGuard(BrokerNode master) {
        BrokerNode replica = cluster.others(master).get(0);
        HaAdminRun run = haAdmin(replica, "designate-primary", replica.name());
        if (run.exitCode() != 1 || !run.err().contains("split brain")) {
            throw new AssertionError("the split-brain guard did not refuse designate-primary " + replica.name()
                    + " while " + master.name() + " is master: " + run);
        }
        guardRefusals++;
    }

    private record HaAdminRun(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + ", out: " + out.strip() + ", err: " + err.strip();
        }
    }

    private static HaAdminRun haAdmin(BrokerNode node, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--host", "127.0.0.1", "--port", String.valueOf(node.jmxPort()), "--user",
                BrokerNode.ADMIN_USER, "--password", BrokerNode.ADMIN_PASSWORD, "--vhost", "default"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = HaAdmin.run(new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
        HaAdminRun run = new HaAdminRun(exitCode, out.toString(), err.toString());
        LOG.info("ha-admin {} against {}: {}", String.join(" ", args), node.name(), run);
        return run;
    }

    // --- the end: convergence and the checker ----------------------------------------------------------------

    private void finish(Map<String, String> digests, List<String> failures) {
        event("faults over; consumers stop, producers build a backlog");
        consumers.forEach(ChaosConsumer::stop);
        consumers.clear();
        long settled = settledTotal();
        awaitCondition("a backlog of 100 more confirmed messages", () -> settledTotal() >= settled + 100);
        producers.forEach(ChaosProducer::stop);
        BrokerNode master = cluster.awaitSingleActiveNode(RECOVERY);
        for (BrokerNode other : cluster.others(master)) {
            awaitCaughtUp(other, master);
        }
        event("every replica caught up with " + master.name() + "; stopping the group for the consistency check");
        inParallel(cluster.nodes(), BrokerNode::stop);
        for (BrokerNode node : cluster.nodes()) {
            digests.put(node.name(), volumes.digest(node.name()));
        }
        String first = digests.values().iterator().next();
        if (digests.values().stream().anyMatch(d -> !d.equals(first))) {
            failures.add("the nodes did not converge: " + digests);
        }
        LOG.info("store digests: {}", digests);
        event("restarting the group to drain the backlog");
        inParallel(cluster.nodes(), BrokerNode::restart);
        cluster.awaitSingleActiveNode(RECOVERY);
        startConsumers(cluster.connectionFactory(), "-drain");
        boolean lossy = LOSSY_DURABILITY.equals(options.durability());
        try {
            awaitCondition("every confirmed message consumed", () -> ledger.queues().values().stream()
                    .allMatch(q -> q.report().lost().isEmpty()), lossy ? Duration.ofSeconds(60) : RECOVERY);
        } catch (AssertionError e) {
            if (!lossy) {
                failures.add(e.getMessage());
            }
        }
        // Let late redeliveries arrive, then stop.
        long received = receivedTotal();
        sleepSeconds(3);
        awaitCondition("consumers quiet", () -> {
            long now = receivedTotal();
            sleepSeconds(2);
            return receivedTotal() == now;
        });
        LOG.info("drained {} more messages", receivedTotal() - received);
        consumers.forEach(ChaosConsumer::stop);
    }

    /** JE's DbPing fails while a node restarts its environment (connection refused): ask again until the deadline. */
    private void awaitCaughtUp(BrokerNode replica, BrokerNode master) {
        awaitCondition(replica.name() + " caught up with " + master.name(), () -> {
            try {
                replica.awaitCaughtUpWith(master, Duration.ofSeconds(30));
                return true;
            } catch (AssertionError | RuntimeException e) {
                LOG.info("{} not caught up with {} yet: {}", replica.name(), master.name(), e.getMessage());
                return false;
            }
        });
    }

    private static void inParallel(List<BrokerNode> nodes, java.util.function.Consumer<BrokerNode> action) {
        ExecutorService pool = Executors.newFixedThreadPool(nodes.size());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (BrokerNode node : nodes) {
                futures.add(pool.submit(() -> action.accept(node)));
            }
            for (Future<?> future : futures) {
                try {
                    future.get(5, TimeUnit.MINUTES);
                } catch (Exception e) {
                    throw new IllegalStateException("a node action failed: " + e, e);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    // --- plumbing ---------------------------------------------------------------------------------------------

    private void awaitCondition(String what, BooleanSupplier condition) {
        awaitCondition(what, condition, RECOVERY);
    }

    private void awaitCondition(String what, BooleanSupplier condition, Duration timeout) {
        try {
            await(what).atMost(timeout).pollInterval(Duration.ofMillis(250)).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("chaos: not within " + timeout + ": " + what + " (confirmed " + settledTotal()
                    + ", consumed " + receivedTotal() + ")", e);
        }
    }

    private void event(String what) {
        String line = String.format("%7.1f s  %s", (System.nanoTime() - startedNanos) / 1e9, what);
        events.add(line);
        LOG.info("chaos: {}", line);
    }

    private static void sleepSeconds(int seconds) {
        sleepNanos(TimeUnit.SECONDS.toNanos(seconds));
    }

    /** The nemesis waits out a fault's hold time: this is the fault's duration, not a synchronisation. */
    private static void sleepNanos(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            java.util.concurrent.locks.LockSupport.parkNanos(end - System.nanoTime());
        }
    }

    private static String firstLines(Throwable e) {
        String text = String.valueOf(e.getMessage());
        String[] lines = text.split("\n");
        return lines.length <= 6 ? text : String.join("\n", List.of(lines).subList(0, 6)) + "\n...";
    }

    private void close() {
        try {
            stopWorkload();
        } catch (RuntimeException e) {
            LOG.warn("stopping the workload: {}", e.toString());
        }
        if (arbiter != null) {
            arbiter.close();
        }
        if (cluster != null) {
            try {
                cluster.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the group: {}", e.toString());
            }
        }
        if (volumes != null) {
            volumes.close();
        }
    }

    private void writeReport(ChaosResult result) {
        Path directory = options.reportDirectory();
        try {
            Files.createDirectories(directory);
            Path file = directory.resolve("chaos-" + options.topology().label() + "-"
                    + options.durabilityLabel().replace(',', '-') + "-" + options.seed() + ".txt");
            Files.writeString(file, result.describe());
            LOG.info("chaos report written to {}:\n{}", file, result.describe());
        } catch (IOException e) {
            LOG.warn("could not write the chaos report: {}", e.toString());
        }
    }
}
