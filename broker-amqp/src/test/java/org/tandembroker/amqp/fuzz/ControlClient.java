package org.tandembroker.amqp.fuzz;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import org.apache.qpid.jms.JmsConnectionFactory;

/**
 * A well-behaved client that publishes and consumes throughout a hostile run: each round sends one numbered
 * message and receives it back, so it proves, every round, that the broker still serves others. Rounds are paced
 * ({@value #PAUSE_MILLIS} ms apart): unpaced, the control client took thousands of rounds a second and much of the
 * two cores the hostile inputs need. The longest round is kept for the report.
 *
 * <p>Thread: its own thread ("control-client"); the counters and the first failure are read by the test thread.
 */
final class ControlClient implements AutoCloseable {
    private static final long RECEIVE_TIMEOUT_MILLIS = 10_000;
    private static final long PAUSE_MILLIS = 10;

    private final AtomicLong roundTrips = new AtomicLong();
    private final AtomicLong longestRoundNanos = new AtomicLong();
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean stopping;

    ControlClient(String uri, String user, String password, String queue) {
        thread = new Thread(() -> run(new JmsConnectionFactory(user, password, uri), queue), "control-client");
        thread.start();
    }

    private void run(JmsConnectionFactory factory, String queueName) {
        try (Connection connection = factory.createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName);
            MessageProducer producer = session.createProducer(queue);
            MessageConsumer consumer = session.createConsumer(queue);
            for (long round = 0; !stopping; round++) {
                long started = System.nanoTime();
                producer.send(session.createTextMessage("control-" + round));
                TextMessage back = (TextMessage) consumer.receive(RECEIVE_TIMEOUT_MILLIS);
                if (back == null || !back.getText().equals("control-" + round)) {
                    failure.compareAndSet(null, "round " + round + ": received " + (back == null ? "nothing" : back.getText()));
                    return;
                }
                roundTrips.incrementAndGet();
                longestRoundNanos.accumulateAndGet(System.nanoTime() - started, Math::max);
                Thread.sleep(PAUSE_MILLIS);
            }
        } catch (Exception e) {
            failure.compareAndSet(null, e.toString());
        }
    }

    long roundTrips() {
        return roundTrips.get();
    }

    /** The longest round so far (send, then receive), in milliseconds. */
    long longestRoundMillis() {
        return longestRoundNanos.get() / 1_000_000;
    }

    /** The first thing that went wrong, or null. */
    String failure() {
        return failure.get();
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        thread.join(30_000);
    }
}
