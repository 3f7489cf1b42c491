package org.tandembroker.systest.chaos;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.tandembroker.systest.cluster.CountingProducer;

/**
 * One producer of the soak, in a thread of its own, on its own failover connection: plain (each send confirmed
 * on its own) or transactional ({@code batch} messages per commit). Each message carries the producer id and
 * its sequence number ({@link CountingProducer#PRODUCER_PROPERTY}, {@link CountingProducer#SEQUENCE_PROPERTY}).
 * A send (or commit) that throws leaves its messages in doubt and the producer carries on with a new connection,
 * as an application that retries would; the next message gets the next number.
 *
 * <p>Threads: its own thread owns the connection; {@link #stop()} from any thread.
 */
final class ChaosProducer {
    private final String id;
    private final ConnectionFactory factory;
    private final String address;
    private final boolean topic;
    private final List<String> targets;
    private final int batch;
    private final long intervalNanos;
    private final ChaosLedger ledger;
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean stopping;
    private volatile Connection connection;
    private Thread thread;

    /**
     * @param address a queue name, or {@code exchange/key} when {@code topic}
     * @param targets the queues the message must reach (the queue, or the queues bound to the key)
     * @param batch   0 for plain sends, else messages per transaction
     */
    ChaosProducer(String id, ConnectionFactory factory, String address, boolean topic, List<String> targets,
                  int batch, long intervalMillis, ChaosLedger ledger) {
        this.id = id;
        this.factory = factory;
        this.address = address;
        this.topic = topic;
        this.targets = List.copyOf(targets);
        this.batch = batch;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.ledger = ledger;
    }

    String id() {
        return id;
    }

    String describe() {
        return id + (batch > 0 ? " (transactions of " + batch + ")" : " (plain)") + " -> " + address
                + (topic ? " " + targets : "");
    }

    long failures() {
        return failures.get();
    }

    ChaosProducer start() {
        thread = new Thread(this::run, "chaos-producer-" + id);
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
            thread.join(TimeUnit.SECONDS.toMillis(30));
            if (thread.isAlive()) {
                Connection c = connection;
                if (c != null) {
                    try {
                        c.close();
                    } catch (JMSException | RuntimeException e) {
                        // closing to unblock a send: its messages stay in doubt
                    }
                }
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (!stopping) {
            List<Long> open = new ArrayList<>();
            try (Connection c = factory.createConnection()) {
                connection = c;
                Session session = c.createSession(batch > 0, batch > 0 ? Session.SESSION_TRANSACTED
                        : Session.AUTO_ACKNOWLEDGE);
                Destination destination = topic ? session.createTopic(address) : session.createQueue(address);
                MessageProducer producer = session.createProducer(destination);
                producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                while (!stopping) {
                    if (batch == 0) {
                        long sequence = ledger.attempting(id, targets);
                        open.add(sequence);
                        producer.send(message(session, sequence));
                        ledger.settled(id, sequence, targets);
                        open.clear();
                    } else {
                        for (int i = 0; i < batch; i++) {
                            long sequence = ledger.attempting(id, targets);
                            open.add(sequence);
                            producer.send(message(session, sequence));
                        }
                        session.commit();
                        open.forEach(s -> ledger.settled(id, s, targets));
                        ledger.transaction(new ChaosLedger.Transaction(id, open.get(0), open.get(open.size() - 1),
                                targets, true, ledger.elapsedMillis(), connectedTo(c)));
                        open.clear();
                    }
                    LockSupport.parkNanos(intervalNanos);
                }
            } catch (JMSException | RuntimeException e) {
                failures.incrementAndGet();
                open.forEach(s -> ledger.failed(id, s, targets));
                if (batch > 0 && !open.isEmpty()) {
                    ledger.transaction(new ChaosLedger.Transaction(id, open.get(0), open.get(open.size() - 1),
                            targets, false, ledger.elapsedMillis(), connectedTo(connection)));
                }
                if (!stopping) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250));
                }
            }
        }
    }

    /** The broker {@code connection} is connected to now (Qpid JMS's failover connection knows), or "-". */
    private static String connectedTo(Connection connection) {
        if (connection instanceof org.apache.qpid.jms.JmsConnection jms && jms.getConnectedURI() != null) {
            return jms.getConnectedURI().toString();
        }
        return "-";
    }

    private TextMessage message(Session session, long sequence) throws JMSException {
        TextMessage message = session.createTextMessage(id + "#" + sequence);
        message.setStringProperty(CountingProducer.PRODUCER_PROPERTY, id);
        message.setLongProperty(CountingProducer.SEQUENCE_PROPERTY, sequence);
        return message;
    }
}
