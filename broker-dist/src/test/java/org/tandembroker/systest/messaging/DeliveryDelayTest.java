package org.tandembroker.systest.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.systest.EmbeddedBroker;

/** JMS 2 delivery delay with Qpid JMS (x-opt-delivery-time) and python3-qpid-proton (x-opt-delivery-delay). */
class DeliveryDelayTest {
    private static final long DELAY = 1_500;
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

    private static String text(Message message) throws Exception {
        return message == null ? null : ((TextMessage) message).getText();
    }

    @Test
    void aDelayedMessageArrivesNoEarlierThanItsDeliveryTimeAndOthersPassIt() throws Exception {
        try (Connection connection = broker.connect()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("delayed");
            MessageProducer delayed = session.createProducer(queue);
            delayed.setDeliveryDelay(DELAY);
            long sentAt = System.currentTimeMillis();
            delayed.send(session.createTextMessage("later"));
            session.createProducer(queue).send(session.createTextMessage("now"));
            MessageConsumer consumer = session.createConsumer(queue);

            assertThat(text(consumer.receive(RECEIVE_TIMEOUT))).isEqualTo("now");
            Message later = consumer.receive(RECEIVE_TIMEOUT);
            long receivedAt = System.currentTimeMillis();

            assertThat(text(later)).isEqualTo("later");
            assertThat(receivedAt).isGreaterThanOrEqualTo(sentAt + DELAY);
            assertThat(later.getJMSDeliveryTime()).isGreaterThanOrEqualTo(sentAt + DELAY);
        }
    }

    @Test
    void aBrowserDoesNotSeeAMessageBeforeItsTime() throws Exception {
        try (Connection connection = broker.connect()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("delayed.browsed");
            MessageProducer delayed = session.createProducer(queue);
            delayed.setDeliveryDelay(600_000);
            delayed.send(session.createTextMessage("much later"));
            session.createProducer(queue).send(session.createTextMessage("now"));

            List<String> browsed = new ArrayList<>();
            for (Object m : Collections.list(session.createBrowser(queue).getEnumeration())) {
                browsed.add(text((Message) m));
            }

            assertThat(browsed).containsExactly("now");
            MessageConsumer consumer = session.createConsumer(queue);
            assertThat(text(consumer.receive(RECEIVE_TIMEOUT))).isEqualTo("now");
            assertThat(consumer.receive(200)).isNull();
        }
    }

    @Test
    void aDelayedMessageInATransactionIsScheduledAtCommitAndARolledBackOneNever() throws Exception {
        try (Connection connection = broker.connect()) {
            connection.start();
            Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
            Queue queue = transacted.createQueue("delayed.transacted");
            MessageProducer producer = transacted.createProducer(queue);
            producer.setDeliveryDelay(DELAY);
            producer.send(transacted.createTextMessage("rolled back"));
            transacted.rollback();
            long sentAt = System.currentTimeMillis();
            producer.send(transacted.createTextMessage("committed"));
            transacted.commit();

            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(queue);
            Message received = consumer.receive(RECEIVE_TIMEOUT);

            assertThat(text(received)).isEqualTo("committed");
            assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(sentAt + DELAY);
            assertThat(consumer.receive(200)).isNull();
        }
    }

    @Test
    void aDelayedMessageSurvivesARestartWithItsTime() throws Exception {
        long deliveryTime;
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("delayed.kept"));
            producer.setDeliveryDelay(4_000);
            TextMessage message = session.createTextMessage("kept");
            producer.send(message);
            deliveryTime = message.getJMSDeliveryTime();
        }

        broker.restart();

        try (Connection connection = broker.connect()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("delayed.kept"));
            Message received = consumer.receive(RECEIVE_TIMEOUT);

            assertThat(text(received)).isEqualTo("kept");
            assertThat(System.currentTimeMillis()).as("not before its delivery time")
                    .isGreaterThanOrEqualTo(deliveryTime);
            assertThat(received.getJMSDeliveryTime()).isEqualTo(deliveryTime);
        }
    }

    @Test
    void pythonClientDelaysAMessageWithTheDeliveryDelayAnnotation() throws Exception {
        PythonScript.assumeAvailable();
        String url = "amqp://guest:guest@127.0.0.1:" + broker.port();

        assertThat(PythonScript.run("delayed_send_receive.py", url, "python.delayed", "1500"))
                .containsExactly("received now", "received later", "waited enough: True");
    }
}
