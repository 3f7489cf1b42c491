package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * N producers and N consumers on one queue, each on its own connection, that run until stopped: the load of
 * {@link PairedLoad} (persistent messages sent synchronously, AUTO_ACKNOWLEDGE consumers with the default
 * prefetch) without its phases, so that throughput can be followed against time across a broker's start or a
 * failover ({@link WarmStartCurve}).
 *
 * <p>A curve counts consumed messages once the broker being watched served: {@link #watch} names the curve and
 * the moment (its origin) after which the first confirmed send proves that this broker serves (after a kill -9
 * only the survivor can confirm). Until then, messages consumed from a client's prefetch buffer do not count.
 *
 * <p>Threads: one thread per producer ({@code warm-producer-<i>}) and consumer ({@code warm-consumer-<i>}),
 * each owning its connection; they share the adders, the ledger, the error queue and the watched curve
 * (volatile), all thread-safe. The caller's thread starts, watches and stops.
 */
public final class SteadyLoad {
    private final Clients clients;
    private final String queueName;
    private final int pairs;
    private final DeliveryLedger ledger;
    private final LongAdder consumed = new LongAdder();
    private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    private final CountDownLatch attached;
    private final List<Thread> producers = new ArrayList<>();
    private final List<Thread> consumers = new ArrayList<>();
    private final AtomicLong firstConfirmAfterOrigin = new AtomicLong();
    private volatile WarmStartCurve curve;
    private volatile long origin = Long.MAX_VALUE;
    private volatile boolean producing = true;
    private volatile boolean consuming = true;

    public SteadyLoad(Clients clients, String queueName, int pairs) {
        this.clients = clients;
        this.queueName = queueName;
        this.pairs = pairs;
        this.ledger = new DeliveryLedger(pairs);
        this.attached = new CountDownLatch(2 * pairs);
    }

    /** Starts the consumers, then the producers; returns whether all attached within {@code seconds}. */
    public boolean start(int seconds) throws InterruptedException {
        for (int i = 0; i < pairs; i++) {
            int id = i;
            consumers.add(thread("warm-consumer-" + i, () -> consume(id)));
        }
        for (int i = 0; i < pairs; i++) {
            int id = i;
            producers.add(thread("warm-producer-" + i, () -> produce(id)));
        }
        return attached.await(seconds, TimeUnit.SECONDS);
    }

    /**
     * From now on, consumed messages count into {@code watched} once a send was confirmed after
     * {@code originNanos} ({@link System#nanoTime}).
     */
    public void watch(WarmStartCurve watched, long originNanos) {
        origin = originNanos;
        curve = watched;
    }

    /** When the first send after the watched origin was confirmed ({@link System#nanoTime}), 0 until then. */
    public long firstConfirmAfterOrigin() {
        long first = firstConfirmAfterOrigin.get();
        return first > origin ? first : 0;
    }

    /** Messages consumed so far (all, watched or not). */
    public long consumed() {
        return consumed.sum();
    }

    public DeliveryLedger ledger() {
        return ledger;
    }

    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** Stops the producers and waits for them (at most {@code seconds} each). */
    public void stopProducing(int seconds) throws InterruptedException {
        producing = false;
        for (Thread producer : producers) {
            producer.join(TimeUnit.SECONDS.toMillis(seconds));
        }
    }

    /** Whether a consumer still runs (for a drain's patience). */
    public boolean consuming() {
        return consumers.stream().anyMatch(Thread::isAlive);
    }

    /** Stops the consumers and waits for them (at most {@code seconds} each). */
    public void stopConsuming(int seconds) throws InterruptedException {
        consuming = false;
        for (Thread consumer : consumers) {
            consumer.join(TimeUnit.SECONDS.toMillis(seconds));
        }
    }

    private static Thread thread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void produce(int id) {
        long sequence = 0;
        try (Connection connection = clients.syncSendConnection("warm-producer-" + id)) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queueName));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            attached.countDown();
            while (producing) {
                producer.send(clients.message(session, id, sequence));
                long now = System.nanoTime();
                ledger.confirmed(id, sequence);
                sequence++;
                long since = origin;
                if (now > since && firstConfirmAfterOrigin.get() <= since) {
                    // A confirmation older than the origin (set before a later watch) is replaced.
                    firstConfirmAfterOrigin.updateAndGet(first -> first > since ? first : now);
                }
            }
        } catch (JMSException | RuntimeException e) {
            if (producing) {
                errors.add("producer " + id + " after " + sequence + " confirmed sends: " + e);
            }
        }
    }

    private void consume(int id) {
        try (Connection connection = clients.connection("warm-consumer-" + id)) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
            attached.countDown();
            while (consuming) {
                Message message = consumer.receive(100);
                if (message == null) {
                    continue;
                }
                ledger.arrived(message.getIntProperty(Clients.PRODUCER), message.getLongProperty(Clients.SEQUENCE));
                consumed.increment();
                WarmStartCurve watched = curve;
                if (watched != null && firstConfirmAfterOrigin() != 0) {
                    watched.record(System.nanoTime());
                }
            }
        } catch (JMSException | RuntimeException e) {
            if (consuming) {
                errors.add("consumer " + id + ": " + e);
            }
        }
    }
}
