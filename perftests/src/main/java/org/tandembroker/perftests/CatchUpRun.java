package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Replica catch-up: a two-node group ({@link HaCluster}, HA default durability, JMX on) whose master is
 * designated primary, so that it goes on committing alone; the replica is stopped (SIGTERM or {@code kill -9}),
 * {@code backlog} persistent messages are published to the master and every send confirmed, then the replica is
 * started again. How long until it has caught up is read from what the broker publishes over JMX: the replica's
 * last transaction (VLSN), which the master's {@code pingNodeDetails} asks it for, against the master's; and the
 * master's {@code ReplicationLag} for it (the {@code tandem.ha.replica.lag.vlsn} gauge's figure). Optionally the
 * master is then stopped, the replica designated primary and the backlog consumed from it, which proves that the
 * caught-up replica holds every confirmed message.
 *
 * <p>Threads: the benchmark's main thread; the publishers and the catch-up watch ({@code perf-catchup-watch})
 * have their own. The watch owns its own JMX connection and publishes its findings through volatile fields.
 */
public final class CatchUpRun {
    private static final String QUEUE = "perf-catchup";
    private static final int PUBLISHERS = 4;
    private static final Duration SETTLE_LIMIT = Duration.ofMinutes(2);
    private static final Duration LAG_ZERO_GRACE = Duration.ofSeconds(10);
    private static final String REPLICA = "node-2";

    private final Path lib;
    private final List<String> jvmOptions;
    private final Path temp;
    private final Path results;
    private final Duration timeout;
    private final Progress progress;

    /** @param timeout the longest wait for the catch-up, and for the verification's drain */
    public CatchUpRun(Path lib, List<String> jvmOptions, Path temp, Path results, Duration timeout,
                      Progress progress) {
        this.lib = lib;
        this.jvmOptions = jvmOptions;
        this.temp = temp;
        this.results = results;
        this.timeout = timeout;
        this.progress = progress;
    }

    /**
     * @param killReplica {@code kill -9} of the replica instead of SIGTERM
     * @param verify      consume the backlog from the replica afterwards
     */
    public CatchUpResult run(long backlog, int bodySize, boolean killReplica, boolean verify) throws Exception {
        progress.run(String.format(Locale.ROOT, "catch-up: %,d x %s", backlog, ByteSizeConverter.format(bodySize)),
                Duration.ZERO);
        try (HaCluster cluster = HaCluster.write(Files.createTempDirectory(temp, "tandem-perf-catchup-"), lib,
                jvmOptions, 2, FailoverRun.DURABILITY, true, true, List.of("je.rep.electionsPrimaryRetries=0"))) {
            try {
                return measure(cluster, backlog, bodySize, killReplica, verify);
            } finally {
                progress.update("stopping the group");
                cluster.stopAll(results, "catchup-final");
            }
        }
    }

