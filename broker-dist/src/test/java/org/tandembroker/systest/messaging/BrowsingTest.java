package org.tandembroker.systest.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.systest.EmbeddedBroker;

/** JMS QueueBrowser (distribution-mode copy) and python3-qpid-proton's copy-mode receiver: seeing without taking. */
class BrowsingTest {
    private static final long RECEIVE_TIMEOUT = 10_000;

    @TempDir
    static Path directory;
    private static EmbeddedBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = new EmbeddedBroker(directory);
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static void send(Session session, Queue queue, int count) throws Exception {
        MessageProducer producer = session.createProducer(queue);
        for (int i = 0; i < count; i++) {
            TextMessage message = session.createTextMessage("m-" + i);
            message.setIntProperty("n", i);
            producer.send(message);
        }
    }

    private static List<String> browse(QueueBrowser browser) throws Exception {
        List<String> texts = new ArrayList<>();
        Enumeration<?> messages = browser.getEnumeration();
        while (messages.hasMoreElements()) {
            texts.add(((TextMessage) messages.nextElement()).getText());
        }
        return texts;
    }

    private static List<String> receive(MessageConsumer consumer, int count) throws Exception {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message message = consumer.receive(RECEIVE_TIMEOUT);
            texts.add(message == null ? null : ((TextMessage) message).getText());
        }
        return texts;
    }

    private static List<String> texts(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "m-" + i).toList();
    }

    @Test
    void aBrowserSeesTheQueueInOrderAndLeavesEveryMessageForConsumers() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("browsed");
            send(session, queue, 5);
            assertThat(browse(session.createBrowser(queue))).isEqualTo(texts(0, 5));
            assertThat(browse(session.createBrowser(queue))).as("browsing again").isEqualTo(texts(0, 5));
            MessageConsumer consumer = session.createConsumer(queue);
            assertThat(receive(consumer, 5)).isEqualTo(texts(0, 5));
            assertThat(consumer.receiveNoWait()).isNull();
        }
    }

    @Test
    void aBrowserWithASelectorSeesOnlyWhatItSelectsAndNotWhatAConsumerHolds() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue("browsed.selected");
            send(session, queue, 6);
            assertThat(browse(session.createBrowser(queue, "n >= 3"))).isEqualTo(texts(3, 6));
            MessageConsumer holder = session.createConsumer(queue, "n < 2");
            assertThat(receive(holder, 2)).isEqualTo(texts(0, 2)); // delivered, not acknowledged: not available
            assertThat(browse(session.createBrowser(queue))).isEqualTo(texts(2, 6));
        }
    }

    @Test
    void browsingWorksTheSameAfterARestart() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            send(session, session.createQueue("browsed.kept"), 3);
        }
        broker.restart();
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("browsed.kept");
            assertThat(browse(session.createBrowser(queue, "n > 0"))).isEqualTo(texts(1, 3));
            assertThat(receive(session.createConsumer(queue), 3)).isEqualTo(texts(0, 3));
        }
    }

    @Test
    void pythonCopyModeReceiverBrowsesWithAndWithoutASelector() throws Exception {
        PythonScript.assumeAvailable();
        String url = "amqp://guest:guest@127.0.0.1:" + broker.port();
        assertThat(PythonScript.run("browse.py", url, "python.browsed", "3")).containsExactly(
                "browsed m-0", "browsed m-1", "browsed m-2", "received m-0", "received m-1", "received m-2");
        assertThat(PythonScript.run("browse.py", url, "python.browsed.selected", "3", "n = 1", "1"))
                .isEqualTo(Stream.concat(Stream.of("browsed m-1"),
                        texts(0, 3).stream().map(t -> "received " + t)).toList());
    }
}
