package org.tandembroker.amqp;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.tandembroker.amqp.fake.FakeAuthenticator;
import org.tandembroker.amqp.fake.InMemoryRegistry;
import org.tandembroker.amqp.fake.InMemoryVirtualHost;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.ManagementConfig;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.config.TlsConfig;
import org.tandembroker.core.security.AccessControl;
import org.tandembroker.core.security.SecurityStatistics;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.oplog.OperationalLog;

/** The AMQP front end on an ephemeral port in front of an in-memory virtual host, for one test. */
final class RunningFrontEnd implements AutoCloseable {
    static final String USER = "guest";
    static final String PASSWORD = "guest-secret";
    static final ConnectionLimits TEST_LIMITS =
            new ConnectionLimits(64 * 1024, 16L * 1024 * 1024, Duration.ofSeconds(30), 100, 50);

    final InMemoryVirtualHost virtualHost;
    final FakeAuthenticator authenticator;
    final List<String> logLines = new CopyOnWriteArrayList<>();
    private final ProtocolFrontEnd frontEnd;

    final SecurityStatistics statistics = new SecurityStatistics();

    private RunningFrontEnd(InMemoryVirtualHost virtualHost, ConnectionLimits limits, Optional<TlsConfig> tls,
                            boolean anonymous) throws Exception {
        this(virtualHost, limits, new ListenerConfig(tls.isPresent() ? "amqps" : "amqp", "127.0.0.1", 0, tls),
                anonymous, SecurityConfig.DEFAULTS, null);
    }

    /**
     * The general case: any listener, security settings and permissions file ({@code permissions} null: none;
     * the failure delays off unless {@code security} sets them).
     */
    RunningFrontEnd(InMemoryVirtualHost virtualHost, ConnectionLimits limits, ListenerConfig listener,
                    boolean anonymous, SecurityConfig security, Path permissions) throws Exception {
        this.virtualHost = virtualHost;
        this.authenticator = new FakeAuthenticator(Map.of(USER, PASSWORD), anonymous);
        OperationalLog log = new OperationalLog();
        log.addObserver(logLines::add);
        BrokerConfig config = new BrokerConfig(Path.of("broker.xml"), List.of(listener), null, Path.of("users"),
                anonymous, limits, 64L * 1024 * 1024, List.of(), virtualHost.name(), ManagementConfig.OFF,
                security == SecurityConfig.DEFAULTS ? NO_DELAYS : security);
        accessControl = permissions == null
                ? AccessControl.unrestricted(log, statistics, "test without permissions")
                : AccessControl.load(permissions, log, statistics);
        FrontEndContext context = new FrontEndContext(config, Path.of("."), new InMemoryRegistry(virtualHost),
                authenticator, log, accessControl);
        frontEnd = new AmqpFrontEndFactory().create(context);
        frontEnd.start();
    }

    /** The defaults without failure delays: most tests fail logins on purpose and must not wait for them. */
    static final SecurityConfig NO_DELAYS = new SecurityConfig(Optional.empty(), false, Duration.ZERO, Duration.ZERO);

    final AccessControl accessControl;

    static RunningFrontEnd start() throws Exception {
        return start(TEST_LIMITS);
    }

    static RunningFrontEnd start(ConnectionLimits limits) throws Exception {
        return new RunningFrontEnd(new InMemoryVirtualHost("test"), limits, Optional.empty(), false);
    }

    static RunningFrontEnd startAllowingAnonymous() throws Exception {
        return new RunningFrontEnd(new InMemoryVirtualHost("test"), TEST_LIMITS, Optional.empty(), true);
    }

    static RunningFrontEnd startWithTls(TlsConfig tls) throws Exception {
        return new RunningFrontEnd(new InMemoryVirtualHost("test"), TEST_LIMITS, Optional.of(tls), false);
    }

    static RunningFrontEnd start(InMemoryVirtualHost virtualHost) throws Exception {
        return new RunningFrontEnd(virtualHost, TEST_LIMITS, Optional.empty(), false);
    }

    int port() {
        String address = frontEnd.boundAddresses().get(0);
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    String boundAddress() {
        return frontEnd.boundAddresses().get(0);
    }

    String uri() {
        return "amqp://127.0.0.1:" + port();
    }

    /** The bound host of the (first) listener, as a URI host. */
    String host() {
        String address = frontEnd.boundAddresses().get(0);
        return address.substring(address.indexOf("://") + 3, address.lastIndexOf(':'));
    }

    /** A factory for guest; {@code options} is appended to the URI (e.g. "?jms.forceAsyncSend=true"). */
    JmsConnectionFactory connectionFactory(String options) {
        return new JmsConnectionFactory(USER, PASSWORD, uri() + options);
    }

    JmsConnectionFactory connectionFactory() {
        return connectionFactory("");
    }

    int connectionCount() {
        return ((AmqpServer) frontEnd).connectionCount();
    }

    boolean logged(String code) {
        return logLines.stream().anyMatch(line -> line.startsWith(code));
    }

    @Override
    public void close() {
        frontEnd.close();
        virtualHost.shutdown();
    }
}
