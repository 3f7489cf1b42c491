package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.Session;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.amqp.fake.InMemoryVirtualHost;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.vhost.Admission;

class ConnectionTest {
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
    void wrongPasswordIsRefusedWithASecurityExceptionAndLogged() {
        JmsConnectionFactory factory = new JmsConnectionFactory(RunningFrontEnd.USER, "not-the-password", broker.uri());

        assertThatThrownBy(() -> factory.createConnection().start()).isInstanceOf(JMSSecurityException.class);
        await().until(() -> broker.logged("CON-1004"));
        assertThat(broker.logLines).noneMatch(line -> line.contains("not-the-password"));
        await().until(() -> broker.connectionCount() == 0);
    }

    @Test
    void passwordsAreCheckedOffTheNetworkThreads() throws Exception {
        try (Connection connection = broker.connectionFactory().createConnection()) {
            connection.start();
        }
        assertThat(broker.authenticator.callingThreads()).isNotEmpty().allMatch(name -> name.startsWith("amqp-sasl"));
    }

    @Test
    void anonymousLoginWorksOnlyWhenEnabled() throws Exception {
        assertThatThrownBy(() -> new JmsConnectionFactory(broker.uri()).createConnection().start())
                .isInstanceOf(JMSSecurityException.class);

        try (RunningFrontEnd open = RunningFrontEnd.startAllowingAnonymous();
             Connection connection = new JmsConnectionFactory(open.uri()).createConnection()) {
            connection.start();
            connection.createSession(false, Session.AUTO_ACKNOWLEDGE).createProducer(null);
            assertThat(open.virtualHost.connections()).singleElement()
                    .satisfies(c -> assertThat(c.describe()).contains("anonymous"));
        }
    }

    @Test
    void unknownVirtualHostIsRefusedNamingIt() {
        JmsConnectionFactory factory = broker.connectionFactory("?amqp.vhost=nope");

        assertThatThrownBy(() -> factory.createConnection().start())
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("virtual host 'nope' does not exist");
        assertThat(broker.logged("CON-1003")).isTrue();
    }

    @Test
    void anIdleTimeoutTooShortToHonourIsRefusedNamingTheMinimumWhileNoneOrTheMinimumIsServed() throws Exception {
        // A client asking for 20 ms would have the broker write a heartbeat every 10 ms (found by the fuzzer). Qpid JMS
        // announces half its amqp.idleTimeout in its open.
        assertThatThrownBy(() -> broker.connectionFactory("?amqp.idleTimeout=40").createConnection().start())
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("idle timeout 20 ms is shorter than this broker supports (at least 100 ms");

        for (String served : new String[] {"?amqp.idleTimeout=0", "?amqp.idleTimeout=200"}) {
            try (Connection connection = broker.connectionFactory(served).createConnection()) {
                connection.start();
                connection.createSession(false, Session.AUTO_ACKNOWLEDGE).close();
            }
        }
    }

    @Test
    void virtualHostNotActiveHereIsRefusedWithAClearReason() {
        broker.virtualHost.refuseAdmissions(c -> new Admission.Refused(ErrorKind.NOT_ACTIVE,
                "virtual host test is not active on this node (replica); try another node", null));

        assertThatThrownBy(() -> broker.connectionFactory().createConnection().start())
                .isInstanceOf(JMSException.class)
                .hasMessageContaining("not active on this node (replica); try another node");
    }