    private CatchUpResult measure(HaCluster cluster, long backlog, int bodySize, boolean killReplica, boolean verify)
            throws Exception {
        progress.update("starting 2 nodes");
        cluster.start(Duration.ZERO);
        List<String> notes = new ArrayList<>();
        DeliveryLedger ledger = new DeliveryLedger(PUBLISHERS);
        long target;
        long replicaBefore;
        Duration publish;
        try (CatchUpProbe master = CatchUpProbe.awaitRoles(cluster, SETTLE_LIMIT, progress)) {
            master.designatePrimary(true);
            replicaBefore = master.ping(REPLICA).txnEndVlsn();
            String stoppedBy = killReplica ? "kill -9" : "SIGTERM";
            progress.println("designated node-1 primary; stopping " + REPLICA + " (" + stoppedBy + ") at VLSN "
                    + replicaBefore);
            if (killReplica) {
                cluster.kill(1);
            } else {
                cluster.node(1).stop(Duration.ofSeconds(60));
            }
            cluster.node(1).saveOutput(results.resolve("catchup-node-2-before-restart.log"));
            awaitNoFeeders(master);

            long started = System.nanoTime();
            publish(cluster, backlog, bodySize, ledger);
            publish = Duration.ofNanos(System.nanoTime() - started);
            if (ledger.confirmedCount() != backlog) {
                throw new IllegalStateException(String.format(Locale.ROOT,
                        "only %,d of %,d sends confirmed while the replica was down", ledger.confirmedCount(),
                        backlog));
            }
            target = master.ping(cluster.nodeName(0)).txnEndVlsn();
        }
        progress.println(String.format(Locale.ROOT, "published %,d x %s in %.1f s; master at VLSN %,d, %,d ahead"
                + " of the replica", backlog, ByteSizeConverter.format(bodySize), publish.toNanos() / 1e9, target,
                target - replicaBefore));

        Watch watch = new Watch(cluster, target);
        Thread watcher = new Thread(watch, "perf-catchup-watch");
        watch.restarted = System.nanoTime();
        watcher.start();
        cluster.restart(1);
        Duration toListening = Duration.ofNanos(System.nanoTime() - watch.restarted);
        while (watcher.isAlive()) {
            progress.update(watch.describe());
            watcher.join(500);
        }
        if (watch.failure != null) {
            notes.add(watch.failure);
        }
        Optional<Duration> toCaughtUp = watch.since(watch.caughtUp);
        progress.println(String.format(Locale.ROOT, "%s listening after %s, joined after %s, caught up after %s,"
                        + " master's ReplicationLag 0 after %s", REPLICA, FailoverReport.seconds(toListening),
                watch.since(watch.joined).map(FailoverReport::seconds).orElse("-"),
                toCaughtUp.map(FailoverReport::seconds).orElse("not within " + timeout),
                watch.since(watch.lagZero).map(FailoverReport::seconds).orElse("-")));
        if (toCaughtUp.isEmpty()) {
            notes.add(String.format(Locale.ROOT, "not caught up within %s: at VLSN %,d of %,d", timeout,
                    watch.replicaVlsn, target));
        }

        Optional<DeliveryLedger.Check> verification = Optional.empty();
        if (verify && toCaughtUp.isPresent()) {
            verification = Optional.of(consumeFromReplica(cluster, bodySize, ledger));
            if (!verification.get().complete()) {
                notes.add(String.format(Locale.ROOT, "%,d confirmed messages missing on the replica",
                        verification.get().missing()));
            }
        }
        return new CatchUpResult(backlog, bodySize, killReplica ? "kill -9" : "SIGTERM", publish,
                target - replicaBefore, toListening, watch.since(watch.joined), toCaughtUp,
                watch.since(watch.lagZero), verification, String.join("; ", notes));
    }

