package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.Map;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.rmi.ssl.SslRMIClientSocketFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.testing.TestCertificates;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.security.PasswordHash;

/**
 * The JMX connector's key store replaced on disk: new connections get the new certificate without a restart, a
 * connector opened before keeps working. Runs in a JVM of its own (its name ends in TlsTest, see the pom).
 */
class JmxCertificateReloadTlsTest {
    @TempDir
    Path directory;

    @Test
    void aReplacedKeyStoreIsPresentedToNewConnectionsWhileAnOpenConnectorGoesOn() throws Exception {
        Path etc = Files.createDirectories(directory.resolve("etc"));
        Path keyStore = etc.resolve("jmx.p12");
        Path first = directory.resolve("first.p12");
        Path renewed = directory.resolve("renewed.p12");
        generate(first, "CN=localhost, O=First");
        generate(renewed, "CN=localhost, O=Renewed");
        Files.copy(first, keyStore);
        int port = TestNode.freePort();
        Files.writeString(etc.resolve("broker.xml"), """
                <broker>
                  <listeners><listener name="amqp" host="127.0.0.1" port="0"/></listeners>
                  <virtualHosts><virtualHost name="plain" file="plain.xml"/></virtualHosts>
                  <management>
                    <jmx host="127.0.0.1" port="%d" keyStore="jmx.p12" keyStorePassword="changeit"/>
                  </management>
                </broker>
                """.formatted(port));
        Files.writeString(etc.resolve("plain.xml"), """
                <virtualHost name="plain"><store type="memory"/></virtualHost>
                """);
        Files.writeString(etc.resolve("users"), "admin:" + PasswordHash.create("admin".toCharArray(), 1000).encode()
                + ":role=admin\n");
        SSLContext trustAll = trusting(first, renewed); // a client trusting the old and the new certificate
        SSLContext.setDefault(trustAll);

        try (Broker broker = Broker.start(BrokerConfigLoader.load(etc.resolve("broker.xml")), directory.resolve("w"))) {
            assertThat(presentedName(trusting(first, renewed), port)).isEqualTo("CN=localhost,O=First");
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://localhost:" + port + "/jmxrmi");
            Map<String, Object> environment = new HashMap<>();
            environment.put(JMXConnector.CREDENTIALS, new String[] {"admin", "admin"});
            environment.put("com.sun.jndi.rmi.factory.socket", new SslRMIClientSocketFactory());
            ObjectName host = new ObjectName("org.tandembroker:type=VirtualHost,name=plain");
            try (JMXConnector open = JMXConnectorFactory.connect(url, environment)) {
                assertThat(open.getMBeanServerConnection().getAttribute(host, "State")).isEqualTo("ACTIVE");

                Path incoming = Files.copy(renewed, etc.resolve("jmx.p12.new"));
                Files.move(incoming, keyStore, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

                // A new client (a fresh context: no TLS session to resume) gets the new certificate.
                assertThat(presentedName(trusting(first, renewed), port)).isEqualTo("CN=localhost,O=Renewed");
                assertThat(open.getMBeanServerConnection().getAttribute(host, "State")).isEqualTo("ACTIVE");
                try (JMXConnector fresh = JMXConnectorFactory.connect(url, environment)) {
                    assertThat(fresh.getMBeanServerConnection().getAttribute(host, "State")).isEqualTo("ACTIVE");
                }
            }
        }
    }

    private static String presentedName(SSLContext context, int port) throws Exception {
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal()
                    .getName();
        }
    }

    private static SSLContext trusting(Path... keyStores) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        for (Path keyStore : keyStores) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keyStore)) {
                store.load(in, "changeit".toCharArray());
            }
            trusted.setCertificateEntry(keyStore.getFileName().toString(), store.getCertificate("jmx"));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    private static void generate(Path file, String name) {
        TestCertificates.selfSigned(name).writePkcs12(file, "jmx", "changeit");
    }
}
