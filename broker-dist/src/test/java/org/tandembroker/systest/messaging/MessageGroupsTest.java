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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.systest.EmbeddedBroker;

/** Message groups (JMSXGroupID) with Qpid JMS and python3-qpid-proton: one consumer per group at a time, in order. */
class MessageGroupsTest {
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

    private static void send(Session session, Queue queue, String group, int from, int to) throws Exception {
        MessageProducer producer = session.createProducer(queue);
        for (int i = from; i < to; i++) {
            TextMessage message = session.createTextMessage(group + "-" + i);
            if (group != null) {
                message.setStringProperty("JMSXGroupID", group);
                message.setIntProperty("JMSXGroupSeq", i);
            }
            producer.send(message);
        }
    }

    /** Everything {@code consumer} receives until it has been quiet for {@code quietMillis}. */
    private static List<Message> drain(MessageConsumer consumer, long quietMillis) throws Exception {
        List<Message> received = new ArrayList<>();
        Message m;
        while ((m = consumer.receive(quietMillis)) != null) {
            received.add(m);
        }
        return received;
    }

    private static Map<String, List<String>> byGroup(List<Message> messages) throws Exception {
        Map<String, List<String>> groups = new TreeMap<>();
        for (Message m : messages) {
            String group = m.getStringProperty("JMSXGroupID");
            groups.computeIfAbsent(group == null ? "none" : group, g -> new ArrayList<>())
                    .add(((TextMessage) m).getText());
        }
        return groups;
    }

    @Test
    void eachGroupGoesToOneConsumerInOrderWithItsSequenceKept() throws Exception {
        try (Connection connection = broker.connect()) {
            connection.start();
            Session first = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Session second = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = first.createQueue("grouped");
            MessageConsumer a = first.createConsumer(queue);
            MessageConsumer b = second.createConsumer(queue);
            Session sending = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            for (int i = 0; i < 10; i++) {
                send(sending, queue, "red", i, i + 1);
                send(sending, queue, "blue", i, i + 1);
                send(sending, queue, null, i, i + 1);
            }

            List<Message> atA = drain(a, 1_000);
            List<Message> atB = drain(b, 1_000);

            assertThat(atA.size() + atB.size()).isEqualTo(30);
            Map<String, List<String>> groupsAtA = byGroup(atA);
            Map<String, List<String>> groupsAtB = byGroup(atB);
            for (String group : List.of("red", "blue")) {
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    expected.add(group + "-" + i);
                }
                assertThat(groupsAtA.containsKey(group) ^ groupsAtB.containsKey(group))
                        .as("%s at one consumer only: %s / %s", group, groupsAtA, groupsAtB).isTrue();
                assertThat(groupsAtA.getOrDefault(group, groupsAtB.get(group))).containsExactlyElementsOf(expected);
            }
            for (Message m : atA) {
                if (m.getStringProperty("JMSXGroupID") != null) {
                    String text = ((TextMessage) m).getText();
                    assertThat(m.getIntProperty("JMSXGroupSeq")).isEqualTo(
                            Integer.parseInt(text.substring(text.indexOf('-') + 1)));
                }
            }
        }
    }

    @Test
    void closingTheOwnerMovesTheGroupAndItsUnacknowledgedMessagesInOrderToAnotherConsumer() throws Exception {
        try (Connection connection = broker.connect()) {
            connection.start();
            Session ownerSession = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            Queue queue = ownerSession.createQueue("grouped.moved");
            MessageConsumer owner = ownerSession.createConsumer(queue);
            Session sending = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            send(sending, queue, "g", 0, 3);
            assertThat(((TextMessage) owner.receive(RECEIVE_TIMEOUT)).getText()).isEqualTo("g-0");
            owner.receive(RECEIVE_TIMEOUT).acknowledge(); // g-0 and g-1 acknowledged (client acknowledge: the session)
            assertThat(((TextMessage) owner.receive(RECEIVE_TIMEOUT)).getText()).isEqualTo("g-2");
            Session otherSession = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer other = otherSession.createConsumer(queue);
            send(sending, queue, "g", 3, 5);
            assertThat(other.receive(500)).as("the group stays with its owner while it is attached").isNull();

            ownerSession.close();

            List<String> moved = new ArrayList<>();
            for (Message m : drain(other, 1_000)) {
                moved.add(((TextMessage) m).getText());
            }
            assertThat(moved).containsExactly("g-2", "g-3", "g-4");
        }
    }

    @Test
    void pythonReceiversGetEachGroupWhole() throws Exception {
        PythonScript.assumeAvailable();
        String url = "amqp://guest:guest@127.0.0.1:" + broker.port();

        assertThat(PythonScript.run("grouped_receive.py", url, "python.grouped", "5")).containsExactly(
                "group a: one receiver True, in order True",
                "group b: one receiver True, in order True",
                "ungrouped 5");
    }
}