    @Test
    void redirectCarriesNetworkHostPortAndVirtualHost() throws Exception {
        broker.virtualHost.refuseAdmissions(c -> new Admission.Refused(ErrorKind.NOT_ACTIVE,
                "virtual host test is served by another node", "127.0.0.1:45678"));

        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            client.exchangeUntil(client::remoteClosed);

            assertThat(client.connection().getRemoteProperties())
                    .containsEntry(Symbol.valueOf("amqp:connection-establishment-failed"), true);
            ErrorCondition condition = client.connection().getRemoteCondition();
            assertThat(condition.getCondition().toString()).isEqualTo("amqp:connection:redirect");
            @SuppressWarnings("unchecked")
            Map<Object, Object> info = (Map<Object, Object>) condition.getInfo();
            assertThat(info)
                    .containsEntry(Symbol.valueOf("network-host"), "127.0.0.1")
                    .containsEntry(Symbol.valueOf("port"), 45678)
                    .containsEntry(Symbol.valueOf("hostname"), "test");
        }
    }

    @Test
    void failoverClientFollowsTheRedirectToTheActiveNode() throws Exception {
        try (RunningFrontEnd active = RunningFrontEnd.start(new InMemoryVirtualHost("test"))) {
            broker.virtualHost.refuseAdmissions(c -> new Admission.Refused(ErrorKind.NOT_ACTIVE,
                    "virtual host test is active on another node", "127.0.0.1:" + active.port()));
            JmsConnectionFactory factory = new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD,
                    "failover:(" + broker.uri() + ")?failover.maxReconnectAttempts=20");

            try (Connection connection = factory.createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                session.createProducer(session.createQueue("after-redirect")).send(session.createTextMessage("hi"));
            }
            assertThat(active.virtualHost.queue("after-redirect").enqueuedCount()).isEqualTo(1);
            assertThat(broker.virtualHost.connections()).isEmpty();
        }
    }

    @Test
    void connectionsBeyondTheLimitAreRefused() throws Exception {
        ConnectionLimits one = new ConnectionLimits(64 * 1024, 1024 * 1024, java.time.Duration.ofSeconds(30), 1, 10);
        try (RunningFrontEnd small = RunningFrontEnd.start(one);
             Connection first = small.connectionFactory().createConnection()) {
            first.start();

            assertThatThrownBy(() -> small.connectionFactory().createConnection().start())
                    .isInstanceOf(JMSException.class)
                    .hasMessageContaining("too many connections");
            first.createSession(false, Session.AUTO_ACKNOWLEDGE).createProducer(null); // the first still works
        }
    }

    @Test
    void brokerCanCloseAConnectionAndTheClientIsTold() throws Exception {
        try (Connection connection = broker.connectionFactory().createConnection()) {
            CompletableFuture<JMSException> told = new CompletableFuture<>();
            connection.setExceptionListener(told::complete);
            connection.start();
            await().until(() -> broker.virtualHost.connections().size() == 1);

            broker.virtualHost.connections().get(0).closeByBroker("virtual host test is being passivated", null);

            assertThat(told.get(10, TimeUnit.SECONDS)).hasMessageContaining("virtual host test is being passivated");
            await().until(() -> broker.virtualHost.deregistrations() == 1);
        }
    }

    @Test
    void connectionEndRollsBackOpenTransactionsAndDeregisters() throws Exception {
        Connection connection = broker.connectionFactory().createConnection();
        Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
        session.createProducer(session.createQueue("txn")).send(session.createTextMessage("uncommitted"));
        connection.close();

        await().until(() -> broker.virtualHost.deregistrations() == 1);
        assertThat(broker.virtualHost.transactions()).isNotEmpty()
                .allSatisfy(t -> assertThat(t.outcome()).isEqualTo("rolled back"));
        assertThat(broker.virtualHost.queue("txn").enqueuedCount()).isZero();
        assertThat(broker.logged("CON-1001")).isTrue();
        await().until(() -> broker.logged("CON-1002"));
    }

    @Test
    void silentClientIsClosedWhenItsIdleTimeoutExpires() throws Exception {
        ConnectionLimits quick = new ConnectionLimits(64 * 1024, 1024 * 1024, java.time.Duration.ofMillis(300), 10, 10);
        try (RunningFrontEnd strict = RunningFrontEnd.start(quick);
             RawAmqpClient client = RawAmqpClient.opening(strict.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            client.exchangeUntil(client::remoteOpened);
            client.exchangeUntil(client::remoteClosed); // this client never sends heartbeats

            assertThat(client.connection().getRemoteCondition().getCondition().toString())
                    .isEqualTo("amqp:resource-limit-exceeded");
            await().until(() -> strict.connectionCount() == 0);
        }
    }

    @Test
    void brokerSendsHeartbeatsWithinTheClientsIdleTimeout() throws Exception {
        try (RawAmqpClient client = RawAmqpClient.opening(broker.port(), RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, "test")) {
            client.transport().setIdleTimeout(400); // advertised as 200 ms; the broker's own timeout is 30 s
            client.exchangeUntil(client::remoteOpened);
            int afterOpen = client.received().length;

            client.exchangeUntil(() -> client.received().length > afterOpen); // only an empty frame can come now

            assertThat(client.remoteClosed()).isFalse();
            assertThat((client.received().length - afterOpen) % 8).isZero(); // empty AMQP frames, 8 bytes each
        }
    }

    @Test
    void socketThatNeverSpeaksIsClosedAfterTheIdleTimeout() throws Exception {
        ConnectionLimits quick = new ConnectionLimits(64 * 1024, 1024 * 1024, java.time.Duration.ofMillis(300), 10, 10);
        try (RunningFrontEnd strict = RunningFrontEnd.start(quick);
             RawAmqpClient client = RawAmqpClient.bytesOnly(strict.port())) {
            client.readUntilClosed();

            assertThat(client.endOfStream()).isTrue();
            assertThat(client.received()).isEmpty();
        }
    }
}
