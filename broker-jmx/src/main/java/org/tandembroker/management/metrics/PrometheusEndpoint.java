package org.tandembroker.management.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.exec.NamedThreadFactory;

/**
 * Serves {@code GET /metrics} in Prometheus' text format (version 0.0.4, or OpenMetrics when the scraper asks for
 * it) with the JDK's HTTP server. No authentication: bind it to an address only the monitoring network reaches.
 *
 * <p><b>Threads.</b> One daemon thread, {@code metrics-http}, answers requests; a scrape reads meters only (no
 * store or JE call: store figures come from the sampler's last reading).
 */
public final class PrometheusEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PrometheusEndpoint.class);

    private final HttpServer server;
    private final ExecutorService executor;

    private PrometheusEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Binds {@code host:port} and starts serving.
     *
     * @throws IOException with one line naming the address when it cannot be bound (e.g. the port is in use)
     */
    public static PrometheusEndpoint start(String host, int port, PrometheusMeterRegistry registry)
            throws IOException {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (BindException e) {
            throw new IOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage()
                    + " (is another broker using it? set <management><metrics port=...> in the broker file)", e);
        }
        server.createContext("/metrics", exchange -> scrape(exchange, registry));
        server.createContext("/", PrometheusEndpoint::notFound);
        ExecutorService executor = Executors.newSingleThreadExecutor(new NamedThreadFactory("metrics-http", true));
        server.setExecutor(executor);
        server.start();
        return new PrometheusEndpoint(server, executor);
    }

    /** The bound address (host:port). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private static void scrape(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            String accept = exchange.getRequestHeaders().getFirst("Accept");
            String contentType = accept != null && accept.contains("application/openmetrics-text")
                    ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                    : "text/plain; version=0.0.4; charset=utf-8";
            byte[] body = registry.scrape(contentType).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", contentType);
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (RuntimeException e) {
            LOG.warn("A metrics scrape failed: {}", e.toString());
        }
    }

    private static void notFound(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = "Tandem metrics are at /metrics\n".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(404, body.length);
            exchange.getResponseBody().write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
