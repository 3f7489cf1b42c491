package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TemporaryQueue;
import jakarta.jms.TextMessage;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.amqp.fake.FakeAuthenticator;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.BrokerVirtualHosts;
import org.tandembroker.core.vhost.VirtualHostState;

/** The front end in front of the core's real virtual host on the memory store: the contract as implemented. */
class CoreVirtualHostTest {
    private static final long RECEIVE_TIMEOUT = 10_000;

    private final ExecutorService queuePool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private BrokerVirtualHost virtualHost;
    private ProtocolFrontEnd frontEnd;
    private String uri;

    @BeforeEach
    void start() throws Exception {
        OperationalLog log = new OperationalLog();
        VirtualHostConfig hostConfig = new VirtualHostConfig(Path.of("core.xml"), "core",
                new StoreSettings(Path.of("core.xml"), "memory", Map.of(), List.of(), List.of()), true,
                new QueueConfig("defaults", true, 0, 0, 0, 0, null), List.of(), List.of(), List.of());
        virtualHost = new BrokerVirtualHost(hostConfig, MemoryMessageStore::new, log, new ContentBudget(64L << 20),
                queuePool, housekeeping);
        virtualHost.start();
        assertThat(virtualHost.firstRoleDecided().get(10, TimeUnit.SECONDS)).isEqualTo(VirtualHostState.ACTIVE);

        BrokerConfig config = new BrokerConfig(Path.of("broker.xml"),
                List.of(new ListenerConfig("amqp", "127.0.0.1", 0, Optional.empty())), null, Path.of("users"),
                false, RunningFrontEnd.TEST_LIMITS, 64L << 20, List.of(hostConfig), "core");
        frontEnd = new AmqpFrontEndFactory().create(new FrontEndContext(config, Path.of("."),
                new BrokerVirtualHosts(Map.of("core", virtualHost), "core", Set.of()),
                new FakeAuthenticator(Map.of(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD), false), log));
        frontEnd.start();
        String bound = frontEnd.boundAddresses().get(0);
        uri = "amqp://127.0.0.1:" + bound.substring(bound.lastIndexOf(':') + 1);
    }

    @AfterEach
    void stop() throws Exception {
        frontEnd.close();
        virtualHost.stop().get(10, TimeUnit.SECONDS);
        queuePool.shutdownNow();
        housekeeping.shutdownNow();
    }

    private JmsConnectionFactory factory(String options) {
        return new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, uri + options);
    }

    @Test
    void messageRoundTripsThroughACoreQueue() throws Exception {
        try (Connection connection = factory("").createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("core-orders");
            session.createProducer(queue).send(session.createTextMessage("through the core"));
            TextMessage received = (TextMessage) session.createConsumer(queue).receive(RECEIVE_TIMEOUT);
            assertThat(received.getText()).isEqualTo("through the core");
        }
    }

    @Test
    void anAddressWhoseQueueOptionsConflictWithTheExistingQueueIsRefusedNamingTheOptionAndTheConnectionCarriesOn()
            throws Exception {
        try (Connection connection = factory("").createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createQueue("ticks?last-value-key=symbol"))
                    .send(session.createTextMessage("first"));

            for (String conflicting : List.of("ticks?priority=false", "ticks?last-value-key=isin")) {
                Throwable refused = catchThrowable(() -> session.createConsumer(session.createQueue(conflicting)));
                assertThat(refused).as(conflicting).isInstanceOf(JMSException.class)
                        .hasMessageContaining("queue 'ticks' exists with other options")
                        .hasMessageContaining("asks for: " + conflicting.substring(conflicting.indexOf('?') + 1));
            }
            TextMessage received = (TextMessage) session.createConsumer(session.createQueue("ticks"))
                    .receive(RECEIVE_TIMEOUT);
            assertThat(received.getText()).isEqualTo("first");
            assertThat(virtualHost.queue("ticks").orElseThrow().config().options().lastValueKey()).isEqualTo("symbol");
        }
    }

    @Test
    void transactionCommitsThroughTheCore() throws Exception {
        try (Connection connection = factory("").createConnection()) {
            connection.start();
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            Queue queue = session.createQueue("core-txn");
            session.createProducer(queue).send(session.createTextMessage("committed"));
            session.commit();
            MessageConsumer consumer = session.createConsumer(queue);
            assertThat(((TextMessage) consumer.receive(RECEIVE_TIMEOUT)).getText()).isEqualTo("committed");
            session.commit();
            assertThat(consumer.receiveNoWait()).isNull();
        }
    }

    @Test
    void pullConsumerDrainsAgainstTheCore() throws Exception {
        try (Connection connection = factory("?jms.prefetchPolicy.all=0&amqp.drainTimeout=5000").createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("core-pull");
            MessageConsumer consumer = session.createConsumer(queue);
            assertThat(consumer.receiveNoWait()).isNull();
            session.createProducer(queue).send(session.createTextMessage("pulled"));
            assertThat(((TextMessage) consumer.receive(RECEIVE_TIMEOUT)).getText()).isEqualTo("pulled");
        }
    }

    @Test
    void temporaryQueueLivesInTheCore() throws Exception {
        try (Connection connection = factory("").createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue temporary = session.createTemporaryQueue();
            MessageConsumer consumer = session.createConsumer(temporary);
            session.createProducer(temporary).send(session.createTextMessage("temporary"));
            assertThat(((TextMessage) consumer.receive(RECEIVE_TIMEOUT)).getText()).isEqualTo("temporary");
        }
    }

    @Test
    void unacknowledgedMessageComesBackMarkedRedelivered() throws Exception {
        try (Connection connection = factory("").createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue("core-retry");
            session.createProducer(queue).send(session.createTextMessage("again"));
            assertThat(session.createConsumer(queue).receive(RECEIVE_TIMEOUT)).isNotNull();
        }
        try (Connection connection = factory("").createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Message again = session.createConsumer(session.createQueue("core-retry")).receive(RECEIVE_TIMEOUT);
            assertThat(again).isNotNull();
            assertThat(again.getJMSRedelivered()).isTrue();
            assertThat(again.getIntProperty("JMSXDeliveryCount")).isGreaterThanOrEqualTo(2);
            again.acknowledge();
        }
    }

    @Test
    void topicAddressWithKeyDeliversToItsSubscriber() throws Exception {
        try (Connection connection = factory("").createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createConsumer(session.createTopic("amq.topic/news.#"));
            session.createProducer(session.createTopic("amq.topic/news.eu")).send(session.createTextMessage("eu news"));
            assertThat(((TextMessage) subscriber.receive(RECEIVE_TIMEOUT)).getText()).isEqualTo("eu news");
        }
    }
}
