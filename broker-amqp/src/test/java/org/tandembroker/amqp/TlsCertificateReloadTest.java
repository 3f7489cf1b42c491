package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.testing.TestCertificates;
import org.tandembroker.core.config.TlsConfig;

/**
 * An amqps listener's certificate is replaced on disk without a restart: new connections get the new one, open
 * connections go on, and a file that cannot be loaded leaves the certificate in use (BRK-1009 says so).
 */
class TlsCertificateReloadTest {
    private static final String PASSWORD = "changeit-reload";

    @Test
    void aReplacedKeyStoreIsServedToNewConnectionsWhileOpenOnesContinue(@TempDir Path dir) throws Exception {
        Path keyStore = dir.resolve("broker.p12");
        generate(keyStore, "CN=first.example");
        try (RunningFrontEnd broker = RunningFrontEnd.startWithTls(new TlsConfig(keyStore, "PKCS12", PASSWORD))) {
            assertThat(presentedName(broker.port())).isEqualTo("CN=first.example");
            JmsConnectionFactory factory = new JmsConnectionFactory(RunningFrontEnd.USER, RunningFrontEnd.PASSWORD,
                    "amqps://127.0.0.1:" + broker.port() + "?transport.trustAll=true&transport.verifyHost=false");
            try (Connection open = factory.createConnection()) {
                open.start();
                Session session = open.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Queue queue = session.createQueue("reload");
                MessageProducer producer = session.createProducer(queue);
                MessageConsumer consumer = session.createConsumer(queue);
                producer.send(session.createTextMessage("before"));
                assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("before");

                Path renewed = dir.resolve("renewed.p12");
                generate(renewed, "CN=renewed.example.org");
                Files.move(renewed, keyStore, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

                assertThat(presentedName(broker.port())).isEqualTo("CN=renewed.example.org");
                assertThat(broker.logLines).anyMatch(line -> line.startsWith("BRK-1009 : Certificate : reloaded "
                        + keyStore) && line.contains("CN=renewed.example.org"));
                producer.send(session.createTextMessage("after")); // the open connection keeps its session
                assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("after");

                Path broken = dir.resolve("broken.p12");
                Files.writeString(broken, "half a key store", StandardCharsets.UTF_8);
                Files.move(broken, keyStore, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                assertThat(presentedName(broker.port())).isEqualTo("CN=renewed.example.org");
                assertThat(presentedName(broker.port())).isEqualTo("CN=renewed.example.org");
                assertThat(broker.logLines.stream().filter(line -> line.startsWith("BRK-1009 : Certificate : cannot "
                        + "reload " + keyStore))).hasSize(1);
            }
        }
    }

    /** The subject of the certificate the listener presents to a new TLS connection. */
    private static String presentedName(int port) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, new SecureRandom());
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal()
                    .getName();
        }
    }

    private static void generate(Path file, String name) {
        TestCertificates.selfSigned(name).writePkcs12(file, "broker", PASSWORD);
    }
}
