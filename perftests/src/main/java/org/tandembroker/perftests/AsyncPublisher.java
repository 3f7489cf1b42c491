package org.tandembroker.perftests;

import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A producer on its own connection that sends {@code count} persistent messages asynchronously (JMS 2
 * {@link CompletionListener}), with at most {@code inFlight} sends awaiting the broker's settlement at any time.
 * A message counts as confirmed when its completion arrives; a failed send is counted and not retried.
 *
 * <p>Threads: {@link #run} runs on the publisher's own thread, which owns the session; completions arrive on the
 * connection's thread and touch only the semaphore, the ledger and the adders.
 */
public final class AsyncPublisher implements Runnable {
    private final Clients clients;
    private final String queueName;
    private final int id;
    private final long count;
    private final int inFlight;
    private final DeliveryLedger ledger;
    private final LongAdder confirmed;
    private final LongAdder failed;
    private final Queue<String> errors;
    private final Semaphore window;

    public AsyncPublisher(Clients clients, String queueName, int id, long count, int inFlight, DeliveryLedger ledger,
                          LongAdder confirmed, LongAdder failed, Queue<String> errors) {
        this.clients = clients;
        this.queueName = queueName;
        this.id = id;
        this.count = count;
        this.inFlight = inFlight;
        this.ledger = ledger;
        this.confirmed = confirmed;
        this.failed = failed;
        this.errors = errors;
        this.window = new Semaphore(inFlight);
    }

    /**
     * Sends in flight per publisher for bodies of {@code bodySize} bytes when a benchmark queues a backlog as fast as
     * it can: up to 500, and at most 64 MiB of bodies.
     */
    static int inFlightFor(int bodySize) {
        return (int) Math.max(8, Math.min(500, (64L << 20) / bodySize));
    }

    /**
     * Queues {@code depth} messages on {@code queueName} with {@code producers} publishers, each on its own thread
     * and connection with at most {@code inFlight} unconfirmed sends, and waits for them, showing progress as
     * {@code doing} ("queueing: 12 of 100 confirmed"). Returns empty when every send was confirmed (in
     * {@code ledger} too), else what went wrong.
     */
    static Optional<String> fillQueue(Clients clients, String queueName, int producers, long depth, int inFlight,
                                      DeliveryLedger ledger, String doing, Progress progress)
            throws InterruptedException {
        LongAdder confirmed = new LongAdder();
        LongAdder failed = new LongAdder();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < producers; i++) {
            long count = depth / producers + (i < depth % producers ? 1 : 0);
            Thread t = new Thread(new AsyncPublisher(clients, queueName, i, count, inFlight, ledger, confirmed, failed,
                    errors), "perf-publisher-" + i);
            t.start();
            threads.add(t);
        }
        long started = System.nanoTime();
        for (Thread t : threads) {
            while (t.isAlive()) {
                double seconds = (System.nanoTime() - started) / 1e9;
                progress.update(String.format(Locale.ROOT, "%s: %,d of %,d confirmed (%,.0f msg/s)", doing,
                        confirmed.sum(), depth, confirmed.sum() / Math.max(seconds, 1e-3)));
                t.join(500);
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        progress.println(String.format(Locale.ROOT, "queued %,d confirmed, %,d failed in %.1f s (%,.0f msg/s)%s",
                confirmed.sum(), failed.sum(), seconds, confirmed.sum() / Math.max(seconds, 1e-3),
                errors.isEmpty() ? "" : "; errors " + errors));
        if (confirmed.sum() != depth || ledger.confirmedCount() != depth) {
            return Optional.of(String.format(Locale.ROOT, "only %,d of %,d sends confirmed (%,d failed)%s",
                    confirmed.sum(), depth, failed.sum(), errors.isEmpty() ? "" : ": " + errors.peek()));
        }
        return Optional.empty();
    }

    @Override
    public void run() {
        long sequence = 0;
        try (Connection connection = clients.connection("perf-publisher-" + id)) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queueName));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            CompletionListener completions = new Completions();
            for (; sequence < count; sequence++) {
                window.acquire();
                producer.send(clients.message(session, id, sequence), completions);
            }
            if (!window.tryAcquire(inFlight, 10, TimeUnit.MINUTES)) {
                errors.add("publisher " + id + ": sends still unsettled 10 min after the last one");
            }
        } catch (JMSException | RuntimeException e) {
            errors.add("publisher " + id + " at message " + sequence + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            errors.add("publisher " + id + " interrupted at message " + sequence);
        }
    }

    /** Completions of this publisher's sends, on the connection's thread. */
    private final class Completions implements CompletionListener {
        @Override
        public void onCompletion(Message message) {
            try {
                ledger.confirmed(id, message.getLongProperty(Clients.SEQUENCE));
                confirmed.increment();
            } catch (JMSException e) {
                errors.add("publisher " + id + ": unreadable completed message: " + e);
            } finally {
                window.release();
            }
        }

        @Override
        public void onException(Message message, Exception exception) {
            failed.increment();
            if (errors.size() < 20) {
                errors.add("publisher " + id + ": send failed: " + exception);
            }
            window.release();
        }
    }
}
