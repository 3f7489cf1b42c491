package org.tandembroker.management.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.config.ManagementConfig;
import org.tandembroker.core.config.TlsConfig;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.vhost.ManagedVirtualHost;

/**
 * The operators' HTTP endpoint ({@code <management><metrics>}), with the JDK's HTTP(S) server:
 * <ul>
 *   <li>{@code GET /metrics}: Prometheus' text format (version 0.0.4, or OpenMetrics when the scraper asks);</li>
 *   <li>{@code GET /health/live}: 200 while the broker runs (the endpoint closes first when it stops);</li>
 *   <li>{@code GET /health/ready}: 200 when this node serves clients (every virtual host standalone or master),
 *       else 503: for load balancers and Kubernetes readiness probes;</li>
 *   <li>{@code GET /health}: the {@link HealthReport} as JSON, 200 when the node is ready (each virtual host serving
 *       or a replica) and 503 when not (waiting for a master, or a failed store).</li>
 * </ul>
 * With {@code authentication="users"}, {@code /metrics} and {@code /health} need HTTP basic credentials of a user
 * with a management role (401 otherwise); the two probes answer everyone, since they say up or down only and
 * Kubernetes and load balancers probe without credentials. With a key store it serves HTTPS.
 *
 * <p><b>Threads.</b> One daemon thread, {@code metrics-http}, answers requests; they read meters and the hosts'
 * published state only (no store or JE call: store figures come from the sampler's last reading).
 */
public final class OperatorsHttpEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorsHttpEndpoint.class);

    private final HttpServer server;
    private final ExecutorService executor;
    private final String scheme;

    private OperatorsHttpEndpoint(HttpServer server, ExecutorService executor, String scheme) {
        this.server = server;
        this.executor = executor;
        this.scheme = scheme;
    }

    /**
     * Binds the configured address and starts serving.
     *
     * @param registry the Prometheus registry ({@code /metrics})
     * @param hosts    the virtual hosts ({@code /health})
     * @param brokerReady whether the broker has said it is ready
     * @throws IOException with one line naming the address when it cannot be bound, or the key store when it
     *                     cannot be used
     */
    public static OperatorsHttpEndpoint start(ManagementConfig.Metrics config, PrometheusMeterRegistry registry,
                                              List<ManagedVirtualHost> hosts, BooleanSupplier brokerReady,
                                              Authenticator authenticator, OperationalLog operationalLog)
            throws IOException {
        InetSocketAddress address = new InetSocketAddress(config.host(), config.port());
        HttpServer server;
        try {
            if (config.tls().isPresent()) {
                HttpsServer https = HttpsServer.create(address, 16);
                https.setHttpsConfigurator(new HttpsConfigurator(sslContext(config.tls().get())));
                server = https;
            } else {
                server = HttpServer.create(address, 16);
            }
        } catch (BindException e) {
            throw new IOException("cannot serve metrics and health on " + config.host() + ":" + config.port() + ": "
                    + e.getMessage() + " (is another broker using it? set <management><metrics port=...> in the "
                    + "broker file)", e);
        }
        Optional<HttpCredentials> credentials = config.authentication() == ManagementConfig.HttpAuthentication.USERS
                ? Optional.of(new HttpCredentials(authenticator, operationalLog)) : Optional.empty();
        HealthReport health = new HealthReport(hosts, brokerReady);
        server.createContext("/metrics", guarded(credentials, exchange -> scrape(exchange, registry)));
        server.createContext("/health/live", exchange -> respond(exchange, 200, "text/plain; charset=utf-8",
                "live\n".getBytes(StandardCharsets.UTF_8)));
        server.createContext("/health/ready", exchange -> {
            boolean serving = health.serving();
            respond(exchange, serving ? 200 : 503, "text/plain; charset=utf-8",
                    (serving ? "serving\n" : "not serving\n").getBytes(StandardCharsets.UTF_8));
        });
        server.createContext("/health", guarded(credentials, exchange -> {
            if (!exchange.getRequestURI().getPath().equals("/health")
                    && !exchange.getRequestURI().getPath().equals("/health/")) {
                notFound(exchange);
                return;
            }
            respond(exchange, health.ready() ? 200 : 503, "application/json", health.json());
        }));
        server.createContext("/", OperatorsHttpEndpoint::notFound);
        ExecutorService executor = Executors.newSingleThreadExecutor(new NamedThreadFactory("metrics-http", true));
        server.setExecutor(executor);
        server.start();
        return new OperatorsHttpEndpoint(server, executor, config.scheme());
    }

    /** The bound address (host:port). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** {@code http} or {@code https}. */
    public String scheme() {
        return scheme;
    }

    private static HttpHandler guarded(Optional<HttpCredentials> credentials, HttpHandler handler) {
        if (credentials.isEmpty()) {
            return handler;
        }
        return exchange -> {
            if (credentials.get().accepts(exchange.getRequestHeaders().getFirst("Authorization"),
                    exchange.getRemoteAddress())) {
                handler.handle(exchange);
                return;
            }
            exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"tandem\", charset=\"UTF-8\"");
            respond(exchange, 401, "text/plain; charset=utf-8",
                    "a user with role monitor or admin is needed\n".getBytes(StandardCharsets.UTF_8));
        };
    }

    private static void scrape(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        String accept = exchange.getRequestHeaders().getFirst("Accept");
        String contentType = accept != null && accept.contains("application/openmetrics-text")
                ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                : "text/plain; version=0.0.4; charset=utf-8";
        byte[] body;
        try {
            body = registry.scrape(contentType).getBytes(StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            LOG.warn("A metrics scrape failed: {}", e.toString());
            respond(exchange, 500, "text/plain; charset=utf-8", "scrape failed\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        respond(exchange, 200, contentType, body);
    }

    /** Answers GET (and HEAD, without a body); 405 for other methods. Closes the exchange. */
    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body)
            throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static void notFound(HttpExchange exchange) throws IOException {
        respond(exchange, 404, "text/plain; charset=utf-8",
                "Tandem serves /metrics, /health, /health/live and /health/ready\n".getBytes(StandardCharsets.UTF_8));
    }

    private static SSLContext sslContext(TlsConfig tls) throws IOException {
        try (InputStream in = Files.newInputStream(tls.keyStore())) {
            KeyStore keyStore = KeyStore.getInstance(tls.keyStoreType());
            keyStore.load(in, tls.keyStorePassword().toCharArray());
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(keyStore, tls.keyStorePassword().toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IOException("cannot use the metrics key store " + tls.keyStore() + " (" + tls.keyStoreType()
                    + "): " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
