package org.tandembroker.management.jmx;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.rmi.AlreadyBoundException;
import java.rmi.NoSuchObjectException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.ExportException;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;
import javax.management.remote.rmi.RMIJRMPServerImpl;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.rmi.ssl.SslRMIClientSocketFactory;
import org.tandembroker.core.config.ManagementConfig;
import org.tandembroker.core.config.TlsConfig;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.ReloadingKeyManager;
import org.tandembroker.management.OperatorAuthentication;

/**
 * The JMX connector server over RMI. The RMI registry and the RMI server listen on the same port (they share one
 * server socket factory), so clients and firewalls need one port, and the standard URL
 * {@code service:jmx:rmi:///jndi/rmi://HOST:PORT/jmxrmi} works (spec Example 1.2). Clients authenticate against the
 * users file ({@link UsersFileJmxAuthenticator}) and {@link RoleAccessControl} enforces their role. With a key
 * store, registry and server use TLS (clients then need {@code javax.rmi.ssl.SslRMIClientSocketFactory} for the
 * registry lookup, as for the JDK's own {@code com.sun.management.jmxremote.registry.ssl}).
 *
 * <p>The host name clients connect to after the lookup is the one in the RMI stubs: {@code rmiHostname}, else the
 * bound host when it is not a wildcard, else the JVM's default. It is set as the JVM-wide
 * {@code java.rmi.server.hostname}, which RMI reads when it exports.
 *
 * <p><b>Threads.</b> Started and closed on the plugin's caller thread; RMI runs the connections on its own threads.
 */
public final class RmiConnector implements AutoCloseable {
    private final Registry registry;
    private final JMXConnectorServer connectorServer;
    private final String clientUrl;

    private RmiConnector(Registry registry, JMXConnectorServer connectorServer, String clientUrl) {
        this.registry = registry;
        this.connectorServer = connectorServer;
        this.clientUrl = clientUrl;
    }

    /**
     * Binds the port and starts serving {@code server}.
     *
     * @throws IOException with one line naming the address when the port cannot be bound, or the key store cannot
     *                     be read
     */
    public static RmiConnector start(ManagementConfig.Jmx config, MBeanServer server, OperatorAuthentication authentication,
                                     OperationalLog operationalLog) throws IOException {
        String host = config.host();
        boolean wildcard = isWildcard(host);
        InetAddress bindAddress = wildcard ? null : InetAddress.getByName(host);
        SSLContext tls = config.tls().isPresent() ? sslContext(config.tls().get(), operationalLog) : null;
        BoundServerSocketFactory serverSockets = new BoundServerSocketFactory(bindAddress, tls);
        RMIClientSocketFactory clientSockets = tls != null ? new SslRMIClientSocketFactory() : null;

        String stubHost = config.rmiHostname().orElse(wildcard ? null : host);
        if (stubHost != null) {
            System.setProperty("java.rmi.server.hostname", stubHost);
        }

        Registry registry;
        try {
            registry = LocateRegistry.createRegistry(config.port(), clientSockets, serverSockets);
        } catch (ExportException e) {
            throw new IOException("cannot serve JMX on " + host + ":" + config.port() + ": "
                    + rootMessage(e) + " (is another broker using it? set <management><jmx port=...> in the broker"
                    + " file, or enabled=\"false\")", e);
        }
        try {
            Map<String, Object> environment = new HashMap<>();
            environment.put(JMXConnectorServer.AUTHENTICATOR,
                    new UsersFileJmxAuthenticator(authentication, operationalLog));
            // Deserialize nothing but the user name and password from clients that are not authenticated yet.
            environment.put(RMIConnectorServer.CREDENTIALS_FILTER_PATTERN,
                    "java.lang.String;[Ljava.lang.String;;!*");
            RMIJRMPServerImpl rmiServer = new RMIJRMPServerImpl(config.port(), clientSockets, serverSockets,
                    environment);
            JMXServiceURL url = new JMXServiceURL("rmi", stubHost != null ? stubHost : "localhost", config.port());
            RMIConnectorServer connectorServer = new RMIConnectorServer(url, environment, rmiServer, server);
            connectorServer.setMBeanServerForwarder(RoleAccessControl.create());
            connectorServer.start();
            try {
                registry.bind("jmxrmi", rmiServer.toStub());
            } catch (AlreadyBoundException e) {
                connectorServer.stop();
                throw new IOException("the JMX registry on port " + config.port() + " already has a connector", e);
            }
            String urlHost = stubHost != null ? stubHost : wildcard ? localHostName() : host;
            String clientUrl = "service:jmx:rmi:///jndi/rmi://" + bracket(urlHost) + ":" + config.port() + "/jmxrmi"
                    + (tls != null ? " (TLS)" : "");
            return new RmiConnector(registry, connectorServer, clientUrl);
        } catch (IOException | RuntimeException e) {
            unexport(registry);
            throw e;
        }
    }

    /** The URL operators give jconsole and the spec's Example 1.2. */
    public String clientUrl() {
        return clientUrl;
    }

    /** The JMX server's TLS: a replaced key store file is loaded again at the next handshake (BRK-1009). */
    private static SSLContext sslContext(TlsConfig tls, OperationalLog log) throws IOException {
        try {
            ReloadingKeyManager keys = new ReloadingKeyManager(tls.keyStore(), tls.keyStoreType(),
                    tls.keyStorePassword().toCharArray(), "JMX connector", line -> log.log(LogCode.BRK_1009, line));
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {keys}, null, null);
            return context;
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IOException("cannot use the JMX key store " + tls.keyStore() + " (" + tls.keyStoreType() + "): "
                    + rootMessage(e), e);
        }
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.equals("0:0:0:0:0:0:0:0");
    }

    private static String bracket(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return String.valueOf(cause.getMessage()).lines().findFirst().orElse(cause.getClass().getSimpleName());
    }

    private static void unexport(Registry registry) {
        try {
            UnicastRemoteObject.unexportObject(registry, true);
        } catch (NoSuchObjectException e) {
            // not exported
        }
    }

    /** Stops the connector (open JMX connections end) and releases the port. */
    @Override
    public void close() {
        try {
            connectorServer.stop();
        } catch (IOException e) {
            // stopping anyway
        }
        try {
            registry.unbind("jmxrmi");
        } catch (Exception e) {
            // unexported below regardless
        }
        unexport(registry);
    }

    /**
     * Server sockets for the registry and the connector: bound to the configured address (every address when
     * null), TLS when a context is given. One instance serves both, which is what lets RMI share the port.
     */
    private record BoundServerSocketFactory(InetAddress bindAddress, SSLContext tls)
            implements RMIServerSocketFactory {
        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            ServerSocket socket = tls != null ? tls.getServerSocketFactory().createServerSocket()
                    : new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(bindAddress, port), 50);
            return socket;
        }
    }
}
