package org.tandembroker.perftests;

import jakarta.jms.CompletionListener;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.Queue;
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
