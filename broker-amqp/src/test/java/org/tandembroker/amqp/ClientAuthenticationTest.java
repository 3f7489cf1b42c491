package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.JMSSecurityException;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.amqp.fake.InMemoryVirtualHost;
import org.tandembroker.core.config.ClientCertificateConfig;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.config.TlsConfig;
import org.tandembroker.core.security.AuthFailure;
import org.tandembroker.core.security.SecurityStatistics;

/** SASL with Qpid JMS: SCRAM, the PLAIN policy, client certificates (EXTERNAL), and failures slowed down. */
class ClientAuthenticationTest {
    private static final String STORE_PASSWORD = "changeit-auth";

    private static void connect(JmsConnectionFactory factory) throws JMSException {
        try (Connection connection = factory.createConnection()) {
            connection.start();
        }
    }

    @Test
    void qpidJmsChoosesScramSha512AndAuthenticatesWithoutSendingThePassword() throws Exception {
        try (RunningFrontEnd broker = RunningFrontEnd.start()) {
            connect(broker.connectionFactory());

            assertThat(broker.authenticator.mechanisms()).containsExactly("SCRAM-SHA-512");
            assertThat(broker.logLines).anyMatch(l -> l.startsWith("CON-1001") && l.contains("user guest"));
        }
    }

    @Test
    void scramSha256WorksWhenTheClientAsksForIt() throws Exception {
        try (RunningFrontEnd broker = RunningFrontEnd.start()) {
            connect(broker.connectionFactory("?amqp.saslMechanisms=SCRAM-SHA-256"));

            assertThat(broker.authenticator.mechanisms()).containsExactly("SCRAM-SHA-256");
        }
    }

    @Test
    void aWrongPasswordOrAnUnknownUserIsRefusedLoggedWithItsReasonAndCounted() throws Exception {
        try (RunningFrontEnd broker = RunningFrontEnd.start()) {
            JmsConnectionFactory wrong = new JmsConnectionFactory(RunningFrontEnd.USER, "not-it", broker.uri());
            JmsConnectionFactory unknown = new JmsConnectionFactory("mallory", "guess", broker.uri()
                    + "?amqp.saslMechanisms=SCRAM-SHA-256");

            assertThatThrownBy(() -> connect(wrong)).isInstanceOf(JMSSecurityException.class);
            assertThatThrownBy(() -> connect(unknown)).isInstanceOf(JMSSecurityException.class);

            await().until(() -> broker.statistics.authenticationFailures(AuthFailure.UNKNOWN_USER) == 1);
            assertThat(broker.statistics.authenticationFailures(AuthFailure.WRONG_PASSWORD)).isEqualTo(1);
            assertThat(broker.statistics.connectionsRefused(SecurityStatistics.RefusalReason.AUTHENTICATION))
                    .isEqualTo(2);
            assertThat(broker.logLines).anyMatch(l -> l.startsWith("CON-1004")
                    && l.contains("SCRAM-SHA-512: wrong password for user 'guest'") && !l.contains("not-it"));
            assertThat(broker.logLines).anyMatch(l -> l.startsWith("CON-1004")
                    && l.contains("SCRAM-SHA-256: unknown user 'mallory'"));
        }
    }

    @Test
    void aClientThatSupportsNoOfferedMechanismIsRefusedWithALogLine() throws Exception {
        try (RunningFrontEnd broker = RunningFrontEnd.start()) {
            JmsConnectionFactory cramOnly = broker.connectionFactory("?amqp.saslMechanisms=CRAM-MD5");

            assertThatThrownBy(() -> connect(cramOnly)).isInstanceOf(JMSException.class);

            await().until(() -> broker.logLines.stream().anyMatch(l -> l.startsWith("CON-1004")
                    && l.contains("without choosing a SASL mechanism; offered: SCRAM-SHA-512 SCRAM-SHA-256 PLAIN")));
            assertThat(broker.statistics.authenticationFailures(AuthFailure.MECHANISM)).isEqualTo(1);
        }
    }

