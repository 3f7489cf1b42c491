package org.tandembroker.tools;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Producers that keep sending persistent messages to {@link InJvmBroker#QUEUE}, each with a unique {@code id}
 * property, and record every id whose send was settled (Qpid JMS returns from a persistent send only when the
 * broker accepted it, i.e. when it is durable). Each producer runs on a thread of its own until {@link #stop()}.
 */
final class SettlingProducers implements AutoCloseable {
    static final String ID = "id";

    private final Set<String> settled = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    private SettlingProducers() {
    }

    static SettlingProducers start(ConnectionFactory factory, int producers) {
        SettlingProducers result = new SettlingProducers();
        for (int p = 0; p < producers; p++) {
            String prefix = "p" + p + "-";
            Thread thread = new Thread(() -> result.produce(factory, prefix), "producer-" + p);
            thread.setDaemon(true);
            result.threads.add(thread);
            thread.start();
        }
        return result;
    }

    private void produce(ConnectionFactory factory, String prefix) {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(InJvmBroker.QUEUE));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (long sequence = 0; running.get(); sequence++) {
                String id = prefix + sequence;
                Message message = session.createTextMessage("order " + id);
                message.setStringProperty(ID, id);
                producer.send(message);
                settled.add(id);
            }
        } catch (JMSException | RuntimeException e) {
            if (running.get()) {
                failure.compareAndSet(null, e);
            }
        }
    }

    int settledCount() {
        return settled.size();
    }

    /** The ids settled so far. */
    Set<String> settledSoFar() {
        return Set.copyOf(settled);
    }

    /** Stops every producer after its current send; fails if one failed while running. */
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread thread : threads) {
            thread.join(Duration.ofSeconds(30).toMillis());
        }
        if (failure.get() != null) {
            throw new AssertionError("a producer failed while running", failure.get());
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (running.get()) {
            stop();
        }
    }

    /**
     * Receives from {@link InJvmBroker#QUEUE} until every id of {@code expected} arrived or {@code deadline}
     * passed; returns the ids received.
     */
    static Set<String> receiveAll(ConnectionFactory factory, Set<String> expected, Duration deadline)
            throws JMSException {
        Set<String> received = new HashSet<>();
        long end = System.nanoTime() + deadline.toNanos();
        try (Connection connection = factory.createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(InJvmBroker.QUEUE));
            while (!received.containsAll(expected) && System.nanoTime() < end) {
                Message message = consumer.receive(1000);
                if (message != null) {
                    received.add(message.getStringProperty(ID));
                }
            }
        }
        return received;
    }
}
