package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single-node broker as an unmodified Qpid JMS client sees it: a real broker (BDB store, AMQP front end) in
 * this JVM, on a loopback port.
 */
class QpidJmsEndToEndTest {
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

    private static List<String> sendTexts(Session session, Queue queue, String prefix, int count) throws JMSException {
        List<String> sent = new ArrayList<>();
        MessageProducer producer = session.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        for (int i = 0; i < count; i++) {
            String text = prefix + "-" + i;
            producer.send(session.createTextMessage(text));
            sent.add(text);
        }
        producer.close();
        return sent;
    }

    private static List<String> receiveTexts(MessageConsumer consumer, int count) throws JMSException {
        List<String> got = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message m = consumer.receive(RECEIVE_TIMEOUT);
            assertThat(m).as("message %d of %d", i + 1, count).isNotNull();
            got.add(((TextMessage) m).getText());
        }
        return got;
    }

    @Test
    void sentMessagesAreReceivedInOrder() throws Exception {
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("e2e.order");
            List<String> sent = sendTexts(session, queue, "m", 50);
            MessageConsumer consumer = session.createConsumer(queue);
            assertThat(receiveTexts(consumer, 50)).containsExactlyElementsOf(sent);
            assertThat(consumer.receiveNoWait()).isNull();
        }
    }

    @Test
    void consumerDrainsARecoveredBacklogOfMixedSizesFromSeveralProducers() throws Exception {
        List<String> sent = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            try (Connection c = broker.connect()) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue("e2e.backlog"));
                String padding = p == 2 ? "x".repeat(4096) : "";
                for (int i = 0; i < 300; i++) {
                    String text = "p" + p + "-" + i;
                    producer.send(session.createTextMessage(text + "|" + padding));
                    sent.add(text);
                }
            }
        }
        broker.restart();
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("e2e.backlog"));
            List<String> received = new ArrayList<>();
            for (String text : receiveTexts(consumer, sent.size())) {
                received.add(text.substring(0, text.indexOf('|')));
            }
            assertThat(received).containsExactlyElementsOf(sent);
        }
    }

    @Test
    void persistentMessagesSurviveABrokerRestart() throws Exception {
        List<String> sent;
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sent = sendTexts(session, session.createQueue("e2e.restart"), "durable", 20);
        }
        broker.restart();
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("e2e.restart"));
            assertThat(receiveTexts(consumer, 20)).containsExactlyElementsOf(sent);
        }
    }

    @Test
    void committedTransactionDeliversAndRolledBackOneDoesNot() throws Exception {
        try (Connection c = broker.connect()) {
            Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
            Queue queue = tx.createQueue("e2e.tx");
            MessageProducer producer = tx.createProducer(queue);
            producer.send(tx.createTextMessage("rolled-back"));
            tx.rollback();
            producer.send(tx.createTextMessage("committed"));
            tx.commit();

            Session plain = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = plain.createConsumer(queue);
            assertThat(receiveTexts(consumer, 1)).containsExactly("committed");
            assertThat(consumer.receive(500)).isNull();
        }
    }

    @Test
    void rolledBackReceiveIsRedeliveredAndCommittedReceiveIsGone() throws Exception {
        try (Connection c = broker.connect()) {
            Session plain = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = plain.createQueue("e2e.txreceive");
            sendTexts(plain, queue, "work", 1);

            Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer consumer = tx.createConsumer(queue);
            Message first = consumer.receive(RECEIVE_TIMEOUT);
            assertThat(((TextMessage) first).getText()).isEqualTo("work-0");
            tx.rollback();
            Message again = consumer.receive(RECEIVE_TIMEOUT);
            assertThat(((TextMessage) again).getText()).isEqualTo("work-0");
            assertThat(again.getJMSRedelivered()).isTrue();
            tx.commit();
            consumer.close();
            assertThat(plain.createConsumer(queue).receive(500)).isNull();
        }
    }

    @Test
    void fiveMegabyteMessageRoundTripsIntact() throws Exception {
        byte[] payload = new byte[5 * 1024 * 1024];
        new Random(42).nextBytes(payload);
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("e2e.large");
            BytesMessage out = session.createBytesMessage();
            out.writeBytes(payload);
            session.createProducer(queue).send(out);
            BytesMessage in = (BytesMessage) session.createConsumer(queue).receive(RECEIVE_TIMEOUT);
            assertThat(in).isNotNull();
            byte[] received = new byte[(int) in.getBodyLength()];
            in.readBytes(received);
            assertThat(received).isEqualTo(payload);
        }
    }

    @Test
    void twoHundredConcurrentConnectionsLoseNothing() throws Exception {
        int connections = 200;
        int perConnection = 5;
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<List<String>>> sends = new ArrayList<>();
            for (int n = 0; n < connections; n++) {
                int id = n;
                sends.add(pool.submit(() -> {
                    try (Connection c = broker.connect()) {
                        Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                        return sendTexts(s, s.createQueue("e2e.many"), "c" + id, perConnection);
                    }
                }));
            }
            Set<String> sent = new HashSet<>();
            for (Future<List<String>> f : sends) {
                sent.addAll(f.get(120, TimeUnit.SECONDS));
            }
            assertThat(sent).hasSize(connections * perConnection);
            Set<String> received = Collections.synchronizedSet(new HashSet<>());
            try (Connection c = broker.connect()) {
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                received.addAll(receiveTexts(s.createConsumer(s.createQueue("e2e.many")), sent.size()));
            }
            assertThat(received).isEqualTo(sent);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void topicSubscribersGetMatchingMessagesAndFanoutReachesEveryone() throws Exception {
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer allNews = session.createConsumer(session.createTopic("news/news.#"));
            MessageConsumer sportsOnly = session.createConsumer(session.createTopic("news/news.sports.*"));
            MessageConsumer fanA = session.createConsumer(session.createTopic("broadcast"));
            MessageConsumer fanB = session.createConsumer(session.createTopic("broadcast"));

            session.createProducer(session.createTopic("news/news.sports.football"))
                    .send(session.createTextMessage("goal"));
            session.createProducer(session.createTopic("news/news.weather"))
                    .send(session.createTextMessage("rain"));
            session.createProducer(session.createTopic("broadcast")).send(session.createTextMessage("hello all"));

            assertThat(receiveTexts(allNews, 2)).containsExactly("goal", "rain");
            assertThat(receiveTexts(sportsOnly, 1)).containsExactly("goal");
            assertThat(sportsOnly.receive(300)).isNull();
            assertThat(receiveTexts(fanA, 1)).containsExactly("hello all");
            assertThat(receiveTexts(fanB, 1)).containsExactly("hello all");

            MessageConsumer boundQueue = session.createConsumer(session.createQueue("sports"));
            assertThat(receiveTexts(boundQueue, 1)).containsExactly("goal");
        }
    }

    @Test
    void messageIsRedeliveredAfterItsConsumerClosesWithoutAccepting() throws Exception {
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue("e2e.redeliver");
            sendTexts(session, queue, "retry", 1);
            MessageConsumer first = session.createConsumer(queue);
            Message unacknowledged = first.receive(RECEIVE_TIMEOUT);
            assertThat(unacknowledged).isNotNull();
            first.close();
        }
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Message again = session.createConsumer(session.createQueue("e2e.redeliver")).receive(RECEIVE_TIMEOUT);
            assertThat(((TextMessage) again).getText()).isEqualTo("retry-0");
            assertThat(again.getJMSRedelivered()).isTrue();
            assertThat(again.getIntProperty("JMSXDeliveryCount")).isEqualTo(2);
            again.acknowledge();
        }
    }

    @Test
    void messageIsDeadLetteredAfterTheQueuesMaximumDeliveries() throws Exception {
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sendTexts(session, session.createQueue("limited"), "poison", 1);
        }
        for (int attempt = 1; attempt <= 3; attempt++) {
            try (Connection c = broker.connect()) {
                Session session = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
                Message m = session.createConsumer(session.createQueue("limited")).receive(RECEIVE_TIMEOUT);
                assertThat(m).as("delivery attempt %d", attempt).isNotNull();
            }
        }
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThat(session.createConsumer(session.createQueue("limited")).receive(500)).isNull();
            assertThat(receiveTexts(session.createConsumer(session.createQueue("limited.dlq")), 1))
                    .containsExactly("poison-0");
        }
    }

    @Test
    void fullQueueRefusesTheSendWithResourceLimitExceeded() throws Exception {
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue tiny = session.createQueue("tiny");
            sendTexts(session, tiny, "fill", 5);
            MessageProducer producer = session.createProducer(tiny);
            assertThatThrownBy(() -> producer.send(session.createTextMessage("overflow")))
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("tiny");
            assertThat(receiveTexts(session.createConsumer(tiny), 5)).hasSize(5);
        }
    }

    @Test
    void wrongPasswordIsRefused() {
        assertThatThrownBy(() -> broker.connect("alice", "wrong").close())
                .isInstanceOf(JMSSecurityException.class);
    }

    @Test
    void garbageOnARawSocketIsRejectedAndOtherClientsCarryOn() throws Exception {
        try (Socket raw = new Socket("127.0.0.1", broker.port())) {
            raw.setSoTimeout(10_000);
            OutputStream out = raw.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = raw.getInputStream();
            byte[] reply = in.readNBytes(8);
            assertThat(new String(reply, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("AMQP");
            assertThat(in.read()).as("connection closed after the protocol header reply").isEqualTo(-1);
        }
        try (Connection c = broker.connect()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("e2e.after-garbage");
            sendTexts(session, queue, "still-works", 1);
            assertThat(receiveTexts(session.createConsumer(queue), 1)).containsExactly("still-works-0");
        }
    }
}
