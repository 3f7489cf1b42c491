package org.tandembroker.systest.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.nio.file.Path;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.systest.EmbeddedBroker;

/**
 * {@code session.createTopic("prices")} is publish/subscribe (through {@code amq.topic} with the name as key) while
 * {@code createQueue} of the same name stays a queue; durable subscriptions to a named topic survive a restart.
 */
class TopicsByNameTest {
    private static final long RECEIVE_TIMEOUT = 10_000;

    @TempDir
    static Path directory;
    private static EmbeddedBroker broker;

    @BeforeAll
    static void start() throws Exception {
        broker = new EmbeddedBroker(directory);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static Connection connect(String clientId) throws Exception {
        Connection connection = new JmsConnectionFactory("guest", "guest", broker.uri() + "?jms.clientID=" + clientId)
                .createConnection();
        connection.start();
        return connection;
    }

    private static String text(jakarta.jms.Message message) throws Exception {
        return message == null ? null : ((TextMessage) message).getText();
    }

    @Test
    void everySubscriberOfANamedTopicGetsItsOwnCopy() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic prices = session.createTopic("prices");
            MessageConsumer first = session.createConsumer(prices);
            MessageConsumer second = session.createConsumer(prices);
            MessageProducer producer = session.createProducer(prices);
            for (int i = 0; i < 3; i++) {
                producer.send(session.createTextMessage("price-" + i));
            }
            for (MessageConsumer consumer : new MessageConsumer[] {first, second}) {
                for (int i = 0; i < 3; i++) {
                    assertThat(text(consumer.receive(RECEIVE_TIMEOUT))).isEqualTo("price-" + i);
                }
            }
            assertThat(first.receiveNoWait()).isNull();
        }
    }

    @Test
    void aTopicAndAQueueOfTheSameNameAreDifferentThings() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("orders");
            Topic topic = session.createTopic("orders");
            MessageConsumer topicSubscriber = session.createConsumer(topic);
            session.createProducer(queue).send(session.createTextMessage("to the queue"));
            session.createProducer(topic).send(session.createTextMessage("to the topic"));
            assertThat(text(topicSubscriber.receive(RECEIVE_TIMEOUT))).isEqualTo("to the topic");
            MessageConsumer queueConsumer = session.createConsumer(queue);
            assertThat(text(queueConsumer.receive(RECEIVE_TIMEOUT))).isEqualTo("to the queue");
            assertThat(queueConsumer.receiveNoWait()).isNull();
            assertThat(topicSubscriber.receiveNoWait()).isNull();
        }
    }

    @Test
    void aNamedTopicIsAmqTopicWithTheNameAsKeySoWildcardsAndTheExplicitFormMeet() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer allStocks = session.createConsumer(session.createTopic("stocks.#"));
            MessageConsumer explicit = session.createConsumer(session.createTopic("amq.topic/stocks.*"));
            session.createProducer(session.createTopic("stocks.ibm")).send(session.createTextMessage("ibm"));
            session.createProducer(session.createTopic("amq.topic/stocks.sap"))
                    .send(session.createTextMessage("sap"));
            assertThat(text(allStocks.receive(RECEIVE_TIMEOUT))).isEqualTo("ibm");
            assertThat(text(allStocks.receive(RECEIVE_TIMEOUT))).isEqualTo("sap");
            assertThat(text(explicit.receive(RECEIVE_TIMEOUT))).isEqualTo("ibm");
            assertThat(text(explicit.receive(RECEIVE_TIMEOUT))).isEqualTo("sap");
        }
    }

    @Test
    void anAnonymousProducerPublishesToANamedTopic() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic alerts = session.createTopic("alerts");
            MessageConsumer first = session.createConsumer(alerts);
            MessageConsumer second = session.createConsumer(alerts);
            session.createProducer(null).send(alerts, session.createTextMessage("fire"));
            assertThat(text(first.receive(RECEIVE_TIMEOUT))).isEqualTo("fire");
            assertThat(text(second.receive(RECEIVE_TIMEOUT))).isEqualTo("fire");
        }
    }

    @Test
    void aDurableSubscriptionToANamedTopicKeepsItsMessagesAcrossARestart() throws Exception {
        try (Connection connection = connect("ticker")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createDurableSubscriber(session.createTopic("quotes"), "all-quotes").close();
            MessageProducer producer = session.createProducer(session.createTopic("quotes"));
            producer.send(session.createTextMessage("before restart"));
        }
        broker.restart();
        try (Connection connection = connect("publisher")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createTopic("quotes")).send(session.createTextMessage("after restart"));
        }
        try (Connection connection = connect("ticker")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createDurableSubscriber(session.createTopic("quotes"), "all-quotes");
            assertThat(text(subscriber.receive(RECEIVE_TIMEOUT))).isEqualTo("before restart");
            assertThat(text(subscriber.receive(RECEIVE_TIMEOUT))).isEqualTo("after restart");
            assertThat(subscriber.receiveNoWait()).isNull();
        }
    }
}
