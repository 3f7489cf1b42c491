package org.tandembroker.systest.cluster;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Consumes one queue in a thread of its own and records every message in a {@link ZeroLossChecker}
 * (duplicates and redeliveries too), reading the producer id and sequence number {@link CountingProducer}
 * puts on each. A message is recorded when the application gets it, before it is acknowledged
 * ({@code AUTO_ACKNOWLEDGE} by default; with {@code CLIENT_ACKNOWLEDGE} each is acknowledged, with
 * {@code SESSION_TRANSACTED} each is committed, right after). Runs until {@link #stop()} or its connection
 * fails for good (a failover connection rides over broker failures), unless told to
 * {@link #carryOnAfterFailures() carry on}.
 */
public final class CountingConsumer implements AutoCloseable {
    private final String id;
    private final ConnectionFactory factory;
    private final String queue;
    private final ZeroLossChecker checker;
    private int acknowledgeMode = Session.AUTO_ACKNOWLEDGE;
    private volatile boolean stopping;
    private volatile Connection connection;
    private volatile Throwable failure;
    private volatile long received;
    private final ConnectionWatch watch = new ConnectionWatch();
    private boolean carryOn;
    private volatile int connectionFailures;
    private Thread thread;

    public CountingConsumer(String id, ConnectionFactory factory, String queue, ZeroLossChecker checker) {
        this.id = id;
        this.factory = factory;
        this.queue = queue;
        this.checker = checker;
    }

    /** {@link Session#AUTO_ACKNOWLEDGE} (default), {@code CLIENT_ACKNOWLEDGE} or {@code SESSION_TRANSACTED}. */
    public CountingConsumer acknowledgeMode(int mode) {
        this.acknowledgeMode = mode;
        return this;
    }

    public String id() {
        return id;
    }

    public CountingConsumer start() {
        if (thread != null) {
            throw new IllegalStateException(id + " started already");
        }
        thread = new Thread(this::run, "consumer-" + id);
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /**
     * Carry on with a new connection when the connection fails for good (a failover connection gave up
     * reconnecting), instead of stopping. Failures are counted ({@link #connectionFailures()}).
     */
    public CountingConsumer carryOnAfterFailures() {
        this.carryOn = true;
        return this;
    }

    /** Connections that ended in a failure. */
    public int connectionFailures() {
        return connectionFailures;
    }

    /** The connection's history: where it is connected, how often it was interrupted. */
    public ConnectionWatch connection() {
        return watch;
    }

    /** Messages this consumer got, duplicates included. */
    public long received() {
        return received;
    }

    /** Why consuming ended early, if it did (not set by {@link #stop()}). */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    public boolean isRunning() {
        return thread != null && thread.isAlive();
    }

    /** Stops consuming (closing the connection if a receive is stuck) and returns once the thread ended. */
    public void stop() {
        stopping = true;
        if (thread == null) {
            return;
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
            if (thread.isAlive()) {
                Connection c = connection;
                if (c != null) {
                    try {
                        c.close();
                    } catch (JMSException | RuntimeException e) {
                        // closing to unblock a receive
                    }
                }
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new AssertionError(id + " did not stop within 40 s");
        }
    }

    @Override
    public void close() {
        stop();
    }

    private void run() {
        while (!stopping) {
            try {
                consume();
            } catch (JMSException | RuntimeException e) {
                if (stopping) {
                    return;
                }
                connectionFailures++;
                if (!carryOn) {
                    failure = e;
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250)); // do not spin on a refusing cluster
            }
        }
    }

    private void consume() throws JMSException {
        boolean transacted = acknowledgeMode == Session.SESSION_TRANSACTED;
        try (Connection c = factory.createConnection()) {
            connection = c;
            watch.attach(c);
            c.start();
            Session session = c.createSession(transacted, acknowledgeMode);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            while (!stopping) {
                Message message = consumer.receive(200); // a bounded wait so that stop() is seen
                if (message == null) {
                    continue;
                }
                record(message);
                if (transacted) {
                    session.commit();
                } else if (acknowledgeMode == Session.CLIENT_ACKNOWLEDGE) {
                    message.acknowledge();
                }
            }
        }
    }

    private void record(Message message) throws JMSException {
        received++;
        String producer = message.getStringProperty(CountingProducer.PRODUCER_PROPERTY);
        if (producer == null || !message.propertyExists(CountingProducer.SEQUENCE_PROPERTY)) {
            checker.receivedUnidentified(id, String.valueOf(message.getJMSMessageID()));
            return;
        }
        long sequence = message.getLongProperty(CountingProducer.SEQUENCE_PROPERTY);
        boolean redelivered = message.getJMSRedelivered()
                || (message.propertyExists("JMSXDeliveryCount") && message.getIntProperty("JMSXDeliveryCount") > 1);
        checker.received(id, producer, sequence, redelivered);
    }
}
