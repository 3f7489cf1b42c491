package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import javax.management.InstanceNotFoundException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per queue, JMX and the metrics endpoint show the messages waiting for their delivery time, the active groups and
 * the messages beyond the heap window.
 */
class DelayedAndGroupedQueueFiguresTest {
    private static final String TIMED = "org.tandembroker:type=Queue,virtualHost=test,name=timed";
    private static final String GROUPED = "org.tandembroker:type=Queue,virtualHost=test,name=grouped";
    private static final String DEEP = "org.tandembroker:type=Queue,virtualHost=test,name=deep";

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
    void delayedMessagesAndActiveGroupsAreCountedPerQueue() throws Exception {
        node = TestNode.start(directory, "node-1", TestNode.options());
        try (Connection connection = node.amqp()) {
            connection.start();
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            MessageProducer delayed = session.createProducer(session.createQueue("timed"));
            delayed.setDeliveryDelay(600_000);
            delayed.send(session.createTextMessage("later 1"));
            delayed.send(session.createTextMessage("later 2"));
            Queue grouped = session.createQueue("grouped");
            MessageProducer producer = session.createProducer(grouped);
            for (String group : new String[] {"g1", "g2", "g1"}) {
                Message message = session.createTextMessage(group);
                message.setStringProperty("JMSXGroupID", group);
                producer.send(message);
            }
            MessageConsumer consumer = session.createConsumer(grouped);
            for (int i = 0; i < 3; i++) {
                assertThat(consumer.receive(10_000)).isNotNull();
            }

            // A new queue's MBean and meters appear at the management sampler's next pass.
            await().atMost(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(InstanceNotFoundException.class)
                    .untilAsserted(() -> {
                        assertThat(node.attribute(TIMED, "MessagesDelayed")).isEqualTo(2);
                        assertThat(node.attribute(TIMED, "DepthMessages")).as("delayed messages count in the depth")
                                .isEqualTo(2L);
                        assertThat(node.attribute(GROUPED, "ActiveGroups")).isEqualTo(2);
                        assertThat(scrape()).contains(
                                "tandem_queue_messages_delayed{queue=\"timed\",vhost=\"test\"} 2.0",
                                "tandem_queue_groups_active{queue=\"grouped\",vhost=\"test\"} 2.0",
                                "tandem_queue_groups_active{queue=\"timed\",vhost=\"test\"} 0.0");
                    });
        }
    }

    @Test
    void messagesBeyondAQueuesHeapWindowAreCountedAsPagedAndInTheDepth() throws Exception {
        node = TestNode.start(directory, "node-1", TestNode.options().memory("<memory queueWindow=\"2\"/>"));
        try (Connection connection = node.amqp()) {
            Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("deep"));
            for (int i = 0; i < 5; i++) {
                producer.send(session.createTextMessage("m" + i));
            }

            await().atMost(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(InstanceNotFoundException.class)
                    .untilAsserted(() -> {
                        assertThat(node.attribute(DEEP, "MessagesPaged")).isEqualTo(3L);
                        assertThat(node.attribute(DEEP, "DepthMessages")).isEqualTo(5L);
                        assertThat(scrape()).contains(
                                "tandem_queue_messages_paged{queue=\"deep\",vhost=\"test\"} 3.0");
                    });

            connection.start();
            MessageConsumer consumer = session.createConsumer(session.createQueue("deep"));
            for (int i = 0; i < 5; i++) {
                assertThat(((jakarta.jms.TextMessage) consumer.receive(10_000)).getText()).isEqualTo("m" + i);
            }
        }
    }

    private String scrape() throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + node.metricsPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
