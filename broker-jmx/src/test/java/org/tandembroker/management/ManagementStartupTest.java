package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.PasswordHash;

/** How the operators' interface starts (or does not) with a standalone store, and what a busy port does. */
class ManagementStartupTest {
    @TempDir
    Path directory;
    private final OperationalLog log = new OperationalLog();
    private final List<String> lines = new CopyOnWriteArrayList<>();

    ManagementStartupTest() {
        log.addObserver(lines::add);
    }

    private Path files(String management) throws Exception {
        Path etc = Files.createDirectories(directory.resolve("etc"));
        Files.writeString(etc.resolve("broker.xml"), """
                <broker>
                  <listeners><listener name="amqp" host="127.0.0.1" port="0"/></listeners>
                  <security usersFile="users"/>
                  <virtualHosts><virtualHost name="plain" file="plain.xml"/></virtualHosts>
                  %s
                </broker>
                """.formatted(management));
        Files.writeString(etc.resolve("plain.xml"), """
                <virtualHost name="plain">
                  <store type="bdb"><storePath>plain/store</storePath></store>
                </virtualHost>
                """);
        Files.writeString(etc.resolve("users"), "admin:" + PasswordHash.create("admin".toCharArray(), 1000).encode()
                + ":role=admin\n");
        return etc.resolve("broker.xml");
    }

    private Broker start(Path brokerFile) throws Exception {
        return Broker.start(BrokerConfigLoader.load(brokerFile), directory.resolve("work"), log);
    }

    @Test
    void aBrokerFileWithoutManagementServesNoJmxAndNoMetrics() throws Exception {
        try (Broker broker = start(files(""))) {
            assertThat(broker.virtualHost("plain").publishRefusal()).isEmpty();
        }
        assertThat(lines).noneMatch(line -> line.contains("JMX") || line.contains("metrics"));
    }

    @Test
    void aStandaloneStoreHasVirtualHostAndQueueBeansWithJeFiguresButNoBdbHaBean() throws Exception {
        int port = TestNode.freePort();
        try (Broker broker = start(files("<management><jmx host=\"127.0.0.1\" port=\"" + port + "\"/></management>"));
             JMXConnector connector = connect(port)) {
            MBeanServerConnection mbsc = connector.getMBeanServerConnection();
            ObjectName vhost = new ObjectName("org.tandembroker:type=VirtualHost,name=plain");

            assertThat(mbsc.getAttribute(vhost, "StoreType")).isEqualTo("bdb");
            assertThat(mbsc.getAttribute(vhost, "StoreRole")).isEqualTo("STANDALONE");
            assertThat((Long) mbsc.getAttribute(vhost, "AvailableLogSize")).isPositive();
            assertThat(mbsc.queryNames(new ObjectName("org.apache.qpid:*"), null)).isEmpty();
            assertThat(mbsc.isRegistered(new ObjectName("java.lang:type=Memory"))).isTrue();
        }
        assertThat(lines).anyMatch(line -> line.equals("BRK-1002 : Listening : JMX service:jmx:rmi:///jndi/rmi://"
                + "127.0.0.1:" + port + "/jmxrmi"));
    }

    @Test
    void aBusyJmxPortStopsTheStartWithOneClearLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            Path brokerFile = files("<management><jmx host=\"127.0.0.1\" port=\"" + port + "\"/></management>");

            Throwable failure = catchThrowable(() -> start(brokerFile).close());

            // Found before any store opens, naming the port and the element that asks for it.
            assertThat(failure).hasMessageStartingWith("port " + port + " on 127.0.0.1 for JMX "
                    + "(<management><jmx port>) in " + brokerFile + " is not available: ")
                    .hasMessageNotContaining("\n");
            assertThat(lines).anyMatch(line -> line.startsWith("BRK-1007 : Startup failed : port " + port
                    + " on 127.0.0.1 for JMX"));
            assertThat(lines).noneMatch(line -> line.startsWith("MST-1001") || line.startsWith("VHT-1001"));
        }
        try (Broker again = start(files("<management><jmx host=\"127.0.0.1\" port=\"" + TestNode.freePort()
                + "\"/></management>"))) {
            assertThat(again.virtualHost("plain").state().name()).isEqualTo("ACTIVE");
        }
    }

    @Test
    void aBusyMetricsPortStopsTheStartWithOneClearLineAndReleasesTheJmxPort() throws Exception {
        int jmxPort = TestNode.freePort();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            Path brokerFile = files("<management><jmx host=\"127.0.0.1\" port=\"" + jmxPort + "\"/>"
                    + "<metrics host=\"127.0.0.1\" port=\"" + port + "\"/></management>");

            Throwable failure = catchThrowable(() -> start(brokerFile).close());

            assertThat(failure).hasMessageStartingWith("port " + port + " on 127.0.0.1 for metrics and health "
                    + "(<management><metrics port>) in " + brokerFile + " is not available: ");
        }
        try (ServerSocket jmxPortAgain = new ServerSocket(jmxPort, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(jmxPortAgain.isBound()).isTrue();
        }
    }

    private static JMXConnector connect(int port) throws Exception {
        Map<String, Object> environment = new HashMap<>();
        environment.put(JMXConnector.CREDENTIALS, new String[] {"admin", "admin"});
        return JMXConnectorFactory.connect(new JMXServiceURL("service:jmx:rmi:///jndi/rmi://localhost:" + port
                + "/jmxrmi"), environment);
    }
}
