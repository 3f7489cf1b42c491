package org.tandembroker.core.config;

import java.time.Duration;
import java.util.Optional;

/**
 * The operators' interface ({@code <management>} in the broker file): the JMX connector, the metrics endpoint and
 * the disk-space watermark. A broker file without {@code <management>} has all three off ({@link #OFF}); the
 * shipped {@code etc/broker.xml} turns JMX on at port 9001. Served by the management plugin (broker-jmx).
 *
 * @param jmx           the JMX connector server (RMI)
 * @param metrics       the Prometheus metrics endpoint (HTTP)
 * @param diskWatermark the free-space watermark below which a master refuses publishes
 */
public record ManagementConfig(Jmx jmx, Metrics metrics, DiskWatermark diskWatermark) {

    public static final int DEFAULT_JMX_PORT = 9001;
    public static final int DEFAULT_METRICS_PORT = 9404;
    public static final Duration DEFAULT_DISK_CHECK_INTERVAL = DiskWatermark.DEFAULT_CHECK_INTERVAL;

    /** Everything off: what a broker file without {@code <management>} gets. */
    public static final ManagementConfig OFF = new ManagementConfig(Jmx.OFF, Metrics.OFF, DiskWatermark.OFF);

    /**
     * The JMX connector server. Its RMI registry and its RMI server share {@code port}, so one port (one firewall
     * rule, one container port mapping) suffices; clients use {@code service:jmx:rmi:///jndi/rmi://HOST:PORT/jmxrmi}.
     *
     * @param enabled     whether it runs
     * @param host        the address to bind (0.0.0.0: every interface)
     * @param port        the registry's and the server's port
     * @param rmiHostname the host name written into the RMI stubs, which clients connect to after the registry
     *                    lookup ({@code java.rmi.server.hostname}); empty: {@code host} unless that is a
     *                    wildcard, else the JVM's default (this machine's address)
     * @param tls         key material when the connector (registry and server) uses TLS
     */
    public record Jmx(boolean enabled, String host, int port, Optional<String> rmiHostname, Optional<TlsConfig> tls) {
        public static final Jmx OFF = new Jmx(false, "0.0.0.0", 9001, Optional.empty(), Optional.empty());
    }

    /**
     * The operators' HTTP endpoint: {@code /metrics} in Prometheus' text format and the health checks
     * ({@code /health/live}, {@code /health/ready}, {@code /health}). Bound to loopback unless {@code host} says
     * otherwise.
     *
     * @param enabled        whether it runs
     * @param host           the address to bind (default 127.0.0.1)
     * @param port           the HTTP (or HTTPS) port
     * @param tls            key material when it serves HTTPS
     * @param authentication who may read {@code /metrics} and {@code /health}; the probes {@code /health/live} and
     *                       {@code /health/ready} answer everyone (they say up or down, nothing more)
     */
    public record Metrics(boolean enabled, String host, int port, Optional<TlsConfig> tls,
                          HttpAuthentication authentication) {
        public static final String DEFAULT_HOST = "127.0.0.1";
        public static final Metrics OFF = new Metrics(false, DEFAULT_HOST, 9404);

        public Metrics {
            tls = tls == null ? Optional.empty() : tls;
            authentication = authentication == null ? HttpAuthentication.NONE : authentication;
        }

        /** Plain HTTP without authentication. */
        public Metrics(boolean enabled, String host, int port) {
            this(enabled, host, port, Optional.empty(), HttpAuthentication.NONE);
        }

        /** {@code http} or {@code https}. */
        public String scheme() {
            return tls.isPresent() ? "https" : "http";
        }
    }

    /** Who may read the HTTP endpoint's metrics and detailed health. */
    public enum HttpAuthentication {
        /** Everyone who reaches the port (bind it to loopback or a monitoring network). */
        NONE,
        /**
         * HTTP basic authentication against the broker's users file: a user with a management role ({@code monitor}
         * or {@code admin}), as for JMX. Use it with TLS: basic authentication sends the password in every request.
         */
        USERS
    }

    /**
     * The disk-space watermark. Every {@code checkInterval} the space each store may still write is read from the
     * store's own figures (JE's available log size, which counts the volume's free space, {@code maxDisk} and
     * {@code je.freeDisk}); below {@code freeBytes} a master refuses new publishes, above it again publishes resume.
     *
     * @param freeBytes     the watermark in bytes; 0 = off
     * @param checkInterval how often the figures are read
     */
    public record DiskWatermark(long freeBytes, Duration checkInterval) {
        // Nested constants do not refer to the outer class: that would make class initialization circular.
        public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(5);
        public static final DiskWatermark OFF = new DiskWatermark(0, DEFAULT_CHECK_INTERVAL);

        public boolean enabled() {
            return freeBytes > 0;
        }
    }

    /** Whether the plugin has anything to do. */
    public boolean anyEnabled() {
        return jmx.enabled() || metrics.enabled() || diskWatermark.enabled();
    }
}