    /** A local address that is not loopback, so the broker sees a client from "another machine". */
    private static Optional<InetAddress> nonLoopbackAddress() throws Exception {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nic.isUp() && !nic.isLoopback()) {
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
                        return Optional.of(address);
                    }
                }
            }
        }
        return Optional.empty();
    }

    @Test
    void plainIsNotOfferedOnPlainTcpFromAnotherAddressUnlessSwitchedOn() throws Exception {
        Optional<InetAddress> address = nonLoopbackAddress();
        assumeTrue(address.isPresent(), "this machine has no non-loopback IPv4 address");
        String host = address.get().getHostAddress();
        ListenerConfig listener = new ListenerConfig("amqp", host, 0, Optional.empty());
        try (RunningFrontEnd broker = new RunningFrontEnd(new InMemoryVirtualHost("test"), RunningFrontEnd.TEST_LIMITS,
                listener, false, RunningFrontEnd.NO_DELAYS, null)) {
            String uri = "amqp://" + host + ":" + broker.port() + "?amqp.vhost=test";
            JmsConnectionFactory plain = new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD,
                    uri + "&amqp.saslMechanisms=PLAIN");

            assertThatThrownBy(() -> connect(plain)).isInstanceOf(JMSException.class);
            connect(new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, uri));

            await().until(() -> broker.logLines.stream().anyMatch(l -> l.startsWith("CON-1004")
                    && l.contains("offered: SCRAM-SHA-512 SCRAM-SHA-256") && !l.contains("PLAIN")));
            assertThat(broker.authenticator.mechanisms()).containsExactly("SCRAM-SHA-512");
        }
        SecurityConfig allowPlain = new SecurityConfig(Optional.empty(), true, Duration.ZERO, Duration.ZERO);
        try (RunningFrontEnd broker = new RunningFrontEnd(new InMemoryVirtualHost("test"), RunningFrontEnd.TEST_LIMITS,
                listener, false, allowPlain, null)) {
            connect(new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD,
                    "amqp://" + host + ":" + broker.port() + "?amqp.vhost=test&amqp.saslMechanisms=PLAIN"));

            assertThat(broker.authenticator.mechanisms()).containsExactly("PLAIN");
        }
    }

    @Test
    void repeatedFailuresFromOneAddressAreSlowedDownWhileOtherAddressesAreServedAtOnce() throws Exception {
        Optional<InetAddress> address = nonLoopbackAddress();
        assumeTrue(address.isPresent(), "this machine has no non-loopback IPv4 address");
        Duration delay = Duration.ofSeconds(3);
        SecurityConfig slow = new SecurityConfig(Optional.empty(), false, delay, Duration.ofSeconds(10));
        ListenerConfig anyAddress = new ListenerConfig("amqp", "0.0.0.0", 0, Optional.empty());
        try (RunningFrontEnd broker = new RunningFrontEnd(new InMemoryVirtualHost("test"), RunningFrontEnd.TEST_LIMITS,
                anyAddress, false, slow, null)) {
            JmsConnectionFactory attacker = new JmsConnectionFactory(RunningFrontEnd.USER, "guess",
                    "amqp://127.0.0.1:" + broker.port());
            JmsConnectionFactory other = new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD,
                    "amqp://" + address.get().getHostAddress() + ":" + broker.port() + "?amqp.vhost=test");
            assertThatThrownBy(() -> connect(attacker)).isInstanceOf(JMSSecurityException.class);

            long start = System.nanoTime();
            CompletableFuture<Long> secondGuess = CompletableFuture.supplyAsync(() -> {
                try {
                    connect(attacker);
                } catch (JMSException e) {
                    // refused, as expected
                }
                return System.nanoTime() - start;
            });
            connect(other);
            boolean otherServedFirst = !secondGuess.isDone();
            long secondGuessNanos = secondGuess.get(30, TimeUnit.SECONDS);

            assertThat(otherServedFirst).as("a client from another address is not held back").isTrue();
            assertThat(Duration.ofNanos(secondGuessNanos)).isGreaterThanOrEqualTo(delay);
            assertThat(broker.statistics.authenticationFailures(AuthFailure.WRONG_PASSWORD)).isEqualTo(2);
        }
    }

    @Test
    void aClientCertificateAuthenticatesWithExternalAsItsCommonNameOrDistinguishedName(@TempDir Path dir)
            throws Exception {
        Certificates certificates = Certificates.create(dir, STORE_PASSWORD, "CN=app1,O=Tandem Test");
        for (ClientCertificateConfig.UserName mapping : ClientCertificateConfig.UserName.values()) {
            ListenerConfig listener = new ListenerConfig("amqps", "127.0.0.1", 0,
                    Optional.of(new TlsConfig(certificates.serverKeyStore(), "PKCS12", STORE_PASSWORD)),
                    Optional.of(new ClientCertificateConfig(false, certificates.trustStore(), "PKCS12",
                            STORE_PASSWORD, mapping)));
            try (RunningFrontEnd broker = new RunningFrontEnd(new InMemoryVirtualHost("test"),
                    RunningFrontEnd.TEST_LIMITS, listener, false, RunningFrontEnd.NO_DELAYS, null)) {
                String tls = "amqps://127.0.0.1:" + broker.port() + "?transport.trustAll=true"
                        + "&transport.verifyHost=false";
                connect(new JmsConnectionFactory(tls + "&transport.keyStoreLocation=" + certificates.clientKeyStore()
                        + "&transport.keyStorePassword=" + STORE_PASSWORD + "&amqp.saslMechanisms=EXTERNAL"));
                connect(new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD, tls));

                String expectedUser = mapping == ClientCertificateConfig.UserName.CN ? "app1" : "CN=app1,O=Tandem Test";
                assertThat(broker.logLines).anyMatch(l -> l.startsWith("CON-1001") && l.endsWith("user "
                        + expectedUser));
                assertThat(broker.authenticator.mechanisms()).containsExactly("EXTERNAL", "SCRAM-SHA-512");
            }
        }
    }
}
