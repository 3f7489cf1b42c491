package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.TlsConfig;

class TlsListenerTest {
    private static final String KEY_STORE_PASSWORD = "changeit-tls";

    @Test
    void amqpsListenerServesClientsOverTls(@TempDir Path dir) throws Exception {
        Path keyStore = generateKeyStore(dir.resolve("broker.p12"));

        try (RunningFrontEnd broker = RunningFrontEnd.startWithTls(new TlsConfig(keyStore, "PKCS12", KEY_STORE_PASSWORD))) {
            assertThat(broker.boundAddress()).startsWith("amqps://127.0.0.1:");
            JmsConnectionFactory factory = new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD,
                    "amqps://127.0.0.1:" + broker.port() + "?transport.trustAll=true&transport.verifyHost=false");
            try (Connection connection = factory.createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("secure");
                session.createProducer(queue).send(session.createTextMessage("over tls"));
                MessageConsumer consumer = session.createConsumer(queue);
                assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("over tls");
            }
        }
    }

    private static Path generateKeyStore(Path file) throws Exception {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "broker",
                "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname", "CN=localhost",
                "-storetype", "PKCS12", "-keystore", file.toString(),
                "-storepass", KEY_STORE_PASSWORD, "-keypass", KEY_STORE_PASSWORD)
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(Files.size(file)).isPositive();
        return file;
    }
}
