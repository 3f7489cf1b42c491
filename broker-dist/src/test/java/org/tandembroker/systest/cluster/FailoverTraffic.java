package org.tandembroker.systest.cluster;

import static org.awaitility.Awaitility.await;

import jakarta.jms.ConnectionFactory;
import java.time.Duration;
import org.awaitility.core.ConditionTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clients of a failure scenario: one {@link CountingProducer} and one {@link CountingConsumer} on the same
 * queue, both on a failover connection factory (every node of the cluster), running through the event, with
 * their {@link ZeroLossChecker}. One consumer per queue, so that each producer's order can be checked.
 *
 * <pre>{@code
 * try (FailoverTraffic traffic = FailoverTraffic.start("kill-master", cluster.connectionFactory())) {
 *     traffic.awaitProgress(100, DEADLINE);     // flowing before the event
 *     master.kill();
 *     traffic.awaitProgress(100, DEADLINE);     // and after it: the clients continue
 *     traffic.finish(DEADLINE).assertZeroLoss().assertInOrderApartFromRedeliveries();
 * }
 * }</pre>
 * The producer sends a persistent message every {@link #SEND_INTERVAL} at most (a minute of scenario moves
 * hundreds or a few thousand messages) and carries on with a new connection if a send fails, as an application
 * that retries would; a failed send is in doubt, never counted as lost. Scenarios that promise "no send fails"
 * assert {@link ZeroLossChecker.Report#failedSends()} themselves.
 */
public final class FailoverTraffic implements AutoCloseable {
    /** The producer's pause between sends. */
    public static final Duration SEND_INTERVAL = Duration.ofMillis(20);

    private static final Logger LOG = LoggerFactory.getLogger(FailoverTraffic.class);

    private final String name;
    private final ZeroLossChecker checker = new ZeroLossChecker();
    private final CountingProducer producer;
    private final CountingConsumer consumer;

    private FailoverTraffic(String name, ConnectionFactory factory, int payloadBytes) {
        this.name = name;
        String queue = "ha." + name;
        this.producer = new CountingProducer(name + "-p", factory, queue, checker)
                .interval(SEND_INTERVAL).payloadBytes(payloadBytes).carryOnAfterFailures();
        this.consumer = new CountingConsumer(name + "-c", factory, queue, checker).carryOnAfterFailures();
    }

    /** Starts a producer and a consumer on queue {@code ha.<name>}. */
    public static FailoverTraffic start(String name, ConnectionFactory factory) {
        return start(name, factory, 0);
    }

    /** Starts a producer of messages of {@code payloadBytes} characters and a consumer on queue {@code ha.<name>}. */
    public static FailoverTraffic start(String name, ConnectionFactory factory, int payloadBytes) {
        FailoverTraffic traffic = new FailoverTraffic(name, factory, payloadBytes);
        traffic.consumer.start();
        traffic.producer.start();
        return traffic;
    }

    public ZeroLossChecker checker() {
        return checker;
    }

    public CountingProducer producer() {
        return producer;
    }

    public CountingConsumer consumer() {
        return consumer;
    }

    /**
     * Waits until {@code count} more sends are settled and the consumer received {@code count} more messages
     * than when called: the clients are working (again).
     */
    public FailoverTraffic awaitProgress(long count, Duration timeout) {
        long settledFrom = checker.settledCount();
        long receivedFrom = consumer.received();
        try {
            await(name + ": " + count + " more sends settled and messages received").atMost(timeout)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> checker.settledCount() >= settledFrom + count
                            && consumer.received() >= receivedFrom + count);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(name + ": the clients did not make progress within " + timeout + ": settled "
                    + (checker.settledCount() - settledFrom) + " and received " + (consumer.received() - receivedFrom)
                    + " of " + count + "; " + state(), e);
        }
        return this;
    }

    /**
     * Stops the producer, waits until the consumer got every settled message, stops the consumer and returns
     * the report (also logged).
     */
    public ZeroLossChecker.Report finish(Duration timeout) {
        producer.stop();
        ZeroLossChecker.Report report;
        try {
            report = checker.awaitZeroLoss(timeout, consumer);
        } finally {
            consumer.stop();
        }
        LOG.info("{}: {}; {}", name, report.summary(), state());
        return report;
    }

    /** The producer's and consumer's connection histories and failures, for messages. */
    public String state() {
        return "producer " + producer.connection() + ", " + producer.connectionFailures() + " failed connection(s)"
                + producer.lastFailure().map(f -> " (last: " + f + ")").orElse("")
                + "; consumer " + consumer.connection() + ", " + consumer.connectionFailures()
                + " failed connection(s)";
    }

    @Override
    public void close() {
        try {
            producer.stop();
        } finally {
            consumer.stop();
        }
    }
}
