package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.jms.Connection;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.Session;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The permissions reload over JMX (admins only) and the security counters on the metrics endpoint. */
class PermissionsManagementTest {
    private static final String PERMISSIONS = "org.tandembroker:type=Permissions";

    @TempDir
    Path dir;
    private TestNode node;

    @BeforeEach
    void startNode() throws Exception {
        node = TestNode.start(dir, "node-a", TestNode.options().permissions("allow user:guest consume #"));
    }

    @AfterEach
    void stopNode() {
        node.close();
    }

    private void sendAsGuest() throws Exception {
        try (Connection connection = node.amqp()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createQueue("orders")).send(session.createTextMessage("x"));
        }
    }

    @Test
    void anAdminReloadsThePermissionsOverJmxAndAMonitorMayNot() throws Exception {
        assertThatThrownBy(this::sendAsGuest).isInstanceOf(JMSSecurityException.class);
        Files.write(node.etc.resolve("permissions"), List.of("allow user:guest send,consume #"));

        try (JMXConnector watcher = node.jmx("watcher", "watcher")) {
            assertThatThrownBy(() -> watcher.getMBeanServerConnection().invoke(new ObjectName(PERMISSIONS),
                    "reloadPermissions", new Object[0], new String[0])).isInstanceOf(SecurityException.class);
        }
        Object answer = node.invoke(PERMISSIONS, "reloadPermissions", new Object[0]);

        assertThat((String) answer).startsWith("reloaded");
        assertThat(node.attribute(PERMISSIONS, "AuthorizationEnabled")).isEqualTo(true);
        assertThat((String) node.attribute(PERMISSIONS, "PermissionsFile")).endsWith("permissions");
        sendAsGuest();
        assertThat(node.linesWith("SEC-1002")).hasSize(2);
    }

    @Test
    void authenticationFailuresRefusalsAndDenialsAreCountedByReason() throws Exception {
        assertThatThrownBy(this::sendAsGuest).isInstanceOf(JMSSecurityException.class);
        assertThatThrownBy(() -> new JmsConnectionFactory("guest", "wrong", "amqp://127.0.0.1:" + node.amqpPort())
                .createConnection().start()).isInstanceOf(JMSSecurityException.class);

        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + node.metricsPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();

        assertThat(metrics).contains("tandem_auth_failures_total{reason=\"wrong_password\"} 1.0",
                "tandem_auth_failures_total{reason=\"unknown_user\"} 0.0",
                "tandem_connections_refused_total{reason=\"authentication\"} 1.0",
                "tandem_access_denied_total{permission=\"send\"} 1.0",
                "tandem_access_denied_total{permission=\"consume\"} 0.0");
    }
}
