package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Spec 1.6.8 and 1.6.9 against a running one-node group: the BDBHAMessageStore MBean, roles, and the host beans. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BdbHaMessageStoreMBeanTest {
    private static final String STORE = "org.apache.qpid:type=BDBHAMessageStore,name=test";

    private TestNode node;

    @BeforeAll
    void startNode(@TempDir Path directory) throws Exception {
        node = TestNode.start(directory, "node-1", TestNode.options());
    }

    @AfterAll
    void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    /** The spec's Example 1.2, unchanged but for the port. */
    @Test
    void example12ReadsTheNodeStateMasterThroughTheStandardServiceUrl() throws Exception {
        Map<String, Object> environment = new HashMap<String, Object>();

        // credentials: user name and password
        environment.put(JMXConnector.CREDENTIALS, new String[] {"admin", "admin"});
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://localhost:" + node.jmxPort + "/jmxrmi");
        JMXConnector jmxConnector = JMXConnectorFactory.connect(url, environment);
        MBeanServerConnection mbsc = jmxConnector.getMBeanServerConnection();

        ObjectName queueObjectName = new ObjectName("org.apache.qpid:type=BDBHAMessageStore,name=test");
        String state = (String) mbsc.getAttribute(queueObjectName, "NodeState");

        System.out.println("Node state:" + state);
        jmxConnector.close();

        assertThat(state).isEqualTo("MASTER");
    }

    @Test
    void wrongCredentialsAreRefusedAtConnect() {
        assertThat(catchThrowable(() -> node.jmx("admin", "wrong").close())).isInstanceOf(SecurityException.class)
                .hasMessage("Authentication failed");
        assertThat(catchThrowable(() -> node.jmx("mallory", "admin").close())).isInstanceOf(SecurityException.class);
        assertThat(catchThrowable(() -> JMXConnectorFactory.connect(new JMXServiceURL(node.jmxUrl())).close()))
                .isInstanceOf(SecurityException.class).hasMessageContaining("String[] {user, password}");
        assertThat(node.linesWith("CON-1004")).anyMatch(line -> line.contains("JMX client 127.0.0.1")
                && line.contains("wrong password for user 'admin'"));
    }

    @Test
    void repeatedFailedLoginsFromAnAddressHoldBackItsNextAnswer() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(catchThrowable(() -> node.jmx("admin", "guessed").close()))
                    .isInstanceOf(SecurityException.class);
        }
        long started = System.nanoTime();
        node.jmx("admin", "admin").close(); // the right password, answered only after the delay 3 failures earn
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("250 ms doubled per recent failure: at least 1 s after three")
                .isGreaterThanOrEqualTo(Duration.ofMillis(1000));
    }

    @Test
    void aUserWithoutARoleIsRefusedAndToldHowToGetOne() {
        assertThat(catchThrowable(() -> node.jmx("guest", "guest").close())).isInstanceOf(SecurityException.class)
                .hasMessageContaining("user 'guest' has no JMX role")
                .hasMessageContaining("tandem-passwd add <usersFile> guest --role admin|monitor");
    }

    @Test
    void theMbeanHasTheSpecsAttributesWithThisNodesValues() throws Exception {
        Map<String, Object> attributes = node.asAdmin(mbsc -> {
            Map<String, Object> values = new HashMap<>();
            for (String name : new String[] {"GroupName", "NodeName", "NodeHostPort", "HelperHostPort", "NodeState",
                    "ReplicationPolicy", "Durability", "DesignatedPrimary", "CoalescingSync", "MasterName"}) {
                values.put(name, mbsc.getAttribute(new ObjectName(STORE), name));
            }
            return values;
        });

        assertThat(attributes).containsEntry("GroupName", "tandem-test").containsEntry("NodeName", "node-1")
                .containsEntry("NodeHostPort", "localhost:" + node.replicationPort)
                .containsEntry("HelperHostPort", "localhost:" + node.replicationPort)
                .containsEntry("NodeState", "MASTER")
                .containsEntry("ReplicationPolicy", "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY")
                .containsEntry("Durability", "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY")
                .containsEntry("DesignatedPrimary", false).containsEntry("CoalescingSync", true)
                .containsEntry("MasterName", "node-1");
    }

    @Test
    void theMbeanInfoNamesTheOperationsParametersAndMarksWhatIsWritable() throws Exception {
        var info = node.asAdmin(mbsc -> mbsc.getMBeanInfo(new ObjectName(STORE)));

        assertThat(info.getAttributes()).filteredOn(a -> a.getName().equals("DesignatedPrimary")).singleElement()
                .matches(a -> a.isReadable() && a.isWritable());
        assertThat(info.getAttributes()).filteredOn(a -> a.getName().equals("CoalescingSync")).singleElement()
                .matches(a -> a.isReadable() && !a.isWritable());
        MBeanOperationInfo updateAddress = java.util.Arrays.stream(info.getOperations())
                .filter(op -> op.getName().equals("updateAddress")).findFirst().orElseThrow();
        assertThat(updateAddress.getSignature()).extracting(p -> p.getName() + ":" + p.getType())
                .containsExactly("nodeName:java.lang.String", "newHostName:java.lang.String", "newPort:int");
        assertThat(info.getOperations()).extracting(MBeanOperationInfo::getName)
                .contains("removeNodeFromGroup", "updateAddress", "designatePrimary", "pingNode");
    }

    @Test
    void allNodesInGroupListsEveryNodeWithNameHostPortAndState() throws Exception {
        TabularData nodes = node.asAdmin(mbsc -> (TabularData) mbsc.getAttribute(new ObjectName(STORE),
                "AllNodesInGroup"));

        assertThat(nodes.size()).isEqualTo(1);
        CompositeData row = nodes.get(new Object[] {"node-1"});
        assertThat(row.get("NodeName")).isEqualTo("node-1");
        assertThat(row.get("NodeHostPort")).isEqualTo("localhost:" + node.replicationPort);
        assertThat(row.get("NodeType")).isEqualTo("ELECTABLE");
        assertThat(row.get("NodeState")).isEqualTo("MASTER");
        assertThat(row.get("ReplicationLag")).isEqualTo(-1L);
    }

    @Test
    void updateAddressOfARunningNodeIsRefusedWithAClearError() throws Exception {
        Throwable refused = node.asAdmin(mbsc -> catchThrowable(() -> mbsc.invoke(new ObjectName(STORE),
                "updateAddress", new Object[] {"node-1", "elsewhere.example.com", 5999},
                new String[] {"java.lang.String", "java.lang.String", "int"})));

        assertThat(rootCause(refused)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("node node-1 is this node and it is running")
                .hasMessageContaining("must be in a STOPPED state");
        assertThat(node.attribute(STORE, "NodeHostPort"))
                .isEqualTo("localhost:" + node.replicationPort);
    }

    @Test
    void operationsOnUnknownNodesNameTheGroupsNodes() throws Exception {
        Throwable refused = node.asAdmin(mbsc -> catchThrowable(() -> mbsc.invoke(new ObjectName(STORE),
                "removeNodeFromGroup", new Object[] {"node-9"}, new String[] {"java.lang.String"})));

        assertThat(rootCause(refused)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no node 'node-9' in group tandem-test; its nodes: node-1");
    }

    @Test
    void aMonitorReadsButCannotWriteDesignatedPrimaryOrInvokeOperations() throws Exception {
        try (JMXConnector connector = node.jmx("watcher", "watcher")) {
            MBeanServerConnection mbsc = connector.getMBeanServerConnection();
            ObjectName store = new ObjectName(STORE);

            assertThat(mbsc.getAttribute(store, "NodeState")).isEqualTo("MASTER");
            assertThat(catchThrowable(() -> mbsc.setAttribute(store, new Attribute("DesignatedPrimary", true))))
                    .isInstanceOf(SecurityException.class)
                    .hasMessageContaining("user 'watcher' has role monitor (read only)")
                    .hasMessageContaining("setting attribute DesignatedPrimary").hasMessageContaining("needs role admin");
            assertThat(catchThrowable(() -> mbsc.invoke(store, "removeNodeFromGroup", new Object[] {"node-2"},
                    new String[] {"java.lang.String"}))).isInstanceOf(SecurityException.class)
                    .hasMessageContaining("operation removeNodeFromGroup");
            assertThat(catchThrowable(() -> mbsc.invoke(store, "designatePrimary", new Object[] {true},
                    new String[] {"boolean"}))).isInstanceOf(SecurityException.class);
            assertThat(catchThrowable(() -> mbsc.unregisterMBean(store))).isInstanceOf(SecurityException.class);
            assertThat((String) mbsc.invoke(store, "pingNode", new Object[] {"node-1"},
                    new String[] {"java.lang.String"})).startsWith("node node-1 of group tandem-test: state MASTER");
        }
        assertThat(node.attribute(STORE, "DesignatedPrimary")).isEqualTo(false);
    }

    @Test
    void anAdminMayNotCreateOrUnregisterMbeansEither() throws Exception {
        Throwable refused = node.asAdmin(mbsc -> catchThrowable(() -> mbsc.createMBean(
                "javax.management.loading.MLet", new ObjectName("evil:type=MLet"))));

        assertThat(refused).isInstanceOf(SecurityException.class).hasMessageContaining("createMBean is not allowed");
    }

    @Test
    void virtualHostAndQueueBeansShowTrafficAndAnAdminClosesAConnection() throws Exception {
        String vhostName = "org.tandembroker:type=VirtualHost,name=test";
        String orders = "org.tandembroker:type=Queue,virtualHost=test,name=orders";
        ObjectName vhost = new ObjectName(vhostName);
        long before = (Long) node.attribute(vhostName, "MessagesIn");
        CountDownLatch closedByBroker = new CountDownLatch(1);
        try (Connection connection = node.amqp()) {
            connection.setExceptionListener(e -> closedByBroker.countDown());
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("orders"));
            for (int i = 0; i < 3; i++) {
                producer.send(session.createTextMessage("order " + i));
            }

            assertThat(node.attribute(orders, "DepthMessages")).isEqualTo(3L);
            assertThat(node.attribute(orders, "MessagesIn")).isEqualTo(3L);
            assertThat((Long) node.attribute(orders, "BytesIn")).isPositive()
                    .isEqualTo(node.attribute(orders, "DepthBytes"));
            assertThat(node.attribute(orders, "BytesOut")).isEqualTo(0L);
            assertThat(node.attribute(vhostName, "MessagesIn")).isEqualTo(before + 3);
            assertThat((Long) node.attribute(vhostName, "BytesIn")).isPositive();
            assertThat(node.attribute(vhostName, "StoreRole")).isEqualTo("MASTER");
            String[] connections = (String[]) node.attribute(vhostName, "Connections");
            assertThat(connections).singleElement().asString().contains("guest");

            Object closed = node.asAdmin(mbsc -> mbsc.invoke(vhost, "closeConnection",
                    new Object[] {connections[0]}, new String[] {"java.lang.String"}));

            assertThat(closed).isEqualTo(1);
            assertThat(closedByBroker.await(30, TimeUnit.SECONDS)).isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> node.attribute(vhostName, "ConnectionCount").equals(0));
    }

    private static Throwable rootCause(Throwable thrown) {
        Throwable cause = thrown;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
