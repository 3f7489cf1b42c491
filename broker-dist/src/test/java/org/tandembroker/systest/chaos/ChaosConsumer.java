package org.tandembroker.systest.chaos;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.tandembroker.systest.cluster.CountingProducer;

/**
 * One consumer of the soak, on one queue, in a thread of its own on its own failover connection, acknowledging
 * automatically, by the client (each message) or in a transaction (each message committed). Every message is
 * recorded in the {@link ChaosLedger} when the application gets it, before it is acknowledged, so a redelivery
 * shows as a duplicate. A failed connection is replaced by a new one.
 *
 * <p>Threads: its own thread owns the connection; {@link #stop()} from any thread.
 */
final class ChaosConsumer {
    private final String id;
    private final ConnectionFactory factory;
    private final String queue;
    private final int acknowledgeMode;
    private final ChaosLedger ledger;
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean stopping;
    private volatile Connection connection;
    private Thread thread;

    ChaosConsumer(String id, ConnectionFactory factory, String queue, int acknowledgeMode, ChaosLedger ledger) {
        this.id = id;
        this.factory = factory;
        this.queue = queue;
        this.acknowledgeMode = acknowledgeMode;
        this.ledger = ledger;
    }

    String describe() {
        String mode = switch (acknowledgeMode) {
            case Session.CLIENT_ACKNOWLEDGE -> "client-ack";
            case Session.SESSION_TRANSACTED -> "transacted";
            default -> "auto-ack";
        };
        return id + " (" + mode + ") <- " + queue;
    }

    long received() {
        return received.get();
    }

    long failures() {
        return failures.get();
    }

    ChaosConsumer start() {
        thread = new Thread(this::run, "chaos-consumer-" + id);
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    void stop() {
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
    }

    private void run() {
        boolean transacted = acknowledgeMode == Session.SESSION_TRANSACTED;
        while (!stopping) {
            try (Connection c = factory.createConnection()) {
                connection = c;
                c.start();
                Session session = c.createSession(transacted, acknowledgeMode);
                MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
                while (!stopping) {
                    Message message = consumer.receive(200);
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
            } catch (JMSException | RuntimeException e) {
                failures.incrementAndGet();
                if (!stopping) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
                }
            }
        }
    }

    private void record(Message message) throws JMSException {
        received.incrementAndGet();
        String producer = message.getStringProperty(CountingProducer.PRODUCER_PROPERTY);
        if (producer == null || !message.propertyExists(CountingProducer.SEQUENCE_PROPERTY)) {
            ledger.queue(queue).receivedUnidentified(id, String.valueOf(message.getJMSMessageID()));
            return;
        }
        long sequence = message.getLongProperty(CountingProducer.SEQUENCE_PROPERTY);
        boolean redelivered = message.getJMSRedelivered()
                || (message.propertyExists("JMSXDeliveryCount") && message.getIntProperty("JMSXDeliveryCount") > 1);
        ledger.received(id, queue, producer, sequence, redelivered);
    }
}
