package org.tandembroker.management;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.PasswordHash;

/**
 * A broker in the test JVM, configured from files written the way an operator writes them: virtual host
 * {@value #VHOST} on a {@code bdb-ha} store (a node of its own group, or joining another node's), the AMQP
 * listener on an ephemeral loopback port, JMX and metrics on free loopback ports. Users (test configuration only):
 * admin/admin (role admin), watcher/watcher (role monitor), guest/guest (no role).
 */
final class TestNode implements AutoCloseable {
    static final String VHOST = "test";
    /** Cheap password hashes: these tests are not about hashing cost. */
    private static final int ITERATIONS = 1000;

    final String nodeName;
    final int replicationPort;
    int jmxPort;
    int metricsPort;
    final Path etc;
    final Path work;
    final OperationalLog operationalLog = new OperationalLog();
    final List<String> logLines = new CopyOnWriteArrayList<>();
    private Broker broker;

    /** Options of a node. */
    static final class Options {
        String groupName = "tandem-test";
        String helperHostPort;
        boolean designatedPrimary;
        /** Off, but figures are read often so that tests need not wait. */
        String disk = "<disk watermark=\"0\" checkInterval=\"300ms\"/>";
        String storeExtras = "";
        /** A {@code <memory .../>} element of broker.xml, empty for none. */
        String memory = "";
        /** Lines of etc/permissions; null: no permissions file (authorization off). */
        List<String> permissions;

        Options permissions(String... lines) {
            permissions = List.of(lines);
            return this;
        }

        Options group(String name) {
            groupName = name;
            return this;
        }

        Options helper(TestNode node) {
            helperHostPort = "localhost:" + node.replicationPort;
            return this;
        }

        Options designatedPrimary(boolean designated) {
            designatedPrimary = designated;
            return this;
        }

        /** A {@code <memory .../>} element of broker.xml. */
        Options memory(String element) {
            memory = element;
            return this;
        }

        /** A {@code <disk .../>} element inside {@code <management>}. */
        Options disk(String element) {
            disk = element;
            return this;
        }
    }

    static Options options() {
        return new Options();
    }

    private TestNode(Path directory, String nodeName, Options options) throws IOException {
        this.nodeName = nodeName;
        this.replicationPort = freePort();
        this.jmxPort = freePort();
        this.metricsPort = freePort();
        this.etc = directory.resolve(nodeName).resolve("etc");
        this.work = directory.resolve(nodeName).resolve("work");
        operationalLog.addObserver(logLines::add);
        write(options);
    }

    /** Writes the node's files and starts it; returns once its virtual host knows its role. */
    static TestNode start(Path directory, String nodeName, Options options) throws Exception {
        TestNode node = new TestNode(directory, nodeName, options);
        for (int attempt = 1; ; attempt++) {
            try {
                node.start();
                return node;
            } catch (IOException e) {
                // freePort() gives a port back to the OS before the broker binds it: the broker's own listener (port
                // 0) or another process may take it first. Only the management ports are chosen again: the
                // replication port is part of the store's identity.
                if (attempt == 3 || !String.valueOf(e.getMessage()).contains("Address already in use")) {
                    throw e;
                }
                node.jmxPort = freePort();
                node.metricsPort = freePort();
                node.write(options);
            }
        }
    }

    void start() throws Exception {
        broker = Broker.start(BrokerConfigLoader.load(etc.resolve("broker.xml")), work, operationalLog);
    }

    private void write(Options options) throws IOException {
        Files.createDirectories(etc);
        String hostPort = "localhost:" + replicationPort;
        Files.writeString(etc.resolve("broker.xml"), """
                <broker>
                  <listeners>
                    <listener name="amqp" host="127.0.0.1" port="0"/>
                  </listeners>
                  <security usersFile="users"/>
                  %s
                  <virtualHosts default="%s">
                    <virtualHost name="%s" file="%s.xml"/>
                  </virtualHosts>
                  <management>
                    <jmx host="127.0.0.1" port="%d"/>
                    <metrics host="127.0.0.1" port="%d"/>
                    %s
                  </management>
                </broker>
                """.formatted(options.memory, VHOST, VHOST, VHOST, jmxPort, metricsPort, options.disk));
        Files.writeString(etc.resolve(VHOST + ".xml"), """
                <virtualHost name="%s">
                  <store type="bdb-ha">
                    <storePath>%s</storePath>
                    <groupName>%s</groupName>
                    <nodeName>%s</nodeName>
                    <nodeHostPort>%s</nodeHostPort>
                    <helperHostPort>%s</helperHostPort>
                    <designatedPrimary>%s</designatedPrimary>
                    <repConfig><name>je.rep.electionsPrimaryRetries</name><value>0</value></repConfig>
                    %s
                  </store>
                  <queues autoCreate="true">
                    <defaults durable="true"/>
                    <queue name="orders"/>
                  </queues>
                </virtualHost>
                """.formatted(VHOST, work.resolve("store"), options.groupName, nodeName, hostPort,
                options.helperHostPort != null ? options.helperHostPort : hostPort, options.designatedPrimary,
                options.storeExtras));
        Files.writeString(etc.resolve("users"), String.join("\n",
                "# test users: never ship these",
                "admin:" + hash("admin") + ":role=admin",
                "watcher:" + hash("watcher") + ":role=monitor",
                "guest:" + hash("guest"),
                ""));
        if (options.permissions != null) {
            Files.write(etc.resolve("permissions"), options.permissions);
        }
    }

    private static String hash(String password) {
        return PasswordHash.create(password.toCharArray(), ITERATIONS).encode();
    }

    Broker broker() {
        return broker;
    }

    /** The spec's service URL for this node. */
    String jmxUrl() {
        return "service:jmx:rmi:///jndi/rmi://localhost:" + jmxPort + "/jmxrmi";
    }

    JMXConnector jmx(String user, String password) throws IOException {
        Map<String, Object> environment = new HashMap<>();
        environment.put(JMXConnector.CREDENTIALS, new String[] {user, password});
        return JMXConnectorFactory.connect(new JMXServiceURL(jmxUrl()), environment);
    }

    /** Runs {@code work} with an admin connection. */
    <T> T asAdmin(JmxCall<T> work) throws Exception {
        try (JMXConnector connector = jmx("admin", "admin")) {
            return work.call(connector.getMBeanServerConnection());
        }
    }

    /** An attribute, read by an admin. */
    Object attribute(String objectName, String attribute) throws Exception {
        return asAdmin(mbsc -> mbsc.getAttribute(new javax.management.ObjectName(objectName), attribute));
    }

    /** An operation, invoked by an admin. */
    Object invoke(String objectName, String operation, Object[] parameters, String... signature) throws Exception {
        return asAdmin(mbsc -> mbsc.invoke(new javax.management.ObjectName(objectName), operation, parameters,
                signature));
    }

    @FunctionalInterface
    interface JmxCall<T> {
        T call(MBeanServerConnection connection) throws Exception;
    }

    int amqpPort() {
        String address = broker.boundAddresses().get(0);
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1).replaceAll("[^0-9]", ""));
    }

    Connection amqp() throws JMSException {
        Connection connection = new JmsConnectionFactory("guest", "guest", "amqp://127.0.0.1:" + amqpPort())
                .createConnection();
        connection.start();
        return connection;
    }

    List<String> linesWith(String code) {
        return logLines.stream().filter(line -> line.startsWith(code)).toList();
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the broker (its JMX and metrics ports close); the node's files stay, so it can start again. */
    @Override
    public void close() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }
}
