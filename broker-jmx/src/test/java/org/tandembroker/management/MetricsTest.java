package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import jakarta.jms.Connection;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Set;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Metrics of a running HA master in Prometheus' text format over HTTP and in JMX; gone when the broker stops. */
class MetricsTest {
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
    void thePrometheusEndpointServesTheBrokersMetricNames() throws Exception {
        node = TestNode.start(directory, "node-1", TestNode.options());
        try (Connection connection = node.amqp()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("orders"));
            for (int i = 0; i < 5; i++) {
                producer.send(session.createTextMessage("order " + i));
            }
            java.util.Enumeration<?> browsed = session.createBrowser(session.createQueue("orders")).getEnumeration();
            int seen = 0;
            while (browsed.hasMoreElements()) {
                browsed.nextElement();
                seen++;
            }
            assertThat(seen).isEqualTo(5);

            HttpResponse<String> response = scrape();

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                    assertThat(type).startsWith("text/plain; version=0.0.4"));
            assertThat(response.body()).contains(
                    "tandem_messages_in_total{vhost=\"test\"} 5.0",
                    "tandem_messages_in_bytes_total{vhost=\"test\"}",
                    "tandem_publishes_refused_total{vhost=\"test\"} 0.0",
                    "tandem_connections{vhost=\"test\"} 1.0",
                    "tandem_queue_depth_messages{queue=\"orders\",vhost=\"test\"} 5.0",
                    "tandem_queue_depth_bytes{queue=\"orders\",vhost=\"test\"}",
                    "tandem_queue_consumers{queue=\"orders\",vhost=\"test\"} 0.0",
                    "tandem_queue_messages_in_total{queue=\"orders\",vhost=\"test\"} 5.0",
                    "tandem_queue_messages_out_total{queue=\"orders\",vhost=\"test\"} 0.0",
                    "tandem_queue_bytes_in_bytes_total{queue=\"orders\",vhost=\"test\"}",
                    "tandem_queue_bytes_out_bytes_total{queue=\"orders\",vhost=\"test\"} 0.0",
                    "tandem_queue_messages_browsed_total{queue=\"orders\",vhost=\"test\"} 5.0",
                    "tandem_store_commit_latency_seconds_count{vhost=\"test\"} 5\n",
                    "tandem_store_commit_latency_seconds_sum{vhost=\"test\"}",
                    "tandem_store_commits_total{vhost=\"test\"}",
                    "tandem_store_flushes_total{vhost=\"test\"}",
                    "tandem_store_flushed_commits_total{vhost=\"test\"}",
                    "tandem_store_batch_largest{vhost=\"test\"}",
                    "tandem_store_fsyncs_total{vhost=\"test\"}",
                    "tandem_store_role{role=\"MASTER\",vhost=\"test\"} 1.0",
                    "tandem_store_role{role=\"REPLICA\",vhost=\"test\"} 0.0",
                    "tandem_store_writable{vhost=\"test\"} 1.0",
                    "tandem_store_log_available_bytes{vhost=\"test\"}",
                    "tandem_store_log_total_bytes{vhost=\"test\"}",
                    "tandem_store_log_active_bytes{vhost=\"test\"}",
                    "tandem_store_log_reserved_bytes{vhost=\"test\"}",
                    "tandem_store_log_protected_bytes{vhost=\"test\"}",
                    "tandem_store_disk_watermark_bytes{vhost=\"test\"} 0.0",
                    "tandem_store_disk_low{vhost=\"test\"} 0.0",
                    "tandem_ha_designated_primary{vhost=\"test\"} 0.0",
                    "jvm_memory_used_bytes");
            assertThat(response.body()).doesNotContain("tandem_store_log_available_bytes{vhost=\"test\"} NaN");
        }
    }

    @Test
    void metricsAreAlsoMbeansAndDisappearWithTheBroker() throws Exception {
        node = TestNode.start(directory, "node-1", TestNode.options());

        Set<ObjectName> names = node.asAdmin(mbsc -> mbsc.queryNames(new ObjectName("org.tandembroker.metrics:*"),
                null));
        assertThat(names).extracting(ObjectName::toString).anyMatch(name -> name.contains("tandemMessagesIn"));
        node.close();

        assertThat(catchThrowable(this::scrape)).isInstanceOf(IOException.class);
        assertThat(catchThrowable(() -> node.jmx("admin", "admin"))).isInstanceOf(IOException.class);
    }

    @Test
    void anythingButMetricsIsNotFound() throws Exception {
        node = TestNode.start(directory, "node-1", TestNode.options());

        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + node.metricsPort + "/")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).contains("/metrics");
    }

    private HttpResponse<String> scrape() throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + node.metricsPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
