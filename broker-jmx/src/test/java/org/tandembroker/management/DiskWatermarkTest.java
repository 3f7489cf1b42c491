package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.ResourceAllocationException;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.management.Attribute;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk watermark on a master: with a watermark above the space the store may write, publishes are refused with
 * amqp:resource-limit-exceeded and MST-1010 says why; lowered below it, publishes resume (MST-1011); nothing settled
 * is lost. Disk figures are JE's own.
 */
class DiskWatermarkTest {
    private static final String WATERMARK = "org.tandembroker:type=DiskWatermark";
    private static final String STORE = "org.apache.qpid:type=BDBHAMessageStore,name=test";
    private static final String VHOST = "org.tandembroker:type=VirtualHost,name=test";

    @TempDir
    Path directory;
    private TestNode node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void publishesAreRefusedBelowTheWatermarkAndResumeAboveItWithoutLosingASettledMessage() throws Exception {
        node = TestNode.start(directory, "node-1", TestNode.options()
                .disk("<disk watermark=\"1000TB\" checkInterval=\"200ms\"/>"));
        List<String> settled = new ArrayList<>();

        try (Connection connection = node.amqp()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("orders"));

            // JE's own figures say the store may write far less than 1000 TB: refused from the start.
            Throwable refused = catchThrowable(() -> producer.send(session.createTextMessage("refused")));
            assertThat(refused).isInstanceOf(ResourceAllocationException.class)
                    .hasMessageContaining("refuses new messages").hasMessageContaining("disk watermark");
            assertThat(node.linesWith("MST-1010")).singleElement().asString()
                    .contains("virtual host 'test'", "(master)", "JE available log size", "below the watermark");
            assertThat(node.attribute(VHOST, "DiskSpaceLow")).isEqualTo(true);
            assertThat(node.attribute(STORE, "DiskSpaceLow")).isEqualTo(true);
            assertThat((String[]) node.attribute(WATERMARK, "LowVirtualHosts")).containsExactly("test");
            long available = (Long) node.attribute(STORE, "AvailableLogSize");
            assertThat(available).as("JE's available log size").isPositive();

            // An operator lowers the watermark below what the store may write: publishes resume at once.
            node.asAdmin(mbsc -> {
                mbsc.setAttribute(new ObjectName(WATERMARK), new Attribute("Watermark", 1L));
                return null;
            });
            assertThat(node.linesWith("MST-1011")).singleElement().asString()
                    .contains("virtual host 'test'", "publishes are accepted again");
            for (int i = 0; i < 20; i++) {
                producer.send(session.createTextMessage("m" + i));
                settled.add("m" + i);
            }

            // Raised above it again: refused again, and what was settled stays.
            node.asAdmin(mbsc -> {
                mbsc.setAttribute(new ObjectName(WATERMARK), new Attribute("Watermark", available * 1000));
                return null;
            });
            assertThat(catchThrowable(() -> producer.send(session.createTextMessage("refused again"))))
                    .isInstanceOf(ResourceAllocationException.class);
            assertThat(node.linesWith("MST-1010")).hasSize(2);
            assertThat(node.attribute(VHOST, "PublishesRefused")).isEqualTo(2L);

            MessageConsumer consumer = session.createConsumer(session.createQueue("orders"));
            List<String> received = new ArrayList<>();
            Message message;
            while (received.size() < settled.size() && (message = consumer.receive(10_000)) != null) {
                received.add(((TextMessage) message).getText());
            }
            assertThat(received).as("consumers carry on below the watermark; every settled message is there")
                    .containsExactlyElementsOf(settled);
        }
    }

    @Test
    void theWatermarkFromTheBrokerFileIsCheckedPeriodically() throws Exception {
        node = TestNode.start(directory, "node-1", TestNode.options()
                .disk("<disk watermark=\"1MiB\" checkInterval=\"200ms\"/>"));

        assertThat(node.attribute(WATERMARK, "Watermark")).isEqualTo(1024L * 1024);
        assertThat(node.attribute(WATERMARK, "CheckIntervalMillis")).isEqualTo(200L);
        assertThat(node.attribute(VHOST, "DiskSpaceLow")).isEqualTo(false);
        assertThat(node.attribute(VHOST, "PublishRefusal")).isEqualTo("");
        await().atMost(Duration.ofSeconds(10)).until(() -> (Long) node.attribute(STORE, "ActiveLogSize") > 0);
        assertThat((Long) node.attribute(STORE, "ReservedLogSize")).isNotNegative();
        assertThat(node.linesWith("MST-1010")).isEmpty();
    }
}
