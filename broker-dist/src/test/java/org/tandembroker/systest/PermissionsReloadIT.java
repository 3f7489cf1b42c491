package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kill -HUP} makes a running broker process re-read its permissions file; a broken file keeps the rules. */
class PermissionsReloadIT {
    @TempDir
    Path directory;

    private static void send(String uri) throws Exception {
        try (Connection connection = new JmsConnectionFactory("alice", "secret", uri).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createQueue("orders.eu")).send(session.createTextMessage("x"));
        }
    }

    private static void hangUp(BrokerProcess broker) throws Exception {
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(broker.pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }

    /**
     * Sends SIGHUP, again every 10 s, until {@code reloaded} holds, for at most a minute. (In full CI runs started
     * with nohup no SIGHUP ever reloaded: the broker inherited an ignored SIGHUP, which the JVM leaves ignored;
     * {@link BrokerProcess} now starts it with SIGHUP at its default, and the broker warns when it is ignored.)
     */
    private static void hangUpUntil(BrokerProcess broker, Callable<Boolean> reloaded) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        do {
            hangUp(broker);
            try {
                await().atMost(Duration.ofSeconds(10)).until(reloaded);
                return;
            } catch (ConditionTimeoutException notYet) {
                // no sign of the reload: send the signal again
            }
        } while (System.nanoTime() < deadline);
        throw new AssertionError("no reload within 60 s of SIGHUP, sent every 10 s");
    }

    /** The "Permissions loaded" lines the broker printed so far (one at start-up, one per successful reload). */
    private static long loadedLines(BrokerProcess broker) {
        return broker.output().stream().filter(l -> l.contains("SEC-1002")).count();
    }

    @Test
    void sighupReloadsThePermissionsAndABrokenFileKeepsThePreviousRules() throws Exception {
        Path brokerFile = TestBrokerFiles.write(directory.resolve("etc"), "");
        Path permissions = directory.resolve("etc/permissions");
        Files.write(permissions, List.of("allow user:alice consume orders.#"));
        try (BrokerProcess broker = BrokerProcess.start(brokerFile, directory.resolve("work"))) {
            assertThatThrownBy(() -> send(broker.uri())).isInstanceOf(JMSSecurityException.class)
                    .hasMessageContaining("permission 'send' on address 'orders.eu'");

            Files.write(permissions, List.of("allow user:alice send,consume,create orders.#"));
            long loadedBefore = loadedLines(broker);
            hangUpUntil(broker, () -> loadedLines(broker) > loadedBefore);
            send(broker.uri());

            Files.write(permissions, List.of("allow user:alice sned orders.#"));
            hangUpUntil(broker, () -> broker.output().stream()
                    .anyMatch(l -> l.contains("SEC-1003") && l.contains("unknown permission 'sned'")));
            send(broker.uri());
            assertThat(broker.isAlive()).isTrue();
        }
    }
}