    /** Waits until the master has no feeder left, i.e. it knows the replica is gone and commits alone. */
    private void awaitNoFeeders(CatchUpProbe master) throws Exception {
        long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
        int feeders;
        while ((feeders = master.ping("node-1").activeFeeders()) > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the master still feeds " + feeders + " replica(s) "
                        + SETTLE_LIMIT + " after the replica stopped");
            }
            progress.update("waiting for the master to notice the replica is gone");
            Thread.sleep(100);
        }
    }

    private void publish(HaCluster cluster, long backlog, int bodySize, DeliveryLedger ledger)
            throws InterruptedException {
        Clients direct = new Clients(cluster.node(0).uri(), cluster.user(), cluster.password(), bodySize, 0);
        // A shortfall is not fatal here: the catch-up is measured on what was confirmed (the ledger).
        AsyncPublisher.fillQueue(direct, QUEUE, PUBLISHERS, backlog, AsyncPublisher.inFlightFor(bodySize), ledger,
                "publishing to the master alone", progress).ifPresent(progress::println);
    }

    /** Stops the master, designates the replica and consumes the backlog from it. */
    private DeliveryLedger.Check consumeFromReplica(HaCluster cluster, int bodySize, DeliveryLedger ledger)
            throws Exception {
        progress.update("verifying: stopping node-1, designating " + REPLICA);
        cluster.node(0).stop(Duration.ofSeconds(60));
        cluster.designate(1);
        long attempts = Math.max(100, timeout.toMillis() / 20);
        Clients clients = new Clients(cluster.failoverUri() + "&failover.startupMaxReconnectAttempts=" + attempts,
                cluster.user(), cluster.password(), bodySize, 0);
        long expected = ledger.confirmedCount();
        long deadline = System.nanoTime() + timeout.toNanos();
        long received = 0;
        try (Connection connection = clients.connection("perf-catchup-verifier")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
            while (System.nanoTime() < deadline) {
                Message message = consumer.receive(1000);
                if (message == null) {
                    if (received >= expected) {
                        break; // nothing more: every message (and any duplicate) is in
                    }
                    continue;
                }
                ledger.arrived(message.getIntProperty(Clients.PRODUCER), message.getLongProperty(Clients.SEQUENCE));
                received++;
                progress.update(String.format(Locale.ROOT, "verifying: %,d of %,d consumed from %s", received,
                        expected, REPLICA));
            }
        }
        DeliveryLedger.Check check = ledger.check();
        progress.println(String.format(Locale.ROOT, "consumed from %s: %,d of %,d confirmed, %,d duplicates",
                REPLICA, check.received() - check.unconfirmedArrivals(), check.confirmed(), check.duplicates()));
        return check;
    }

    /**
     * Polls, through the master's JMX, the replica's last transaction (DbPing) and the master's ReplicationLag for
     * it, from the restart until the replica has the master's last transaction and the lag read 0 (or
     * {@link #LAG_ZERO_GRACE} after the catch-up, or the timeout).
     */
    private final class Watch implements Runnable {
        private final HaCluster cluster;
        private final long target;
        volatile long restarted;
        volatile long joined;
        volatile long caughtUp;
        volatile long lagZero;
        volatile long replicaVlsn = -1;
        volatile long lag = -1;
        volatile String failure;

        Watch(HaCluster cluster, long target) {
            this.cluster = cluster;
            this.target = target;
        }

        @Override
        public void run() {
            long deadline = restarted + timeout.toNanos();
            try (CatchUpProbe master = CatchUpProbe.open(cluster, 0)) {
                while (System.nanoTime() < deadline) {
                    try {
                        CatchUpProbe.Position replica = master.ping(REPLICA);
                        long now = System.nanoTime();
                        replicaVlsn = replica.txnEndVlsn();
                        if (joined == 0 && replica.isReplica()) {
                            joined = now;
                        }
                        if (caughtUp == 0 && replica.isReplica() && replica.txnEndVlsn() >= target) {
                            caughtUp = now;
                        }
                    } catch (Exception e) {
                        // not answering yet: the process is starting
                    }
                    OptionalLong reported = master.replicationLag(REPLICA);
                    long now = System.nanoTime();
                    lag = reported.orElse(-1);
                    if (lagZero == 0 && reported.isPresent() && reported.getAsLong() == 0) {
                        lagZero = now;
                    }
                    if (caughtUp != 0 && (lagZero != 0 || now - caughtUp > LAG_ZERO_GRACE.toNanos())) {
                        return;
                    }
                    Thread.sleep(50);
                }
            } catch (Exception e) {
                failure = "catch-up watch failed: " + e;
            }
        }

        Optional<Duration> since(long nanos) {
            return nanos == 0 ? Optional.empty() : Optional.of(Duration.ofNanos(nanos - restarted));
        }

        String describe() {
            return String.format(Locale.ROOT, "replica catching up: %.1f s, at VLSN %,d of %,d, master's lag %s",
                    (System.nanoTime() - restarted) / 1e9, replicaVlsn, target, lag < 0 ? "unknown" : lag);
        }
    }
}
