package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import jakarta.jms.Topic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.vhost.AddressKind;
import org.tandembroker.core.queue.MessageFilter;
import org.tandembroker.core.queue.SubscriptionOptions;

class ConsumingTest {
    private RunningFrontEnd broker;

    @BeforeEach
    void startBroker() throws Exception {
        broker = RunningFrontEnd.start();
    }

    @AfterEach
    void stopBroker() {
        broker.close();
    }

    @Test
    void consumerWithoutPrefetchPullsWithDrainAndGetsAnAnswerWhenTheQueueIsEmpty() throws Exception {
        // a drain the broker never answered would fail the connection after amqp.drainTimeout
        try (Connection connection = broker.connectionFactory("?jms.prefetchPolicy.all=0&amqp.drainTimeout=5000")
                .createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("pull");
            MessageConsumer consumer = session.createConsumer(queue);

            assertThat(consumer.receiveNoWait()).isNull();
            assertThat(consumer.receive(100)).isNull();

            session.createProducer(queue).send(session.createTextMessage("now there is one"));
            assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("now there is one");
            assertThat(consumer.receiveNoWait()).isNull();
            session.createProducer(queue).send(session.createTextMessage("and another"));
            assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("and another");
        }
    }

    @Test
    void releasedAndRejectedOutcomesReachTheCore() throws Exception {
        int released = 3;
        int rejected = 2;
        try (Connection connection = broker.connectionFactory().createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue("outcomes");
            session.createProducer(queue).send(session.createTextMessage("judge me"));
            MessageConsumer consumer = session.createConsumer(queue);

            TextMessage first = (TextMessage) consumer.receive(10_000);
            first.setIntProperty("JMS_AMQP_ACK_TYPE", released);
            first.acknowledge();

            TextMessage again = (TextMessage) consumer.receive(10_000);
            assertThat(again.getText()).isEqualTo("judge me");
            assertThat(again.getJMSRedelivered()).isFalse(); // released: not counted as a failed delivery
            again.setIntProperty("JMS_AMQP_ACK_TYPE", rejected);
            again.acknowledge();

            await().until(() -> broker.virtualHost.queue("outcomes").depth() == 0);
            assertThat(consumer.receiveNoWait()).isNull();
        }
    }

    @Test
    void consumerCreditComesFromThePrefetch() throws Exception {
        try (Connection connection = broker.connectionFactory("?jms.prefetchPolicy.all=3").createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue("prefetch");
            for (int i = 0; i < 10; i++) {
                session.createProducer(queue).send(session.createTextMessage("m" + i));
            }
            MessageConsumer consumer = session.createConsumer(queue);
            for (int i = 0; i < 10; i++) {
                TextMessage message = (TextMessage) consumer.receive(10_000);
                assertThat(message.getText()).isEqualTo("m" + i);
                message.acknowledge();
            }
        }
    }

    @Test
    void durableTopicSubscriberAsksForADurableSubscriptionNamedAfterClientAndSubscription() throws Exception {
        try (Connection connection = broker.connectionFactory().createConnection()) {
            connection.setClientID("billing");
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic("invoices");
            session.createDurableSubscriber(topic, "monthly").close();
            session.createConsumer(topic).close();
        }
        assertThat(broker.virtualHost.subscriptionRequests())
                .extracting(r -> r.address(), r -> r.options())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("invoices", new SubscriptionOptions(false,
                                "billing:monthly", AddressKind.TOPIC, MessageFilter.ALL)),
                        org.assertj.core.groups.Tuple.tuple("invoices",
                                new SubscriptionOptions(false, null, AddressKind.TOPIC, MessageFilter.ALL)));
    }

    @Test
    void preSettledConsumerAsksForAtMostOnce() throws Exception {
        try (Connection connection = broker.connectionFactory("?jms.presettlePolicy.presettleConsumers=true")
                .createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createConsumer(session.createQueue("q")).close();
        }
        assertThat(broker.virtualHost.subscriptionRequests()).singleElement()
                .satisfies(r -> assertThat(r.options())
                        .isEqualTo(new SubscriptionOptions(true, null, AddressKind.QUEUE, MessageFilter.ALL)));
    }

    @Test
    void aSelectorAndNoLocalReachTheCoreAsTheConsumersFilter() throws Exception {
        try (Connection connection = broker.connectionFactory().createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createConsumer(session.createQueue("q"), "region = 'eu'").close();
            session.createConsumer(session.createTopic("t"), null, true).close();
        }
        assertThat(broker.virtualHost.subscriptionRequests()).extracting(r -> r.options().filter())
                .satisfiesExactly(
                        selected -> {
                            assertThat(selected.selector().text()).isEqualTo("region = 'eu'");
                            assertThat(selected.noLocalConnection()).isNull();
                        },
                        noLocal -> {
                            assertThat(noLocal.selector()).isNull();
                            assertThat(noLocal.noLocalConnection()).startsWith("connection-");
                        });
    }

    @Test
    void consumerOfAnUnknownQueueIsRefusedWithTheBrokersReason() throws Exception {
        broker.virtualHost.declareUnknown("missing");
        try (Connection connection = broker.connectionFactory().createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);

            assertThatThrownBy(() -> session.createConsumer(session.createQueue("missing")))
                    .isInstanceOf(jakarta.jms.InvalidDestinationException.class)
                    .hasMessageContaining("no queue 'missing'");
        }
    }
}
