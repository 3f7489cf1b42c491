package org.tandembroker.perftests;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.spi.core.remoting.Acceptor;

/**
 * The peer broker's process: an embedded Apache ActiveMQ Artemis server started from a {@code broker.xml} that
 * {@link PeerCluster} generated, run in its own JVM the way {@link BrokerProcess} runs Tandem. It prints the lines
 * the harness waits for and reads:
 * <ul>
 * <li>{@code peer: Apache ActiveMQ Artemis VERSION, role ROLE, journal TYPE} once started: the journal type the
 * server actually uses (Artemis falls back from ASYNCIO to NIO when libaio cannot be loaded);</li>
 * <li>{@code listening on amqp://127.0.0.1:PORT} once the server is active and its AMQP acceptor is started (the
 * standalone server and the primary; a backup too if it ever becomes active);</li>
 * <li>{@code peer backup synchronised with the primary; serves amqp://127.0.0.1:PORT after a failover} once a backup
 * has announced itself to the primary and finished the initial replication.</li>
 * </ul>
 * SIGTERM stops the server (a shutdown hook) and the JVM exits with 143.
 *
 * <p>Usage: {@code ArtemisPeer BROKER_XML ROLE AMQP_PORT} with ROLE one of standalone, primary, backup.
 *
 * <p>Threads: the main thread starts the server and watches it (bounded polls); Artemis has its own threads; the
 * shutdown hook stops the server.
 */
public final class ArtemisPeer {
    /** How long the watch waits for activation, the acceptor, or the backup's initial synchronisation. */
    private static final Duration PATIENCE = Duration.ofMinutes(3);

    private ArtemisPeer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !java.util.List.of("standalone", "primary", "backup").contains(args[1])) {
            System.err.println("usage: ArtemisPeer BROKER_XML standalone|primary|backup AMQP_PORT");
            System.exit(2);
        }
        Path config = Path.of(args[0]).toAbsolutePath();
        String role = args[1];
        int port = Integer.parseInt(args[2]);
        EmbeddedActiveMQ embedded = new EmbeddedActiveMQ().setConfigResourcePath(config.toUri().toString());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                embedded.stop();
            } catch (Exception e) {
                System.out.println("peer: stop failed: " + e);
            } finally {
                stopped.countDown();
            }
        }, "peer-shutdown"));
        embedded.start();
        ActiveMQServer server = embedded.getActiveMQServer();
        System.out.println(String.format(Locale.ROOT, "peer: Apache ActiveMQ Artemis %s, role %s, journal %s",
                server.getVersion().getFullVersion(), role, server.getConfiguration().getJournalType()));
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        if (role.equals("backup")) {
            while (!server.isReplicaSync() && !server.isActive()) {
                awaitStep(deadline, "the backup's initial replication");
            }
            System.out.println("peer backup synchronised with the primary; serves amqp://127.0.0.1:" + port
                    + " after a failover");
        }
        while (!server.isActive() || !acceptorStarted(server)) {
            if (role.equals("backup") && !server.isActive()) {
                // a synchronised backup stays passive until a failover: wait for it without a deadline
                if (stopped.await(1, TimeUnit.SECONDS)) {
                    return;
                }
                continue;
            }
            awaitStep(deadline, "activation and the AMQP acceptor");
        }
        System.out.println("listening on amqp://127.0.0.1:" + port);
        stopped.await();
    }

    private static boolean acceptorStarted(ActiveMQServer server) {
        Acceptor acceptor = server.getRemotingService().getAcceptor("amqp");
        return acceptor != null && acceptor.isStarted();
    }

    private static void awaitStep(long deadline, String what) throws InterruptedException {
        if (System.nanoTime() > deadline) {
            System.out.println("peer: gave up waiting for " + what + " after " + PATIENCE.toSeconds() + " s");
            System.exit(1);
        }
        Thread.sleep(50);
    }
}
