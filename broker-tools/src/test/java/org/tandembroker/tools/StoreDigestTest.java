package org.tandembroker.tools;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.tools.digest.StoreDigest;

/**
 * {@code bin/store-digest} ({@link StoreDigest}): a stopped store's queues with their depths and content digests,
 * equal for equal contents and different as soon as one message differs; a store in use, or no store, refused.
 */
class StoreDigestTest {
    @TempDir
    Path directory;
    private final List<InJvmBroker> brokers = new ArrayList<>();

    @AfterEach
    void stopBrokers() {
        brokers.forEach(InJvmBroker::close);
    }

    @Test
    void aCopyOfAStoreHasTheSameDigestAndConsumingOneMessageChangesTheDepthAndTheDigest() throws Exception {
        Path store = directory.resolve("store");
        InJvmBroker broker = started(InJvmBroker.standalone(directory, "digest", store));
        send(broker, InJvmBroker.QUEUE, 20);
        send(broker, "other", 3);
        broker.close();
        Path copy = Files.createDirectories(directory.resolve("copy"));
        try (Stream<Path> files = Files.list(store)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".jdb")).toList()) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }

        ToolRun original = ToolRun.of(StoreDigest::run, "--store-path", store.toString());
        ToolRun copied = ToolRun.of(StoreDigest::run, "--store-path", copy.toString());

        assertThat(original.exitCode()).as(original.toString()).isZero();
        assertThat(original.out()).containsPattern("(?m)^orders 20 [0-9a-f]{64}$")
                .containsPattern("(?m)^other 3 [0-9a-f]{64}$");
        assertThat(copied.out()).isEqualTo(original.out());

        InJvmBroker again = started(InJvmBroker.standalone(directory, "digest-again", store));
        receiveOne(again, InJvmBroker.QUEUE);
        again.close();
        ToolRun afterConsuming = ToolRun.of(StoreDigest::run, "--store-path", store.toString());

        assertThat(afterConsuming.out()).containsPattern("(?m)^orders 19 [0-9a-f]{64}$");
        assertThat(line(afterConsuming, "other")).isEqualTo(line(original, "other"));
        assertThat(line(afterConsuming, "orders")).isNotEqualTo(line(original, "orders"));
    }

    @Test
    void aStoreABrokerHasOpenIsRefusedWithExitCodeOne() throws Exception {
        Path store = directory.resolve("store");
        InJvmBroker broker = started(InJvmBroker.standalone(directory, "busy", store));
        send(broker, InJvmBroker.QUEUE, 1);

        ToolRun run = ToolRun.of(StoreDigest::run, "--store-path", store.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ToolFailure.REFUSED);
        assertThat(run.err()).contains("in use by a running broker");
    }

    @Test
    void aDirectoryWithoutAStoreIsAUsageError() throws Exception {
        Path empty = Files.createDirectories(directory.resolve("empty"));

        ToolRun run = ToolRun.of(StoreDigest::run, "--store-path", empty.toString());

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ToolFailure.USAGE);
        assertThat(run.err()).contains("holds no JE store");
    }

    private InJvmBroker started(InJvmBroker broker) throws Exception {
        brokers.add(broker);
        return broker.start();
    }

    private static String line(ToolRun run, String queue) {
        return run.out().lines().filter(l -> l.startsWith(queue + " ")).findFirst().orElseThrow();
    }

    private static void send(InJvmBroker broker, String queue, int count) throws Exception {
        try (Connection connection = broker.connectionFactory().createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queue));
            for (int i = 0; i < count; i++) {
                producer.send(session.createTextMessage(queue + "#" + i));
            }
        }
    }

    private static void receiveOne(InJvmBroker broker, String queue) throws Exception {
        try (Connection connection = broker.connectionFactory().createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            assertThat(consumer.receive(30_000)).isNotNull();
        }
    }
}
