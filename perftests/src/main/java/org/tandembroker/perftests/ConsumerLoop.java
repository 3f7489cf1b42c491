package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Recorder;

/**
 * A consumer on its own connection, AUTO_ACKNOWLEDGE: receives benchmark messages until told to stop, entering
 * each in the ledger, the counter and (when given) the end-to-end latency recorder. Runs on its own thread,
 * which owns the connection; an error ends the loop and is added to {@code errors}.
 */
public final class ConsumerLoop implements Runnable {
    /** The latency recorder's ceiling; longer latencies are recorded as this. */
    public static final long MAX_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final Clients clients;
    private final String queueName;
    private final int id;
    private final DeliveryLedger ledger;
    private final LongAdder consumed;
    private final Recorder latency;
    private final BooleanSupplier keepGoing;
    private final Queue<String> errors;
    private final Runnable attached;

    /** @param attached run once the consumer is attached to the queue */
    public ConsumerLoop(Clients clients, String queueName, int id, DeliveryLedger ledger, LongAdder consumed,
                        Recorder latency, BooleanSupplier keepGoing, Queue<String> errors, Runnable attached) {
        this.clients = clients;
        this.queueName = queueName;
        this.id = id;
        this.ledger = ledger;
        this.consumed = consumed;
        this.latency = latency;
        this.keepGoing = keepGoing;
        this.errors = errors;
        this.attached = attached;
    }

    /** A new latency recorder with 3 significant digits up to {@link #MAX_LATENCY_MICROS}. */
    public static Recorder latencyRecorder() {
        return new Recorder(MAX_LATENCY_MICROS, 3);
    }

    @Override
    public void run() {
        try (Connection connection = clients.connection("perf-consumer-" + id)) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
            attached.run();
            while (keepGoing.getAsBoolean()) {
                Message message = consumer.receive(100);
                if (message == null) {
                    continue;
                }
                if (latency != null) {
                    long micros = (System.nanoTime() - message.getLongProperty(Clients.SENT_AT)) / 1000;
                    latency.recordValue(Math.min(Math.max(0, micros), MAX_LATENCY_MICROS));
                }
                ledger.arrived(message.getIntProperty(Clients.PRODUCER), message.getLongProperty(Clients.SEQUENCE));
                consumed.increment();
            }
        } catch (JMSException | RuntimeException e) {
            errors.add("consumer " + id + ": " + e);
        }
    }
}
