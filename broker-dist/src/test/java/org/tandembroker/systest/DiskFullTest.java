package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.oplog.OperationalLog;

/** A store that runs out of disk refuses publishes clearly, says why in its log, and loses nothing it settled. */
class DiskFullTest {
    private static final String SMALL_DISK = """
            <maxDisk>3MB</maxDisk>
            <envConfig><name>je.log.fileMax</name><value>1000000</value></envConfig>
            """;

    @TempDir
    Path directory;

    @Test
    void fullDiskRefusesPublishesWithResourceLimitAndKeepsEverySettledMessage() throws Exception {
        Path work = directory.resolve("work");
        Path small = TestBrokerFiles.write(directory.resolve("small"), "", SMALL_DISK);
        List<String> settled = new ArrayList<>();
        List<String> logLines = new CopyOnWriteArrayList<>();
        OperationalLog log = new OperationalLog();
        log.addObserver(logLines::add);
        JMSException refusal = null;
        try (Broker broker = Broker.start(BrokerConfigLoader.load(small, Map.of()), work, log);
             Connection c = new JmsConnectionFactory("guest", "guest", uri(broker)).createConnection()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("filling"));
            String body = "x".repeat(8 * 1024);
            for (int i = 0; i < 2_000 && refusal == null; i++) {
                try {
                    producer.send(session.createTextMessage(i + ":" + body));
                    settled.add(Integer.toString(i));
                } catch (JMSException e) {
                    refusal = e;
                }
            }
        }
        assertThat(refusal).as("a publish was refused before 2000 x 8 KiB filled a 3 MB store").isNotNull();
        assertThat(refusal.getMessage()).containsIgnoringCase("disk");
        assertThat(logLines).anyMatch(l -> l.startsWith("MST-1008"));
        assertThat(settled).isNotEmpty();

        Path roomy = TestBrokerFiles.write(directory.resolve("roomy"), "");
        List<String> recovered = new ArrayList<>();
        try (Broker broker = Broker.start(BrokerConfigLoader.load(roomy, Map.of()), work);
             Connection c = new JmsConnectionFactory("guest", "guest", uri(broker)).createConnection()) {
            c.start();
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("filling"));
            Message m;
            while ((m = consumer.receive(3_000)) != null) {
                String text = ((TextMessage) m).getText();
                recovered.add(text.substring(0, text.indexOf(':')));
            }
        }
        assertThat(recovered).as("every settled message, in order, after restarting with room").containsExactlyElementsOf(settled);
    }

    private static String uri(Broker broker) {
        String address = broker.boundAddresses().get(0);
        return "amqp://127.0.0.1:" + address.substring(address.lastIndexOf(':') + 1);
    }
}
