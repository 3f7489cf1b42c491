package org.tandembroker.systest.cluster;

import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Sends persistent text messages to one queue, each carrying its producer id ({@value #PRODUCER_PROPERTY}) and
 * sequence number ({@value #SEQUENCE_PROPERTY}), and records every send in a {@link ZeroLossChecker}: settled
 * when {@code send} returned normally, in doubt when it threw.
 *
 * <p>Two ways to run: {@link #sendNow(int)} in the caller's thread, or {@link #start()} in a thread of its own
 * until {@link #stop()}, a {@link #limit(long) limit}, or the first failed send (a failover connection only
 * fails a send once it gives up reconnecting; a plain one fails when its broker goes away). Either way a
 * producer uses its own connection. A new producer with the same id continues the numbering.
 */
public final class CountingProducer implements AutoCloseable {
    public static final String PRODUCER_PROPERTY = "tandemProducer";
    public static final String SEQUENCE_PROPERTY = "tandemSequence";

    private final String id;
    private final ConnectionFactory factory;
    private final String queue;
    private final ZeroLossChecker checker;
    private int payloadBytes;
    private long limit = -1;
    private long intervalNanos;
    private volatile boolean stopping;
    private volatile Connection connection;
    private volatile Throwable failure;
    private volatile long attempts;
    private final ConnectionWatch watch = new ConnectionWatch();
    private boolean carryOn;
    private volatile int connectionFailures;
    private volatile Throwable lastFailure;
    private Thread thread;

    public CountingProducer(String id, ConnectionFactory factory, String queue, ZeroLossChecker checker) {
        this.id = id;
        this.factory = factory;
        this.queue = queue;
        this.checker = checker;
    }

    /** Pads each message body to at least {@code bytes} characters (default: just the id and number). */
    public CountingProducer payloadBytes(int bytes) {
        this.payloadBytes = bytes;
        return this;
    }

    /** In the background, stop after this many sends (default: no limit). */
    public CountingProducer limit(long messages) {
        this.limit = messages;
        return this;
    }

    /**
     * In the background, wait {@code interval} between the end of one send and the start of the next (default:
     * none). Paces the load, so that a scenario running for a minute moves hundreds of messages, not tens of
     * thousands; it synchronises nothing.
     */
    public CountingProducer interval(Duration interval) {
        this.intervalNanos = interval.toNanos();
        return this;
    }

    public String id() {
        return id;
    }

    /** The background connection's history: where it is connected, how often it was interrupted. */
    public ConnectionWatch connection() {
        return watch;
    }

    /**
     * Sends {@code count} messages now, in this thread, on a connection of their own.
     *
     * @throws JMSException the first failed send (recorded as in doubt; nothing is sent after it)
     */
    public void sendNow(int count) throws JMSException {
        try (Connection c = factory.createConnection()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = producer(session);
            for (int i = 0; i < count; i++) {
                sendOne(session, producer);
            }
        }
    }

    /** Sends in a background thread until stopped, the limit, or the first failure. */
    public CountingProducer start() {
        if (thread != null) {
            throw new IllegalStateException(id + " started already");
        }
        thread = new Thread(this::run, "producer-" + id);
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /**
     * In the background, carry on after a failed send (or a connection that could not be opened) with a new
     * connection, as an application that retries would, instead of stopping at the first failure. The failed
     * message stays in doubt; the next one gets the next number. Failures are counted
     * ({@link #connectionFailures()}, and the ledger's failed sends).
     */
    public CountingProducer carryOnAfterFailures() {
        this.carryOn = true;
        return this;
    }

    /** Connections of the background sending that ended in a failure (a failed send or a failed open). */
    public int connectionFailures() {
        return connectionFailures;
    }

    /** The last failure of the background sending, even one it carried on after. */
    public Optional<Throwable> lastFailure() {
        return Optional.ofNullable(lastFailure);
    }

    /** Messages of this producer the broker confirmed so far (all runs with this id). */
    public long settled() {
        return checker.settledCount(id);
    }

    /**
     * Waits until at least {@code count} messages of this producer are settled.
     *
     * @throws AssertionError at the deadline, or at once if the producer stopped short of it (with the cause)
     */
    public CountingProducer awaitSettled(long count, Duration timeout) {
        try {
            await(id + " settled " + count).atMost(timeout).pollInterval(Duration.ofMillis(50)).until(() -> {
                if (settled() >= count) {
                    return true;
                }
                if (thread != null && !thread.isAlive()) {
                    throw new AssertionError(id + " stopped after " + settled() + " settled sends, before " + count,
                            failure);
                }
                return false;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(id + " had " + settled() + " sends settled, not " + count + ", after " + timeout,
                    e);
        }
        return this;
    }

    /** Why the background sending ended early, if it did (not set by {@link #stop()}). */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    public boolean isRunning() {
        return thread != null && thread.isAlive();
    }

    /** Sends attempted by this instance. */
    public long attempts() {
        return attempts;
    }

    /**
     * Stops the background sending: the send under way finishes (or, if it is still blocked after 30 s, the
     * connection is closed under it and that message stays in doubt). Returns once the thread ended.
     */
    public void stop() {
        stopping = true;
        if (thread == null) {
            return;
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
            if (thread.isAlive()) {
                closeQuietly(connection);
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new AssertionError(id + " did not stop within 60 s");
        }
    }

    @Override
    public void close() {
        stop();
    }

    private void run() {
        while (!stopping && !limitReached()) {
            try (Connection c = factory.createConnection()) {
                connection = c;
                watch.attach(c);
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = producer(session);
                while (!stopping && !limitReached()) {
                    sendOne(session, producer);
                    if (intervalNanos > 0 && !stopping) {
                        LockSupport.parkNanos(intervalNanos);
                    }
                }
            } catch (JMSException | RuntimeException e) {
                if (stopping) {
                    return;
                }
                connectionFailures++;
                lastFailure = e;
                if (!carryOn) {
                    failure = e;
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250)); // do not spin on a refusing cluster
            }
        }
    }

    private boolean limitReached() {
        return limit >= 0 && attempts >= limit;
    }

    private MessageProducer producer(Session session) throws JMSException {
        MessageProducer producer = session.createProducer(session.createQueue(queue));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        return producer;
    }

    private void sendOne(Session session, MessageProducer producer) throws JMSException {
        long sequence = checker.attempting(id);
        attempts++;
        try {
            TextMessage message = session.createTextMessage(body(sequence));
            message.setStringProperty(PRODUCER_PROPERTY, id);
            message.setLongProperty(SEQUENCE_PROPERTY, sequence);
            producer.send(message);
        } catch (JMSException | RuntimeException e) {
            checker.failed(id, sequence);
            throw e;
        }
        checker.settled(id, sequence);
    }

    private String body(long sequence) {
        String text = id + "#" + sequence;
        if (text.length() >= payloadBytes) {
            return text;
        }
        return text + " " + "x".repeat(payloadBytes - text.length() - 1);
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (JMSException | RuntimeException e) {
                // closing to unblock a send; its failure is recorded by the sending thread
            }
        }
    }
}
