package org.tandembroker.systest.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.systest.EmbeddedBroker;

/**
 * JMS durable and shared subscriptions and unsubscribe, end to end with Qpid JMS against a broker in the test JVM
 * (one broker for the class; one test restarts it).
 */
class SubscriptionsTest {
    private static final long RECEIVE_TIMEOUT = 10_000;
    private static final long NOTHING_MORE = 300;

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

    /** A connection with a JMS client ID (the subscriptions it makes are scoped by it), or without (null). */
    private static Connection connect(String clientId) throws Exception {
        String options = clientId == null ? "" : "?jms.clientID=" + clientId;
        Connection connection = new JmsConnectionFactory("guest", "guest", broker.uri() + options).createConnection();
        connection.start();
        return connection;
    }

    private static void publish(String topic, String... texts) throws Exception {
        try (Connection connection = connect(null)) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createTopic(topic));
            for (String text : texts) {
                producer.send(session.createTextMessage(text));
            }
        }
    }

    private static void publishColoured(String topic, String text, String colour) throws Exception {
        try (Connection connection = connect(null)) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TextMessage message = session.createTextMessage(text);
            message.setStringProperty("colour", colour);
            session.createProducer(session.createTopic(topic)).send(message);
        }
    }

    private static List<String> receive(MessageConsumer consumer, int count) throws JMSException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            TextMessage message = (TextMessage) consumer.receive(RECEIVE_TIMEOUT);
            assertThat(message).as("message %d of %d", i + 1, count).isNotNull();
            texts.add(message.getText());
        }
        return texts;
    }

    private static void assertNothingMore(MessageConsumer consumer) throws JMSException {
        assertThat(consumer.receive(NOTHING_MORE)).isNull();
    }

    private static BrokerQueue queue(String name) {
        return broker.broker().virtualHosts().all().get(0).queue(name).orElse(null);
    }

    @Test
    void aDurableSubscriberGetsWhatWasPublishedWhileItWasClosed() throws Exception {
        try (Connection connection = connect("ledger")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createDurableSubscriber(session.createTopic("trades"), "all-trades").close();
        }
        publish("trades", "t1", "t2");
        try (Connection connection = connect("ledger")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createDurableSubscriber(session.createTopic("trades"), "all-trades");
            assertThat(receive(subscriber, 2)).containsExactly("t1", "t2");
            assertNothingMore(subscriber);
        }
        assertThat(queue("ledger:all-trades")).as("the subscription's queue names client and subscription")
                .isNotNull().satisfies(q -> assertThat(q.isDurable()).isTrue());
    }

    @Test
    void aDurableSubscriptionKeepsItsMessagesAndItsSelectorAcrossARestart() throws Exception {
        try (Connection connection = connect("painter")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createDurableConsumer(session.createTopic("paint"), "reds", "colour = 'red'", false).close();
        }
        publishColoured("paint", "red before", "red");
        publishColoured("paint", "blue before", "blue");
        broker.restart();
        publishColoured("paint", "blue after", "blue");
        publishColoured("paint", "red after", "red");
        try (Connection connection = connect("painter")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createDurableConsumer(session.createTopic("paint"), "reds",
                    "colour = 'red'", false);
            assertThat(receive(subscriber, 2)).containsExactly("red before", "red after");
            assertNothingMore(subscriber);
        }
        assertThat(queue("painter:reds").depthMessages()).as("the blue ones were never kept").isZero();
    }

    @Test
    void sharedConsumersOfOneSubscriptionCompeteAndItGoesWithTheLast() throws Exception {
        try (Connection connection = connect("workers")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic jobs = session.createTopic("jobs");
            MessageConsumer first = session.createSharedConsumer(jobs, "job-pool");
            MessageConsumer second = session.createSharedConsumer(jobs, "job-pool");
            MessageConsumer everything = session.createConsumer(jobs);
            publish("jobs", "j1", "j2", "j3", "j4");
            assertThat(receive(everything, 4)).containsExactly("j1", "j2", "j3", "j4");
            List<String> shared = new ArrayList<>(receive(first, 2));
            shared.addAll(receive(second, 2));
            assertThat(shared).as("each message to one of the pool").containsExactlyInAnyOrder("j1", "j2", "j3", "j4");
            assertNothingMore(first);
            assertNothingMore(second);
            assertThat(queue("workers:job-pool|volatile").consumerCount()).isEqualTo(2);
            first.close();
            second.close();
        }
        assertThat(queue("workers:job-pool|volatile")).as("a non-durable shared subscription goes with its last"
                + " consumer").isNull();
        publish("jobs", "nobody listens");
        try (Connection connection = connect("workers")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer again = session.createSharedConsumer(session.createTopic("jobs"), "job-pool");
            publish("jobs", "j5");
            assertThat(receive(again, 1)).containsExactly("j5");
            assertNothingMore(again);
        }
    }

    @Test
    void aSharedDurableSubscriptionWithoutClientIdIsSharedAcrossConnectionsAndKeepsCollecting() throws Exception {
        try (Connection one = connect(null); Connection two = connect(null)) {
            Session s1 = one.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session s2 = two.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer c1 = s1.createSharedDurableConsumer(s1.createTopic("audit"), "auditors");
            MessageConsumer c2 = s2.createSharedDurableConsumer(s2.createTopic("audit"), "auditors");
            publish("audit", "a1", "a2", "a3", "a4");
            List<String> received = new ArrayList<>(receive(c1, 2));
            received.addAll(receive(c2, 2));
            assertThat(received).containsExactlyInAnyOrder("a1", "a2", "a3", "a4");
            assertThat(queue("auditors|global").consumerCount()).isEqualTo(2);
        }
        publish("audit", "a5");
        try (Connection three = connect(null)) {
            Session session = three.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer c3 = session.createSharedDurableConsumer(session.createTopic("audit"), "auditors");
            assertThat(receive(c3, 1)).containsExactly("a5");
            c3.close();
            session.unsubscribe("auditors");
        }
        assertThat(queue("auditors|global")).isNull();
    }

    @Test
    void unsubscribeDeletesTheSubscriptionWithItsMessagesAndKeepsNothingSentAfterwards() throws Exception {
        try (Connection connection = connect("reader")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createDurableSubscriber(session.createTopic("news"), "headlines").close();
            publish("news", "held when unsubscribed");
            assertThat(queue("reader:headlines").depthMessages()).isEqualTo(1);
            session.unsubscribe("headlines");
            assertThat(queue("reader:headlines")).isNull();
            publish("news", "sent after unsubscribe");
            MessageConsumer fresh = session.createDurableSubscriber(session.createTopic("news"), "headlines");
            assertNothingMore(fresh);
            publish("news", "sent to the new subscription");
            assertThat(receive(fresh, 1)).containsExactly("sent to the new subscription");
            fresh.close();
            session.unsubscribe("headlines");
        }
    }

    @Test
    void unsubscribingAnUnknownNameIsAnInvalidDestination() throws Exception {
        try (Connection withId = connect("nobody"); Connection withoutId = connect(null)) {
            Session session = withId.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThatThrownBy(() -> session.unsubscribe("never-made"))
                    .isInstanceOf(InvalidDestinationException.class);
            Session global = withoutId.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThatThrownBy(() -> global.unsubscribe("never-made"))
                    .isInstanceOf(InvalidDestinationException.class);
        }
    }

    @Test
    void unsubscribingASubscriptionWithAnActiveConsumerIsRefusedAndItStays() throws Exception {
        try (Connection consuming = connect(null); Connection other = connect(null)) {
            Session session = consuming.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer active = session.createSharedDurableConsumer(session.createTopic("alarms"), "on-call");
            Session otherSession = other.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThatThrownBy(() -> otherSession.unsubscribe("on-call"))
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("cannot unsubscribe")
                    .hasMessageContaining("1 active consumer");
            publish("alarms", "still subscribed");
            assertThat(receive(active, 1)).containsExactly("still subscribed");
            active.close();
            otherSession.unsubscribe("on-call");
        }
        assertThat(queue("on-call|global")).isNull();
    }

    @Test
    void aSecondConsumerOfAnUnsharedDurableSubscriptionIsRefused() throws Exception {
        try (Connection first = connect("single"); Connection second = connect("single")) {
            Session s1 = first.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer owner = s1.createDurableSubscriber(s1.createTopic("ticks"), "tick-sub");
            Session s2 = second.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThatThrownBy(() -> s2.createDurableSubscriber(s2.createTopic("ticks"), "tick-sub"))
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("already has an active consumer");
            assertThatThrownBy(() -> s2.createSharedDurableConsumer(s2.createTopic("ticks"), "tick-sub"))
                    .as("a shared and an unshared durable subscription may not share a name")
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("exists");
            publish("ticks", "tick");
            assertThat(receive(owner, 1)).containsExactly("tick");
            owner.close();
            s1.unsubscribe("tick-sub");
        }
    }

    @Test
    void anIdleDurableSubscriptionAskedForWithAnotherSelectorIsReplaced() throws Exception {
        try (Connection connection = connect("fickle")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createDurableConsumer(session.createTopic("colours"), "mine", "colour = 'red'", false).close();
            publishColoured("colours", "old red", "red");
            MessageConsumer blues = session.createDurableConsumer(session.createTopic("colours"), "mine",
                    "colour = 'blue'", false);
            publishColoured("colours", "new red", "red");
            publishColoured("colours", "new blue", "blue");
            assertThat(receive(blues, 1)).as("the old subscription and its message were deleted")
                    .containsExactly("new blue");
            assertNothingMore(blues);
            blues.close();
            session.unsubscribe("mine");
        }
    }

    @Test
    void aSharedSubscriptionWithConsumersCannotChangeItsSelector() throws Exception {
        try (Connection one = connect(null); Connection two = connect(null)) {
            Session s1 = one.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer reds = s1.createSharedDurableConsumer(s1.createTopic("dyes"), "dye-pool", "colour = 'red'");
            Session s2 = two.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThatThrownBy(() -> s2.createSharedDurableConsumer(s2.createTopic("dyes"), "dye-pool",
                    "colour = 'blue'"))
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("cannot change")
                    .hasMessageContaining("while it has 1 active consumer");
            publishColoured("dyes", "red", "red");
            assertThat(receive(reds, 1)).containsExactly("red");
            reds.close();
            s1.unsubscribe("dye-pool");
        }
    }

    @Test
    void aDurableSubscriptionAndASharedNonDurableOneOfTheSameNameAreDifferent() throws Exception {
        try (Connection connection = connect("twins")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic("mirror");
            MessageConsumer durable = session.createDurableConsumer(topic, "same");
            MessageConsumer shared = session.createSharedConsumer(topic, "same");
            publish("mirror", "both get it");
            assertThat(receive(durable, 1)).containsExactly("both get it");
            assertThat(receive(shared, 1)).containsExactly("both get it");
            durable.close();
            shared.close();
            session.unsubscribe("same");
        }
    }

    @Test
    void aPythonClientsDurableSubscriptionCollectsWhileDetachedAndGoesWhenClosed() throws Exception {
        PythonScript.assumeAvailable();
        String url = "amqp://guest:guest@127.0.0.1:" + broker.port();
        List<String> lines = PythonScript.run("durable_subscription.py", url, "py-client", "weather", "forecasts", "3");
        assertThat(lines).containsExactly("received m-0", "received m-1", "received m-2");
        await("closing the receiver deletes the subscription").atMost(Duration.ofSeconds(10))
                .until(() -> queue("py-client:forecasts") == null);
    }
}
