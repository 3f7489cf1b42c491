package org.tandembroker.tools;

import jakarta.jms.ConnectionFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.PasswordHash;

/**
 * A broker in the test JVM for the operators' tools, configured from files as an operator writes them: virtual
 * host {@value #VHOST} on a {@code bdb} or {@code bdb-ha} store (the store directory, group, node and replication
 * port are the test's to choose, so that a store can be restored and reset before its node starts), AMQP on an
 * ephemeral loopback port, JMX on a free loopback port. Users (test configuration only): admin/admin (role admin),
 * watcher/watcher (role monitor), guest/guest (no JMX role).
 */
final class InJvmBroker implements AutoCloseable {
    static final String VHOST = "default";
    static final String QUEUE = "orders";
    private static final int FIRST_PORT = 20000;
    private static final int LAST_PORT = 32767;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    final String name;
    final Path etc;
    final Path work;
    final Path store;
    final int jmxPort;
    final OperationalLog operationalLog = new OperationalLog();
    final List<String> logLines = new CopyOnWriteArrayList<>();
    private Broker broker;

    private InJvmBroker(Path directory, String name, String storeElement, Path store) throws IOException {
        this.name = name;
        this.etc = directory.resolve(name).resolve("etc");
        this.work = directory.resolve(name).resolve("work");
        this.store = store;
        this.jmxPort = freePort();
        operationalLog.addObserver(logLines::add);
        Files.createDirectories(etc);
        Files.writeString(etc.resolve("broker.xml"), """
                <broker>
                  <listeners><listener name="amqp" host="127.0.0.1" port="0"/></listeners>
                  <security usersFile="users"/>
                  <virtualHosts default="%s"><virtualHost name="%s" file="%s.xml"/></virtualHosts>
                  <management><jmx host="127.0.0.1" port="%d"/></management>
                </broker>
                """.formatted(VHOST, VHOST, VHOST, jmxPort));
        writeStore(storeElement);
        Files.writeString(etc.resolve("users"), String.join("\n", "# test users: never ship these",
                "admin:" + hash("admin") + ":role=admin", "watcher:" + hash("watcher") + ":role=monitor",
                "guest:" + hash("guest"), ""));
    }

    /** A standalone ({@code bdb}) broker on {@code store}. */
    static InJvmBroker standalone(Path directory, String name, Path store) throws IOException {
        return new InJvmBroker(directory, name, """
                <store type="bdb"><storePath>%s</storePath></store>""".formatted(store), store);
    }

    /** A {@code bdb-ha} node; {@code helper} is its own address for the group's first node. */
    static InJvmBroker replicated(Path directory, String name, Path store, String group, int replicationPort,
                                  int helperPort) throws IOException {
        return new InJvmBroker(directory, name, replicatedStore(store, group, name, replicationPort, helperPort),
                store);
    }

    static String replicatedStore(Path store, String group, String node, int replicationPort, int helperPort) {
        return """
                <store type="bdb-ha">
                  <storePath>%s</storePath>
                  <groupName>%s</groupName>
                  <nodeName>%s</nodeName>
                  <nodeHostPort>localhost:%d</nodeHostPort>
                  <helperHostPort>localhost:%d</helperHostPort>
                  <repConfig><name>je.rep.electionsPrimaryRetries</name><value>0</value></repConfig>
                </store>""".formatted(store, group, node, replicationPort, helperPort);
    }

    /** Rewrites the virtual host file's store element (an operator's edit, e.g. after enable-replication). */
    void writeStore(String storeElement) throws IOException {
        Files.writeString(etc.resolve(VHOST + ".xml"), """
                <virtualHost name="%s">
                  %s
                  <queues autoCreate="true"><defaults durable="true"/><queue name="%s"/></queues>
                </virtualHost>
                """.formatted(VHOST, storeElement, QUEUE));
    }

    InJvmBroker start() throws Exception {
        broker = Broker.start(BrokerConfigLoader.load(etc.resolve("broker.xml")), work, operationalLog);
        return this;
    }

    boolean isRunning() {
        return broker != null;
    }

    int amqpPort() {
        String address = broker.boundAddresses().get(0);
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1).replaceAll("[^0-9]", ""));
    }

    ConnectionFactory connectionFactory() {
        return new JmsConnectionFactory("guest", "guest", "amqp://127.0.0.1:" + amqpPort());
    }

    /** The connection options of the tools for this broker, as admin. */
    String[] asAdmin() {
        return as("admin");
    }

    /** The connection options of the tools for this broker, as {@code user} (password = user name). */
    String[] as(String user) {
        return new String[] {"--host", "localhost", "--port", String.valueOf(jmxPort), "--user", user,
                "--password", user};
    }

    List<String> linesWith(String code) {
        return logLines.stream().filter(line -> line.startsWith(code)).toList();
    }

    /**
     * A port free now, below Linux's ephemeral range (32768-60999 by default) so that no outgoing connection of
     * this JVM (RMI, JMS, JE) takes it before the broker binds it; never the same one twice in a run.
     */
    static int freePort() {
        int span = LAST_PORT - FIRST_PORT;
        int start = ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < span; i++) {
            int port = FIRST_PORT + (start + i) % span;
            if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port between " + FIRST_PORT + " and " + LAST_PORT);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String hash(String password) {
        return PasswordHash.create(password.toCharArray(), 1000).encode();
    }

    /** Stops the broker; its files stay. */
    @Override
    public void close() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }
}
