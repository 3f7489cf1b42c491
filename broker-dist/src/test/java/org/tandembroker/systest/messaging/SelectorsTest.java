package org.tandembroker.systest.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.systest.EmbeddedBroker;

/**
 * JMS message selectors and no-local as Qpid JMS users write them, against a real broker (BDB store) in this JVM;
 * the broker's own refusal of a bad selector through python3-qpid-proton (Qpid JMS checks selectors itself first).
 */
class SelectorsTest {
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

    private static void sendColours(Session session, Queue queue, int count) throws Exception {
        MessageProducer producer = session.createProducer(queue);
        for (int i = 0; i < count; i++) {
            TextMessage message = session.createTextMessage("m-" + i);
            message.setStringProperty("colour", i % 2 == 0 ? "red" : "blue");
            message.setIntProperty("n", i);
            producer.send(message);
        }
    }

    private static List<String> receiveAll(MessageConsumer consumer, int count) throws Exception {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            texts.add(text(consumer.receive(RECEIVE_TIMEOUT)));
        }
        return texts;
    }

    @Test
    void aSelectorTakesOnlyWhatItSelectsInOrderAndLeavesTheRestForOthers() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("selected");
            sendColours(session, queue, 10);
            MessageConsumer reds = session.createConsumer(queue, "colour = 'red'");
            assertThat(receiveAll(reds, 5)).containsExactly("m-0", "m-2", "m-4", "m-6", "m-8");
            assertThat(reds.receiveNoWait()).isNull();
            MessageConsumer everyone = session.createConsumer(queue);
            assertThat(receiveAll(everyone, 5)).containsExactly("m-1", "m-3", "m-5", "m-7", "m-9");
            assertThat(everyone.receiveNoWait()).isNull();
        }
    }

    @Test
    void aSelectorSeesJmsHeadersAndTypedApplicationProperties() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("headers");
            MessageProducer producer = session.createProducer(queue);
            TextMessage wanted = session.createTextMessage("wanted");
            wanted.setJMSType("order");
            wanted.setJMSCorrelationID("req-42");
            wanted.setDoubleProperty("price", 99.5);
            wanted.setLongProperty("quantity", 3);
            wanted.setStringProperty("code", "50%_off");
            wanted.setBooleanProperty("urgent", true);
            producer.send(wanted, DeliveryMode.PERSISTENT, 7, 0);
            TextMessage other = session.createTextMessage("other");
            other.setJMSType("order");
            producer.send(other, DeliveryMode.NON_PERSISTENT, 4, 0);

            String selector = "JMSType = 'order' AND JMSCorrelationID = 'req-42' AND JMSPriority > 5"
                    + " AND JMSDeliveryMode = 'PERSISTENT' AND price * quantity BETWEEN 298 AND 299"
                    + " AND code LIKE '50!%!_%' ESCAPE '!' AND urgent AND JMSTimestamp > 0"
                    + " AND JMSMessageID LIKE 'ID:%' AND missing IS NULL AND JMSType IN ('order', 'invoice')"
                    + " AND JMSRedelivered = FALSE AND JMSXDeliveryCount = 1";
            MessageConsumer consumer = session.createConsumer(queue, selector);
            assertThat(text(consumer.receive(RECEIVE_TIMEOUT))).isEqualTo("wanted");
            assertThat(consumer.receiveNoWait()).isNull();
            MessageConsumer notWanted = session.createConsumer(queue, "NOT (price > 0)");
            assertThat(notWanted.receiveNoWait()).as("UNKNOWN is not TRUE under NOT").isNull();
            notWanted.close();
            assertThat(text(session.createConsumer(queue, "price IS NULL").receive(RECEIVE_TIMEOUT)))
                    .isEqualTo("other");
        }
    }

    @Test
    void selectedPropertiesSurviveARestart() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sendColours(session, session.createQueue("kept"), 6);
        }
        broker.restart();
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("kept"),
                    "colour = 'blue' AND n >= 3");
            assertThat(receiveAll(consumer, 2)).containsExactly("m-3", "m-5");
            assertThat(consumer.receiveNoWait()).isNull();
        }
    }

    @Test
    void aTopicSubscriberWithASelectorGetsOnlyWhatItSelects() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic("selected.prices");
            MessageConsumer cheap = session.createConsumer(topic, "price < 10");
            MessageConsumer all = session.createConsumer(topic);
            MessageProducer producer = session.createProducer(topic);
            for (int price : new int[] {5, 50, 7}) {
                Message message = session.createTextMessage("price-" + price);
                message.setIntProperty("price", price);
                producer.send(message);
            }
            assertThat(receiveAll(cheap, 2)).containsExactly("price-5", "price-7");
            assertThat(receiveAll(all, 3)).containsExactly("price-5", "price-50", "price-7");
            assertThat(cheap.receiveNoWait()).isNull();
        }
    }

    @Test
    void aNoLocalSubscriberDoesNotHearItsOwnConnection() throws Exception {
        try (Connection mine = broker.connect(); Connection theirs = broker.connect()) {
            Session session = mine.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic("chat");
            MessageConsumer noLocal = session.createConsumer(topic, null, true);
            MessageConsumer hearsAll = session.createConsumer(topic);
            session.createProducer(topic).send(session.createTextMessage("mine"));
            Session theirSession = theirs.createSession(false, Session.AUTO_ACKNOWLEDGE);
            theirSession.createProducer(theirSession.createTopic("chat"))
                    .send(theirSession.createTextMessage("theirs"));
            assertThat(text(noLocal.receive(RECEIVE_TIMEOUT))).isEqualTo("theirs");
            assertThat(receiveAll(hearsAll, 2)).containsExactly("mine", "theirs");
            assertThat(noLocal.receiveNoWait()).isNull();
        }
    }

    @Test
    void pythonReceiverWithASelectorAndTheBrokersRefusalOfABadOne() throws Exception {
        PythonScript.assumeAvailable();
        String url = "amqp://guest:guest@127.0.0.1:" + broker.port();
        assertThat(PythonScript.run("selector_receive.py", url, "python.selected", "6", "colour = 'red' AND n > 0",
                "2")).containsExactly("m-2", "m-4");
        List<String> refused = PythonScript.run("selector_receive.py", url, "python.refused", "1", "colour = ",
                "0");
        assertThat(refused).hasSize(1);
        assertThat(refused.get(0)).startsWith("refused:").contains("amqp:invalid-field")
                .contains("invalid selector \"colour = \": the selector ends too early at position 10");
    }
}
