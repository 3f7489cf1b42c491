package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.replication.GroupMember;

/**
 * {@code <warmUp duration>}: before it serves, the broker moves persistent messages through a scratch virtual host
 * with the AMQP front end's own client, then removes every trace of it and starts as it would have.
 */
class WarmUpTest {
    private static final Pattern WARM_UP_LINE =
            Pattern.compile("BRK-1010 : Warm-up : ([0-9,]+) messages through a scratch virtual host in ([0-9.]+) s");

    @TempDir
    Path directory;

    @Test
    void aBrokerWithAWarmUpMovesMessagesBeforeServingThenServesItsOwnVirtualHostWithoutTrace() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        try (Broker broker = start("<warmUp duration=\"4s\"/>", lines)) {
            String warmUp = lines.stream().filter(l -> l.contains("BRK-1010")).findFirst().orElseThrow();
            Matcher matcher = WARM_UP_LINE.matcher(warmUp);
            assertThat(matcher.find()).as(warmUp).isTrue();
            assertThat(Long.parseLong(matcher.group(1).replace(",", ""))).as(warmUp).isPositive();
            assertThat(Double.parseDouble(matcher.group(2))).as(warmUp).isLessThan(4.0 + 2.0);
            assertThat(lines.indexOf(warmUp)).as("the warm-up comes before the listener")
                    .isLessThan(indexOf(lines, "BRK-1002"));
            assertThat(lines).noneMatch(l -> l.contains("warm-up-0")).noneMatch(l -> l.contains("VHT-1001 : Created : warm-up"));

            assertThat(Files.exists(directory.resolve("work/.warm-up"))).as("the scratch store is deleted").isFalse();
            assertThat(broker.virtualHost("default").queues().keySet()).noneMatch(q -> q.startsWith("warm-up"));
            assertThat(broker.virtualHosts().all()).hasSize(1);
            assertThat(sendAndReceive(broker, "after-warm-up")).isEqualTo("after-warm-up");
        }
    }

    @Test
    void aReplicatedNodeRehearsesInAScratchGroupOfItsOwnAndThenJoinsOnlyItsRealGroupAsConfigured() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        Path vhost = directory.resolve("etc/default.xml");
        try (Broker broker = start("<warmUp duration=\"4s\"/>", lines, () -> Files.writeString(vhost,
                Files.readString(vhost).replace("<store type=\"bdb\">", """
                        <store type="bdb-ha">
                          <groupName>real-group</groupName>
                          <nodeName>node-1</nodeName>
                          <nodeHostPort>127.0.0.1:%d</nodeHostPort>
                          <helperHostPort>127.0.0.1:%d</helperHostPort>
                        """.formatted(port, port)).replace("<durability>NO_SYNC</durability>", "")))) {
            String warmUp = lines.stream().filter(l -> l.contains("BRK-1010")).findFirst().orElseThrow();
            Matcher matcher = WARM_UP_LINE.matcher(warmUp);
            assertThat(matcher.find()).as(warmUp).isTrue();
            assertThat(Long.parseLong(matcher.group(1).replace(",", ""))).as(warmUp).isPositive();
            assertThat(broker.ready().get(60, TimeUnit.SECONDS)).isNull();
            assertThat(lines).noneMatch(l -> l.contains("tandem-warm-up"));
            assertThat(broker.virtualHost("default").store().orElseThrow().replication().orElseThrow()
                    .groupMembers()).as("the scratch group's replica is not in the real group")
                    .extracting(GroupMember::name).containsExactly("node-1");
            assertThat(Files.exists(directory.resolve("work/.warm-up"))).isFalse();
            assertThat(sendAndReceive(broker, "replicated")).isEqualTo("replicated");
        }
    }

    @Test
    void aBrokerWithoutWarmUpElementStartsWithoutRehearsing() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        try (Broker broker = start("", lines)) {
            assertThat(lines).noneMatch(l -> l.contains("BRK-1010"));
            assertThat(sendAndReceive(broker, "no-warm-up")).isEqualTo("no-warm-up");
        }
    }

    private Broker start(String warmUpElement, List<String> lines) throws Exception {
        return start(warmUpElement, lines, () -> { });
    }

    /** A change to the files {@link TestBrokerFiles} wrote, before the broker starts. */
    private interface FileChange {
        void apply() throws Exception;
    }

    private Broker start(String warmUpElement, List<String> lines, FileChange change) throws Exception {
        Path brokerFile = TestBrokerFiles.write(directory.resolve("etc"), "");
        Files.writeString(brokerFile, Files.readString(brokerFile).replace("</broker>", warmUpElement + "</broker>"));
        change.apply();
        OperationalLog log = new OperationalLog();
        log.addObserver(lines::add);
        return Broker.start(BrokerConfigLoader.load(brokerFile, Map.of()), directory.resolve("work"), log);
    }

    private static int indexOf(List<String> lines, String code) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(code)) {
                return i;
            }
        }
        throw new AssertionError("no " + code + " in " + lines);
    }

    private static String sendAndReceive(Broker broker, String text) throws Exception {
        String address = broker.boundAddresses().get(0);
        String port = address.substring(address.lastIndexOf(':') + 1).replaceAll("[^0-9]", "");
        Connection connection = new JmsConnectionFactory("guest", "guest", "amqp://127.0.0.1:" + port)
                .createConnection();
        try {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("warm-up-test");
            MessageProducer producer = session.createProducer(queue);
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            producer.send(session.createTextMessage(text));
            return ((TextMessage) session.createConsumer(queue).receive(10_000)).getText();
        } finally {
            connection.close();
        }
    }
}
