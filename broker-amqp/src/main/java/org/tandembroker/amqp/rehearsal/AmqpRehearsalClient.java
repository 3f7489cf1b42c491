package org.tandembroker.amqp.rehearsal;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.frontend.RehearsalClient;

/**
 * The AMQP 1.0 front end's client for the start-up warm-up, shaped like the load the broker will meet: {@code pairs}
 * publisher connections and as many consumer connections on one shared queue ({@link #QUEUE}), so that consumers
 * compete for its messages. Publishers send persistent 1 KiB messages as Qpid JMS sends a {@code BytesMessage}
 * (header, message annotations, properties, application properties, a data section), every other one with one
 * message unsettled at a time (a synchronous send), the others with a few; each is settled once the broker accepted
 * it (its commit completed). Consumers accept every message. Each connection runs on its own thread and blocking
 * socket ({@link RehearsalConnection}).
 *
 * <p>Stopping: when {@code keepGoing} turns false each publisher waits for its unsettled messages' outcomes and
 * closes; the consumers take every message the publishers had accepted, then close. A connection that makes no
 * progress for {@link RehearsalConnection#STALL} fails the rehearsal.
 */
public final class AmqpRehearsalClient implements RehearsalClient {
    /** The queue every pair shares (auto-created). */
    static final String QUEUE = "warm-up";
    /** How long closing may take after the last publisher finished, beyond which the rehearsal fails. */
    private static final long FINISH_SECONDS = 60;

    @Override
    public long rehearse(InetSocketAddress address, String virtualHost, int pairs, BooleanSupplier keepGoing)
            throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2 * pairs,
                new NamedThreadFactory("warm-up-client", true));
        List<Future<Long>> consumed = new ArrayList<>();
        List<Future<Long>> published = new ArrayList<>();
        Tally tally = new Tally(pairs);
        try {
            for (int i = 0; i < pairs; i++) {
                String name = QUEUE + "-" + i;
                int unsettled = i % 2 == 0 ? 1 : RehearsalConnection.IN_FLIGHT;
                consumed.add(threads.submit(() -> new RehearsalConnection(address, virtualHost, name + "-consumer")
                        .consume(QUEUE, tally)));
                published.add(threads.submit(() -> new RehearsalConnection(address, virtualHost, name + "-publisher")
                        .publish(QUEUE, unsettled, keepGoing, tally)));
            }
            for (Future<Long> f : published) {
                waitFor(f, Long.MAX_VALUE);
            }
            long total = 0;
            for (Future<Long> f : consumed) {
                total += waitFor(f, FINISH_SECONDS);
            }
            return total;
        } finally {
            threads.shutdownNow();
        }
    }

    private static long waitFor(Future<Long> future, long seconds) throws Exception {
        try {
            return seconds == Long.MAX_VALUE ? future.get() : future.get(seconds, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            throw new IllegalStateException("a warm-up consumer did not finish within " + seconds + " s", e);
        }
    }

    /** What the publishers have had accepted and the consumers received: the consumers' finish line. */
    static final class Tally {
        private final int publishers;
        private long accepted;
        private long received;
        private int finished;
        private Exception failure;

        Tally(int publishers) {
            this.publishers = publishers;
        }

        synchronized void accepted() {
            accepted++;
        }

        synchronized void received() {
            received++;
        }

        synchronized void publisherFinished(Exception failureOrNull) {
            finished++;
            if (failure == null) {
                failure = failureOrNull;
            }
        }

        /** Whether the consumers are done: every publisher finished and took. Throws if a publisher failed. */
        synchronized boolean consumersDone() throws Exception {
            if (failure != null) {
                throw new IllegalStateException("a publisher failed", failure);
            }
            return finished == publishers && received >= accepted;
        }
    }
}
