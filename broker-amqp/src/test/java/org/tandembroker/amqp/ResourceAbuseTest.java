package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.ResourceAllocationException;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;
import org.tandembroker.amqp.fuzz.FuzzedBroker;
import org.tandembroker.amqp.fuzz.ProblemWatch;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.config.QueueConfig;

/**
 * Clients that abuse the broker's resources: a thousand connections held with heartbeats and one more beyond the
 * limit, a consumer with a large prefetch that never reads its socket, a producer flooding a full queue, and one
 * publishing while the store refuses publishes (the disk watermark). The broker serves everyone else, refuses
 * with the documented AMQP errors, and loses nothing it confirmed.
 *
 * <p>The long profile (docs/testing.md): {@code -Dabuse.connections=1000 -Dabuse.holdSeconds=600}.
 */
class ResourceAbuseTest {
    private static final int CONNECTIONS = Integer.getInteger("abuse.connections", 200);
    private static final int HOLD_SECONDS = Integer.getInteger("abuse.holdSeconds", 12);
    private static final int IDLE_TIMEOUT_MILLIS = 10_000;

    @Test
    void aThousandConnectionsWithSessionsAndLinksAreHeldWithHeartbeatsAndTheNextIsRefused() throws Exception {
        ConnectionLimits limits = new ConnectionLimits(64 * 1024, 1024 * 1024, Duration.ofMillis(IDLE_TIMEOUT_MILLIS),
                CONNECTIONS, 50);
        try (ProblemWatch watch = new ProblemWatch();
             FuzzedBroker broker = new FuzzedBroker(watch, limits, Optional.empty(), 64L << 20, List.of())) {
            long heapBefore = usedHeapAfterGc();
            List<PolledAmqpClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    clients.add(new PolledAmqpClient(broker.port(), FuzzedBroker.USER, FuzzedBroker.PASSWORD,
                            FuzzedBroker.HOST, "held-" + (i % 20), 10, IDLE_TIMEOUT_MILLIS, 0));
                    if (i % 10 == 9) {
                        pollAll(clients);
                    }
                }
                pollUntil(clients, () -> clients.stream().allMatch(PolledAmqpClient::attached), Duration.ofSeconds(120));
                long heapHeld = usedHeapAfterGc();
                assertThat(broker.connectionCount()).isEqualTo(CONNECTIONS);

                // one more is refused with the documented error, while the others stay
                try (PolledAmqpClient refused = new PolledAmqpClient(broker.port(), FuzzedBroker.USER, FuzzedBroker.PASSWORD,
                        FuzzedBroker.HOST, "held-0", 10, IDLE_TIMEOUT_MILLIS, 0)) {
                    List<PolledAmqpClient> one = List.of(refused);
                    pollUntil(one, refused::remoteClosed, Duration.ofSeconds(20));
                    assertThat(String.valueOf(refused.connection().getRemoteCondition().getCondition()))
                            .isEqualTo("amqp:resource-limit-exceeded");
                }

                // held for longer than many idle timeouts: heartbeats keep every connection open
                long until = System.currentTimeMillis() + HOLD_SECONDS * 1000L;
                while (System.currentTimeMillis() < until) {
                    pollAll(clients);
                    java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L); // pacing the poll loop, not a wait
                }
                assertThat(clients).noneMatch(PolledAmqpClient::remoteClosed);
                assertThat(broker.connectionCount()).isEqualTo(CONNECTIONS);
                System.out.printf("abuse: %d connections (session + receiving link each) held %d s with a %d ms idle"
                                + " timeout; heap after GC %d KiB -> %d KiB: %.1f KiB per connection (broker and test"
                                + " client in one JVM)%n", CONNECTIONS, HOLD_SECONDS, IDLE_TIMEOUT_MILLIS,
                        heapBefore >> 10, heapHeld >> 10, (heapHeld - heapBefore) / 1024.0 / CONNECTIONS);
            } finally {
                for (PolledAmqpClient client : clients) {
                    client.close();
                }
            }
            assertThat(watch.problems()).isEmpty();
        }
    }

    @Test
    void aConsumerThatNeverReadsItsSocketHoldsAWindowWhileAnotherConsumerTakesTheRest() throws Exception {
        // What a stalled consumer may hold is its delivery window (OutgoingLink.CORE_WINDOW, 256) plus what the
        // kernel's socket buffers take (autotuned up to the kernel's maxima: 7-10 MiB seen with tcp_rmem's 6 MiB,
        // 30 MiB with 32 MiB); without the window it would hold every message. The queue is sized so that this bound
        // stays well under half of it.
        int bufferedAtMost = OutgoingLink.CORE_WINDOW + (int) (kernelSocketBufferMaxBytes() / (8 * 1024));
        int messages = Math.max(6_000, 5 * bufferedAtMost / 2);
        try (ProblemWatch watch = new ProblemWatch();
             FuzzedBroker broker = new FuzzedBroker(watch, FuzzedBroker.limits(), Optional.empty(), 256L << 20, List.of())) {
            JmsConnectionFactory factory = new JmsConnectionFactory(FuzzedBroker.USER, FuzzedBroker.PASSWORD, broker.uri());
            byte[] body = new byte[8 * 1024];
            try (Connection connection = factory.createConnection()) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue("deep"));
                for (int i = 0; i < messages; i++) {
                    var message = session.createBytesMessage();
                    message.writeBytes(body);
                    producer.send(message);
                }
            }
            long heapBeforeStalled = usedHeapAfterGc();
            try (PolledAmqpClient stalled = new PolledAmqpClient(broker.port(), FuzzedBroker.USER, FuzzedBroker.PASSWORD,
                    FuzzedBroker.HOST, "deep", 10_000, 0, 8 * 1024)) {
                List<PolledAmqpClient> one = List.of(stalled);
                pollUntil(one, stalled::attached, Duration.ofSeconds(20));
                stalled.stopReading();
                pollUntil(one, () -> broker.virtualHost.queue("deep").orElseThrow().consumerCount() == 1, Duration.ofSeconds(5));
                long heapBeforeHealthy = usedHeapAfterGc(); // the stalled consumer holds what it will hold
                int healthy = 0;
                try (Connection connection = factory.createConnection()) {
                    connection.start();
                    Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    MessageConsumer consumer = session.createConsumer(session.createQueue("deep"));
                    while (consumer.receive(3_000) != null) {
                        healthy++;
                        if (healthy % 100 == 0) {
                            pollAll(one); // the stalled client still writes its side (it never reads)
                        }
                    }
                }
                int heldByStalled = messages - healthy;
                System.out.printf("abuse: a consumer with credit 10000 that never reads held %d of %d messages (8 KiB);"
                        + " another consumer took %d; heap after GC with the queue full and the consumer stalled: %d KiB"
                        + " (before it attached: %d KiB)%n", heldByStalled, messages, healthy, heapBeforeHealthy >> 10,
                        heapBeforeStalled >> 10);
                assertThat(heapBeforeHealthy - heapBeforeStalled).as("heap taken by the stalled consumer")
                        .isLessThan(32L << 20);
                assertThat(heldByStalled).as("deliveries the broker pulled for a consumer that never reads (at most"
                        + " %d: the window and the kernel's buffers)", bufferedAtMost).isLessThan(messages / 2);

                stalled.resumeReading();
                pollUntil(one, () -> stalled.received() == heldByStalled, Duration.ofSeconds(30));
            }
            assertThat(watch.problems()).isEmpty();
        }
    }

    @Test
    void aProducerFloodingAFullQueueIsRefusedWithResourceLimitExceededAndLosesNothingConfirmed() throws Exception {
        QueueConfig bounded = new QueueConfig("bounded", true, 100, 0, 0, 10, null);
        try (ProblemWatch watch = new ProblemWatch();
             FuzzedBroker broker = new FuzzedBroker(watch, FuzzedBroker.limits(), Optional.empty(), 64L << 20, List.of(bounded))) {
            Set<String> confirmed = publishCountingConfirmed(broker, "bounded", 250, null);
            assertThat(confirmed).hasSize(100);
            assertThat(consumeAll(broker, "bounded")).isEqualTo(confirmed);
            assertThat(watch.problems()).isEmpty();
        }
    }

    @Test
    void aProducerSendingWhileTheStoreRefusesPublishesIsRefusedAndLosesNothingConfirmed() throws Exception {
        try (ProblemWatch watch = new ProblemWatch();
             FuzzedBroker broker = new FuzzedBroker(watch, FuzzedBroker.limits(), Optional.empty(), 64L << 20, List.of())) {
            // the disk watermark's path: the management plugin calls refusePublishes when the store is low on disk
            Set<String> confirmed = publishCountingConfirmed(broker, "disk", 300, sent -> {
                if (sent == 100) {
                    broker.virtualHost.refusePublishes("disk full (test)");
                } else if (sent == 200) {
                    broker.virtualHost.acceptPublishes();
                }
            });
            assertThat(confirmed).hasSize(200);
            assertThat(consumeAll(broker, "disk")).isEqualTo(confirmed);
            assertThat(watch.problems()).isEmpty();
        }
    }

    private interface BeforeSend {
        void at(int sent);
    }

    /** Sends {@code count} persistent messages; returns the texts whose send was confirmed. */
    private static Set<String> publishCountingConfirmed(FuzzedBroker broker, String queueName, int count,
                                                       BeforeSend beforeSend) throws JMSException {
        Set<String> confirmed = new HashSet<>();
        int refused = 0;
        try (Connection connection = new JmsConnectionFactory(FuzzedBroker.USER, FuzzedBroker.PASSWORD, broker.uri())
                .createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queueName));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (int i = 0; i < count; i++) {
                if (beforeSend != null) {
                    beforeSend.at(i);
                }
                String text = queueName + "-" + i;
                Throwable failure = catchThrowable(() -> producer.send(session.createTextMessage(text)));
                if (failure == null) {
                    confirmed.add(text);
                } else {
                    assertThat(failure).isInstanceOf(ResourceAllocationException.class); // amqp:resource-limit-exceeded
                    refused++;
                }
            }
        }
        assertThat(refused).isEqualTo(count - confirmed.size()).isPositive();
        return confirmed;
    }

    private static Set<String> consumeAll(FuzzedBroker broker, String queueName) throws JMSException {
        Set<String> received = new HashSet<>();
        try (Connection connection = new JmsConnectionFactory(FuzzedBroker.USER, FuzzedBroker.PASSWORD, broker.uri())
                .createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName);
            MessageConsumer consumer = session.createConsumer(queue);
            for (Message message = consumer.receive(3_000); message != null; message = consumer.receive(1_000)) {
                received.add(((TextMessage) message).getText());
            }
        }
        return received;
    }

    private static void pollAll(List<PolledAmqpClient> clients) throws IOException {
        long now = System.currentTimeMillis();
        for (PolledAmqpClient client : clients) {
            client.poll(now);
        }
    }

    private static void pollUntil(List<PolledAmqpClient> clients, BooleanSupplier done, Duration limit) throws Exception {
        long deadline = System.currentTimeMillis() + limit.toMillis();
        while (!done.getAsBoolean()) {
            assertThat(System.currentTimeMillis()).as("condition within %s", limit).isLessThan(deadline);
            pollAll(clients);
            java.util.concurrent.locks.LockSupport.parkNanos(2_000_000L); // pacing the poll loop
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * The most one loopback connection's socket buffers may hold: the receiving socket's buffer at its autotuned
     * maximum plus the sending socket's (Linux's {@code tcp_rmem} and {@code tcp_wmem}, third field), or 16 MiB
     * where the kernel does not say.
     */
    private static long kernelSocketBufferMaxBytes() {
        try {
            return maxOf("/proc/sys/net/ipv4/tcp_rmem") + maxOf("/proc/sys/net/ipv4/tcp_wmem");
        } catch (IOException | RuntimeException unknown) {
            return 16L << 20;
        }
    }

    private static long maxOf(String sysctl) throws IOException {
        // readAllLines, not readString: a /proc file reports size 0, and readString then reads nothing
        String[] fields = Files.readAllLines(Path.of(sysctl)).get(0).trim().split("\\s+");
        return Long.parseLong(fields[2]);
    }
}
