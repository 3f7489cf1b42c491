package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker process killed with SIGKILL while producers send: after a restart on the same store, every message
 * whose send the broker settled is there (zero loss). Messages in flight at the kill may or may not be.
 */
class KillNineRecoveryIT {
    @TempDir
    Path directory;

    @Test
    void everySettledMessageSurvivesKillNine() throws Exception {
        Path brokerFile = TestBrokerFiles.write(directory.resolve("etc"), "");
        Path work = directory.resolve("work");
        Set<String> settled = ConcurrentHashMap.newKeySet();
        int producers = 4;
        CountDownLatch enoughSent = new CountDownLatch(producers);

        try (BrokerProcess broker = BrokerProcess.start(brokerFile, work)) {
            Thread[] threads = new Thread[producers];
            for (int p = 0; p < producers; p++) {
                int id = p;
                threads[p] = new Thread(() -> produceUntilBrokerDies(broker.uri(), id, settled, enoughSent));
                threads[p].start();
            }
            assertThat(enoughSent.await(120, TimeUnit.SECONDS)).as("each producer had 200 sends settled").isTrue();
            broker.kill9();
            for (Thread t : threads) {
                t.join(60_000);
            }
        }
        assertThat(settled.size()).isGreaterThanOrEqualTo(producers * 200);

        Set<String> recovered = new HashSet<>();
        try (BrokerProcess broker = BrokerProcess.start(brokerFile, work);
             Connection c = new JmsConnectionFactory("guest", "guest", broker.uri()).createConnection()) {
            c.start();
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("kill9"));
            Message m;
            while ((m = consumer.receive(3_000)) != null) {
                recovered.add(((TextMessage) m).getText());
            }
            assertThat(broker.terminate()).as("exit code after SIGTERM").isEqualTo(143);
            assertThat(broker.output()).as("graceful shutdown logged; the broker printed:%n%s",
                    String.join("\n", broker.output())).anyMatch(l -> l.contains("BRK-1005 : Stopped"));
        }
        Set<String> lost = new HashSet<>(settled);
        lost.removeAll(recovered);
        assertThat(lost).as("settled messages missing after kill -9 (of %d settled, %d recovered)",
                settled.size(), recovered.size()).isEmpty();
    }

    private static void produceUntilBrokerDies(String uri, int id, Set<String> settled, CountDownLatch enoughSent) {
        try (Connection c = new JmsConnectionFactory("guest", "guest", uri).createConnection()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("kill9"));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (int i = 0; ; i++) {
                String text = "p" + id + "-" + i;
                producer.send(session.createTextMessage(text));
                settled.add(text);
                if (i == 199) {
                    enoughSent.countDown();
                }
            }
        } catch (Exception brokerGone) {
            enoughSent.countDown();
        }
    }
}
