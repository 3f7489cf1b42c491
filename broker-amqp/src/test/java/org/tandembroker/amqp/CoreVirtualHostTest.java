package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
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
import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transaction.Coordinator;
import org.apache.qpid.proton.amqp.transaction.Declare;
import org.apache.qpid.proton.amqp.transaction.Declared;
import org.apache.qpid.proton.amqp.transaction.Discharge;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Sender;
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
    /** A configured queue that holds at most one message. */
    private static final String FULL_QUEUE = "core-one-only";

    private final ExecutorService queuePool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private BrokerVirtualHost virtualHost;
    private ProtocolFrontEnd frontEnd;
    private String uri;
    private int port;

    @BeforeEach
    void start() throws Exception {
        OperationalLog log = new OperationalLog();
        VirtualHostConfig hostConfig = new VirtualHostConfig(Path.of("core.xml"), "core",
                new StoreSettings(Path.of("core.xml"), "memory", Map.of(), List.of(), List.of()), true,
                new QueueConfig("defaults", true, 0, 0, 0, 0, null),
                List.of(new QueueConfig(FULL_QUEUE, true, 1, 0, 0, 0, null)), List.of(), List.of());
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
        port = Integer.parseInt(bound.substring(bound.lastIndexOf(':') + 1));
        uri = "amqp://127.0.0.1:" + port;
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

    @Test
    void aTransactionWithARefusedMessageRollsBackWholeAndItsCommitFails() throws Exception {
        try (Connection connection = factory("").createConnection()) {
            connection.start();
            Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            plain.createProducer(plain.createQueue(FULL_QUEUE)).send(plain.createTextMessage("fills it"));

            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            session.createProducer(session.createQueue("core-txn-partial")).send(session.createTextMessage("first"));
            session.createProducer(session.createQueue(FULL_QUEUE)).send(session.createTextMessage("refused"));
            Throwable commit = catchThrowable(session::commit);

            // the broker answers amqp:transaction:rollback; Qpid JMS 2.5 reports that as "in doubt"
            assertThat(commit).isInstanceOf(JMSException.class)
                    .hasMessageContaining("transaction rolled back: a message of the transaction was refused")
                    .hasMessageContaining("queue 'core-one-only' is full");
            assertThat(virtualHost.queue("core-txn-partial").orElseThrow().depthMessages()).isZero();
            assertThat(virtualHost.queue(FULL_QUEUE).orElseThrow().depthMessages()).isEqualTo(1);
        }
    }

    /**
     * The discharge arrives in the same read as the transfers, before the core's answer for them comes back to the
     * event loop: it must wait for that answer (it once committed without them, and a refused message was lost).
     */
    @Test
    void aDischargeInTheSameReadAsItsTransfersWaitsForTheirOutcomes() throws Exception {
        try (Connection connection = factory("").createConnection()) {
            Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            plain.createProducer(plain.createQueue(FULL_QUEUE)).send(plain.createTextMessage("fills it"));
        }
        try (RawAmqpClient client = RawAmqpClient.opening(port, RunningFrontEnd.USER, RunningFrontEnd.PASSWORD,
                "core")) {
            org.apache.qpid.proton.engine.Session session = client.connection().session();
            session.open();
            Sender coordinator = sender(session, "txn", new Coordinator());
            Sender accepted = sender(session, "to-partial", target("core-raw-partial"));
            Sender refused = sender(session, "to-full", target(FULL_QUEUE));
            client.exchangeUntil(() -> coordinator.getRemoteState() == EndpointState.ACTIVE
                    && accepted.getRemoteState() == EndpointState.ACTIVE
                    && refused.getRemoteState() == EndpointState.ACTIVE && refused.getCredit() > 0
                    && coordinator.getCredit() > 0);
            Delivery declare = send(coordinator, "declare", new AmqpValue(new Declare()), null);
            client.exchangeUntil(() -> declare.getRemoteState() != null);
            Binary txnId = ((Declared) declare.getRemoteState()).getTxnId();

            // one write: two transactional transfers and the discharge
            Delivery first = send(accepted, "m1", new AmqpValue("first"), txnId);
            Delivery second = send(refused, "m2", new AmqpValue("refused"), txnId);
            Discharge commit = new Discharge();
            commit.setTxnId(txnId);
            commit.setFail(false);
            Delivery discharge = send(coordinator, "discharge", new AmqpValue(commit), null);
            client.exchangeUntil(() -> discharge.getRemoteState() != null && second.getRemoteState() != null);

            assertThat(discharge.getRemoteState()).isInstanceOf(Rejected.class);
            assertThat(((Rejected) discharge.getRemoteState()).getError().getCondition().toString())
                    .isEqualTo("amqp:transaction:rollback");
            assertThat(((TransactionalState) second.getRemoteState()).getOutcome()).isInstanceOf(Rejected.class);
            assertThat(first.getRemoteState()).isInstanceOf(TransactionalState.class);
            assertThat(((TransactionalState) first.getRemoteState()).getOutcome()).isInstanceOf(Accepted.class);
        }
        assertThat(virtualHost.queue("core-raw-partial").orElseThrow().depthMessages()).isZero();
        assertThat(virtualHost.queue(FULL_QUEUE).orElseThrow().depthMessages()).isEqualTo(1);
    }

    private static Target target(String address) {
        Target target = new Target();
        target.setAddress(address);
        return target;
    }

    private static Sender sender(org.apache.qpid.proton.engine.Session session, String name,
                                 org.apache.qpid.proton.amqp.transport.Target target) {
        Sender sender = session.sender(name);
        sender.setTarget(target);
        sender.setSource(new Source());
        sender.open();
        return sender;
    }

    /** Sends one message (in transaction {@code txnId} when not null); Proton writes it with the next exchange. */
    private static Delivery send(Sender sender, String tag, AmqpValue body, Binary txnId) {
        org.apache.qpid.proton.message.Message message = Proton.message();
        message.setBody(body);
        message.setDurable(true);
        byte[] buffer = new byte[1024];
        int length = message.encode(buffer, 0, buffer.length);
        Delivery delivery = sender.delivery(tag.getBytes(StandardCharsets.UTF_8));
        if (txnId != null) {
            TransactionalState state = new TransactionalState();
            state.setTxnId(txnId);
            delivery.disposition(state);
        }
        sender.send(buffer, 0, length);
        sender.advance();
        return delivery;
    }
}
