package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.MessageProducer;
import jakarta.jms.ResourceAllocationException;
import jakarta.jms.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.amqp.fake.InMemoryVirtualHost;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.ConnectionLimits;

class PublishSettlementTest {
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
    void sendCompletesOnlyAfterThePublishFutureCompletes() throws Exception {
        broker.virtualHost.holdPublishes(true);
        try (Connection connection = broker.connectionFactory().createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("durable-q"));

            CompletableFuture<Void> send = CompletableFuture.runAsync(() -> sendText(session, producer, "hold me"));
            await().until(() -> broker.virtualHost.heldPublishes().size() == 1);
            assertThat(send).isNotDone();

            broker.virtualHost.takeHeldPublish().complete();
            send.get(10, TimeUnit.SECONDS);
            assertThat(broker.virtualHost.queue("durable-q").enqueuedCount()).isEqualTo(1);
        }
    }

    @Test
    void failedPublishGivesTheSenderTheBrokersError() throws Exception {
        broker.virtualHost.holdPublishes(true);
        try (Connection connection = broker.connectionFactory().createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("full-q"));

            CompletableFuture<Void> send = CompletableFuture.runAsync(() -> sendText(session, producer, "too much"));
            await().until(() -> broker.virtualHost.heldPublishes().size() == 1);
            broker.virtualHost.takeHeldPublish()
                    .fail(new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED, "queue full-q is full (1000 messages)"));

            assertThatThrownBy(() -> send.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().cause()
                    .isInstanceOf(ResourceAllocationException.class)
                    .hasMessageContaining("queue full-q is full (1000 messages)");
            assertThat(broker.virtualHost.queue("full-q").enqueuedCount()).isZero();
        }
    }

    @Test
    void producerIsThrottledByLinkCreditWhilePublishesAreUnsettled() throws Exception {
        int linkCredit = RunningFrontEnd.TEST_LIMITS.linkCredit();
        int total = linkCredit * 3;
        broker.virtualHost.holdPublishes(true);
        try (Connection connection = broker.connectionFactory("?jms.forceAsyncSend=true").createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("slow-store"));

            CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < total; i++) {
                    sendText(session, producer, "m" + i);
                }
            });
            await().until(() -> broker.virtualHost.publishAttempts() == linkCredit);
            assertThat(sending).isNotDone();
            assertThat(broker.virtualHost.publishAttempts()).isEqualTo(linkCredit);

            broker.virtualHost.holdPublishes(false);
            InMemoryVirtualHost.HeldPublish held;
            while ((held = broker.virtualHost.takeHeldPublish()) != null) {
                held.complete();
            }
            sending.get(10, TimeUnit.SECONDS);
            await().until(() -> broker.virtualHost.queue("slow-store").enqueuedCount() == total);
        }
    }

    @Test
    void producerForAnUnknownAddressIsRefusedWithTheBrokersReason() throws Exception {
        broker.virtualHost.declareUnknown("nowhere");
        try (Connection connection = broker.connectionFactory().createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);

            assertThatThrownBy(() -> session.createProducer(session.createQueue("nowhere")))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining("no queue or exchange 'nowhere'");
            // the connection is still usable
            session.createProducer(session.createQueue("somewhere")).send(session.createTextMessage("ok"));
            assertThat(broker.virtualHost.queue("somewhere").enqueuedCount()).isEqualTo(1);
        }
    }

    @Test
    void anonymousRelayRejectsAMessageForAnUnknownAddress() throws Exception {
        broker.virtualHost.declareUnknown("nowhere");
        try (Connection connection = broker.connectionFactory().createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(null);

            assertThatThrownBy(() -> producer.send(session.createQueue("nowhere"), session.createTextMessage("x")))
                    .isInstanceOf(InvalidDestinationException.class)
                    .hasMessageContaining("nowhere");
            producer.send(session.createQueue("somewhere"), session.createTextMessage("ok"));
            assertThat(broker.virtualHost.queue("somewhere").enqueuedCount()).isEqualTo(1);
        }
    }

    @Test
    void failedCommitReachesTheClientWithTheBrokersReason() throws Exception {
        broker.virtualHost.failCommits(new BrokerException(ErrorKind.TRANSACTION_ROLLBACK, "store refused the commit"));
        try (Connection connection = broker.connectionFactory().createConnection()) {
            Session session = connection.createSession(true, Session.SESSION_TRANSACTED);
            session.createProducer(session.createQueue("txn")).send(session.createTextMessage("lost"));

            // Qpid JMS 2.5.0 reports a discharge rejected with amqp:transaction:rollback as "in doubt"
            // (JmsTransactionInDoubtException) and any other rejection as TransactionRolledBackException
            assertThatThrownBy(session::commit)
                    .isInstanceOf(jakarta.jms.JMSException.class)
                    .hasMessageContaining("store refused the commit")
                    .hasMessageContaining("amqp:transaction:rollback");
            assertThat(broker.virtualHost.queue("txn").enqueuedCount()).isZero();
        }
    }

    @Test
    void messageLargerThanTheLimitDetachesTheProducerWithMessageSizeExceeded() throws Exception {
        ConnectionLimits small = new ConnectionLimits(16 * 1024, 100 * 1024, Duration.ofSeconds(30), 10, 10);
        try (RunningFrontEnd strict = RunningFrontEnd.start(small);
             Connection connection = strict.connectionFactory().createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("limited"));
            BytesMessage big = session.createBytesMessage();
            big.writeBytes(new byte[200 * 1024]);

            assertThatThrownBy(() -> producer.send(big)).isInstanceOf(JMSException.class)
                    .hasMessageContaining("amqp:link:message-size-exceeded")
                    .hasMessageContaining("exceeds the limit of 102400 bytes");
            assertThat(strict.virtualHost.publishAttempts()).isZero();

            MessageProducer another = session.createProducer(session.createQueue("limited"));
            BytesMessage fits = session.createBytesMessage();
            fits.writeBytes(new byte[50 * 1024]);
            another.send(fits);
            assertThat(strict.virtualHost.queue("limited").enqueuedCount()).isEqualTo(1);
        }
    }

    @Test
    void publishRefusedBecauseTheNodeIsNoLongerActiveClosesTheConnectionSoClientsFailOver() throws Exception {
        broker.virtualHost.failPublishes(new BrokerException(ErrorKind.NOT_ACTIVE,
                "virtual host test is not active on this node"));
        try (Connection connection = broker.connectionFactory().createConnection()) {
            CompletableFuture<JMSException> told = new CompletableFuture<>();
            connection.setExceptionListener(told::complete);
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("q"));

            assertThatThrownBy(() -> producer.send(session.createTextMessage("m"))).isInstanceOf(JMSException.class);
            assertThat(told.get(10, TimeUnit.SECONDS))
                    .hasMessageContaining("virtual host test is not active on this node")
                    .hasMessageContaining("amqp:connection:forced");
            await().until(() -> broker.virtualHost.deregistrations() == 1);
        }
    }

    private static void sendText(Session session, MessageProducer producer, String text) {
        try {
            producer.send(session.createTextMessage(text));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

}
