package org.tandembroker.systest.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.QueueBrowser;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.systest.EmbeddedBroker;

/**
 * Priority order and last-value queues as Qpid JMS and python3-qpid-proton users meet them: JMSPriority, a queue
 * declared with {@code lastValueKey} or created with {@code ?last-value-key=}, browsing, selectors, a restart.
 */
class PriorityAndLastValueTest {
    private static final long RECEIVE_TIMEOUT = 10_000;

    @TempDir
    static Path directory;
    private static EmbeddedBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = new EmbeddedBroker(directory, etc -> {
            Path vhost = etc.resolve("default.xml");
            Files.writeString(vhost, Files.readString(vhost).replace("<queue name=\"DLQ\"/>",
                    "<queue name=\"DLQ\"/><queue name=\"quotes\" lastValueKey=\"symbol\"/>"
                            + "<queue name=\"fifo\" priority=\"false\"/>"));
        });
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static void send(Session session, String address, int priority, String text, String symbol)
            throws JMSException {
        MessageProducer producer = session.createProducer(session.createQueue(address));
        TextMessage message = session.createTextMessage(text);
        if (symbol != null) {
            message.setStringProperty("symbol", symbol);
        }
        producer.send(message, DeliveryMode.PERSISTENT, priority, 0);
        producer.close();
    }

    private static void sendPriorities(Session session, String address, int... priorities) throws JMSException {
        for (int i = 0; i < priorities.length; i++) {
            send(session, address, priorities[i], "p" + priorities[i] + "-" + i, null);
        }
    }

    private static List<String> receiveAll(MessageConsumer consumer) throws JMSException {
        List<String> texts = new ArrayList<>();
        for (Message m = consumer.receive(RECEIVE_TIMEOUT); m != null; m = consumer.receive(1_000)) {
            texts.add(((TextMessage) m).getText());
        }
        return texts;
    }

    private static List<String> browse(QueueBrowser browser) throws JMSException {
        List<String> texts = new ArrayList<>();
        Enumeration<?> messages = browser.getEnumeration();
        while (messages.hasMoreElements()) {
            texts.add(((TextMessage) messages.nextElement()).getText());
        }
        return texts;
    }

    @Test
    void jmsPriorityIsDeliveredHighestFirstAndFifoWithinAPriority() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sendPriorities(session, "jobs", 1, 8, 4, 8, 0, 9, 4);
            assertThat(receiveAll(session.createConsumer(session.createQueue("jobs"))))
                    .containsExactly("p9-5", "p8-1", "p8-3", "p4-2", "p4-6", "p1-0", "p0-4");
        }
    }

    @Test
    void aQueueWithPriorityOffDeliversInArrivalOrder() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sendPriorities(session, "fifo", 1, 9, 4);
            assertThat(receiveAll(session.createConsumer(session.createQueue("fifo"))))
                    .containsExactly("p1-0", "p9-1", "p4-2");
        }
    }

    @Test
    void aBrowserAndASelectorSeePriorityOrderAndARecoveredMessageKeepsItsPlace() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue("jobs.selected");
            sendPriorities(session, "jobs.selected", 2, 7, 5, 7);
            assertThat(browse(session.createBrowser(queue))).containsExactly("p7-1", "p7-3", "p5-2", "p2-0");
            MessageConsumer high = session.createConsumer(queue, "JMSPriority > 4");
            Message first = high.receive(RECEIVE_TIMEOUT);
            assertThat(((TextMessage) first).getText()).isEqualTo("p7-1");
            session.recover(); // back to the queue, redelivered first
            assertThat(receiveAll(high)).containsExactly("p7-1", "p7-3", "p5-2");
        }
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThat(receiveAll(session.createConsumer(session.createQueue("jobs.selected"))))
                    .as("the unacknowledged ones came back").containsExactly("p7-1", "p7-3", "p5-2", "p2-0");
        }
    }

    @Test
    void priorityOrderSurvivesARestart() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sendPriorities(session, "jobs.kept", 3, 6, 0, 6, 9);
            send(session, "prices.kept?last-value-key=symbol", 4, "IBM 1", "IBM");
            send(session, "prices.kept", 4, "IBM 2", "IBM");
        }
        broker.restart();
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            send(session, "jobs.kept", 7, "p7-after", null);
            assertThat(receiveAll(session.createConsumer(session.createQueue("jobs.kept"))))
                    .containsExactly("p9-4", "p7-after", "p6-1", "p6-3", "p3-0", "p0-2");
            send(session, "prices.kept", 4, "IBM 3", "IBM");
            assertThat(receiveAll(session.createConsumer(session.createQueue("prices.kept"))))
                    .as("the queue kept its last-value key").containsExactly("IBM 3");
        }
    }

    @Test
    void aLastValueQueueDeliversOnlyTheNewestQuotePerSymbol() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            send(session, "quotes", 4, "IBM 100", "IBM");
            send(session, "quotes", 4, "RHT 50", "RHT");
            send(session, "quotes", 4, "IBM 101", "IBM");
            send(session, "quotes", 4, "IBM 102", "IBM");
            Queue quotes = session.createQueue("quotes");
            assertThat(browse(session.createBrowser(quotes))).containsExactly("RHT 50", "IBM 102");
            assertThat(receiveAll(session.createConsumer(quotes))).containsExactly("RHT 50", "IBM 102");
        }
    }

    @Test
    void aQuoteDeliveredButNotAcknowledgedIsNotReplacedAndTheNewOneFollows() throws Exception {
        try (Connection connection = broker.connect()) {
            Session holding = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Session other = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            send(other, "quotes.held?last-value-key=symbol", 4, "IBM 1", "IBM");
            MessageConsumer holder = holding.createConsumer(holding.createQueue("quotes.held"));
            Message held = holder.receive(RECEIVE_TIMEOUT);
            assertThat(((TextMessage) held).getText()).isEqualTo("IBM 1");
            holder.close();
            send(other, "quotes.held", 4, "IBM 2", "IBM");
            send(other, "quotes.held", 4, "IBM 3", "IBM");
            held.acknowledge();
            assertThat(receiveAll(other.createConsumer(other.createQueue("quotes.held")))).containsExactly("IBM 3");
        }
    }

    @Test
    void anAddressAskingForOptionsTheQueueDoesNotHaveIsRefused() throws Exception {
        try (Connection connection = broker.connect()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Throwable refused = catchThrowable(() -> session.createConsumer(
                    session.createQueue("quotes?last-value-key=isin")));
            assertThat(refused).isInstanceOf(JMSException.class)
                    .hasMessageContaining("queue 'quotes' exists with other options");
            Throwable malformed = catchThrowable(() -> session.createProducer(
                    session.createQueue("quotes.new?exclusive=true")));
            assertThat(malformed).isInstanceOf(JMSException.class)
                    .hasMessageContaining("unknown queue option 'exclusive'");
        }
    }

    @Test
    void pythonSendersPriorityAndLastValueAreHonoured() throws Exception {
        PythonScript.assumeAvailable();
        String url = "amqp://guest:guest@127.0.0.1:" + broker.port();
        assertThat(PythonScript.run("priority.py", url, "python.jobs", "1", "9", "4", "9"))
                .containsExactly("p9-1", "p9-3", "p4-2", "p1-0");
        assertThat(PythonScript.run("last_value.py", url, "python.quotes", "IBM:1", "RHT:5", "IBM:2"))
                .containsExactly("RHT:5", "IBM:2");
    }
}
