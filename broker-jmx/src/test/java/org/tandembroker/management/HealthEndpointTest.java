package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.PasswordHash;

/**
 * The health endpoint beside the metrics: the probes, the JSON report, its status codes on a standalone broker and
 * on both nodes of a pair, and the endpoint over HTTPS with basic authentication.
 */
class HealthEndpointTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path directory;
    private final List<AutoCloseable> started = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    @Test
    void aStandaloneBrokerIsLiveReadyAndServing() throws Exception {
        int port = TestNode.freePort();
        Path etc = standaloneFiles(port, "");
        Broker broker = Broker.start(BrokerConfigLoader.load(etc.resolve("broker.xml")), directory.resolve("w"));
        started.add(broker);
        HttpClient client = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + port;

        assertThat(get(client, base + "/health/live", null).statusCode()).isEqualTo(200);
        HttpResponse<String> ready = get(client, base + "/health/ready", null);
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("serving\n");
        HttpResponse<String> health = get(client, base + "/health", null);
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.headers().firstValue("Content-Type")).hasValue("application/json");
        JsonNode report = JSON.readTree(health.body());
        assertThat(report.get("status").asText()).isEqualTo("serving");
        assertThat(report.get("ready").asBoolean()).isTrue();
        JsonNode host = report.get("virtualHosts").get(0);
        assertThat(host.get("name").asText()).isEqualTo("plain");
        assertThat(host.get("standing").asText()).isEqualTo("SERVING");
        assertThat(host.get("storeType").asText()).isEqualTo("memory");
        assertThat(host.has("replication")).isFalse();
        assertThat(broker.isReady()).isTrue();
    }

    @Test
    void theMasterServesTheReplicaIsReadyButNotServingAndTheMasterReportsItsLag() throws Exception {
        TestNode master = TestNode.start(directory, "node-1", TestNode.options().designatedPrimary(true));
        started.add(master);
        TestNode replica = TestNode.start(directory, "node-2", TestNode.options().helper(master));
        started.add(replica);
        HttpClient client = HttpClient.newHttpClient();
        String masterBase = "http://127.0.0.1:" + master.metricsPort;
        String replicaBase = "http://127.0.0.1:" + replica.metricsPort;

        await("node-2 a replica").atMost(Duration.ofSeconds(60)).until(() ->
                get(client, replicaBase + "/health", null).statusCode() == 200);
        assertThat(get(client, masterBase + "/health/ready", null).statusCode()).isEqualTo(200);
        assertThat(get(client, replicaBase + "/health/ready", null).statusCode()).isEqualTo(503);
        assertThat(get(client, replicaBase + "/health/live", null).statusCode()).isEqualTo(200);
        JsonNode replicaReport = JSON.readTree(get(client, replicaBase + "/health", null).body());
        assertThat(replicaReport.get("status").asText()).isEqualTo("replica");
        JsonNode replicaHost = replicaReport.get("virtualHosts").get(0);
        assertThat(replicaHost.get("standing").asText()).isEqualTo("REPLICA");
        assertThat(replicaHost.get("replication").get("nodeState").asText()).isEqualTo("REPLICA");
        assertThat(replicaHost.get("replication").get("master").asText()).isEqualTo("node-1");
        await("node-1 reports node-2's lag").atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode lags = JSON.readTree(get(client, masterBase + "/health", null).body())
                    .get("virtualHosts").get(0).get("replication").get("replicaLags");
            return lags.size() == 1 && lags.get(0).get("replica").asText().equals("node-2");
        });
        JsonNode masterHost = JSON.readTree(get(client, masterBase + "/health", null).body())
                .get("virtualHosts").get(0);
        assertThat(masterHost.get("role").asText()).isEqualTo("MASTER");
        assertThat(masterHost.get("replication").get("designatedPrimary").asBoolean()).isTrue();
        assertThat(replica.linesWith("BRK-1004")).hasSize(1);
    }

    @Test
    void overHttpsMetricsAndTheReportNeedAUserWithARoleWhileTheProbesAnswerEveryone() throws Exception {
        int port = TestNode.freePort();
        Path etc = Files.createDirectories(directory.resolve("etc"));
        Path keyStore = etc.resolve("metrics.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "metrics", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", keyStore.toString(), "-storepass", "changeit",
                "-keypass", "changeit", "-ext", "SAN=dns:localhost,ip:127.0.0.1").inheritIO().start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).isZero();
        standaloneFiles(port, " authentication=\"users\" keyStore=\"metrics.p12\" keyStorePassword=\"changeit\"");
        OperationalLog log = new OperationalLog();
        List<String> lines = new CopyOnWriteArrayList<>();
        log.addObserver(lines::add);
        started.add(Broker.start(BrokerConfigLoader.load(etc.resolve("broker.xml")), directory.resolve("w"), log));
        HttpClient client = HttpClient.newBuilder().sslContext(trusting(keyStore)).build();
        String base = "https://localhost:" + port;

        assertThat(get(client, base + "/health/live", null).statusCode()).isEqualTo(200);
        assertThat(get(client, base + "/health/ready", null).statusCode()).isEqualTo(200);
        HttpResponse<String> anonymous = get(client, base + "/metrics", null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(value ->
                assertThat(value).startsWith("Basic"));
        assertThat(get(client, base + "/health", null).statusCode()).isEqualTo(401);
        assertThat(get(client, base + "/metrics", basic("guest", "guest")).statusCode()).isEqualTo(401);
        assertThat(get(client, base + "/metrics", basic("watcher", "wrong")).statusCode()).isEqualTo(401);
        HttpResponse<String> monitor = get(client, base + "/metrics", basic("watcher", "watcher"));
        assertThat(monitor.statusCode()).isEqualTo(200);
        assertThat(monitor.body()).contains("tandem_messages_in_total");
        assertThat(get(client, base + "/health", basic("watcher", "watcher")).statusCode()).isEqualTo(200);
        assertThat(lines).filteredOn(line -> line.startsWith("CON-1004"))
                .anySatisfy(line -> assertThat(line).contains("no HTTP basic credentials"))
                .anySatisfy(line -> assertThat(line).contains("'guest' has no management role"))
                .hasSizeGreaterThanOrEqualTo(4);
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("health https://127.0.0.1:" + port));
    }

    private Path standaloneFiles(int metricsPort, String metricsAttributes) throws Exception {
        Path etc = Files.createDirectories(directory.resolve("etc"));
        Files.writeString(etc.resolve("broker.xml"), """
                <broker>
                  <listeners><listener name="amqp" host="127.0.0.1" port="0"/></listeners>
                  <virtualHosts><virtualHost name="plain" file="plain.xml"/></virtualHosts>
                  <management>
                    <metrics port="%d"%s/>
                  </management>
                </broker>
                """.formatted(metricsPort, metricsAttributes));
        Files.writeString(etc.resolve("plain.xml"), """
                <virtualHost name="plain"><store type="memory"/></virtualHost>
                """);
        Files.writeString(etc.resolve("users"), String.join("\n",
                "watcher:" + PasswordHash.create("watcher".toCharArray(), 1000).encode() + ":role=monitor",
                "guest:" + PasswordHash.create("guest".toCharArray(), 1000).encode(), ""));
        return etc;
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> get(HttpClient client, String url, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static SSLContext trusting(Path keyStore) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            trusted.load(in, "changeit".toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
