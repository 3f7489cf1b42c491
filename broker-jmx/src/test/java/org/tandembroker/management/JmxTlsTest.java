package org.tandembroker.management;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.rmi.ssl.SslRMIClientSocketFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.security.PasswordHash;

/**
 * The JMX connector over TLS: registry and server on one port, both TLS. Runs in a JVM of its own (see the pom):
 * the JDK's RMI TLS client uses the JVM's default SSL context, which this test replaces.
 */
class JmxTlsTest {
    @TempDir
    Path directory;

    @Test
    void aClientTrustingTheKeyStoreConnectsOverTlsAndAPlainClientCannot() throws Exception {
        Path etc = Files.createDirectories(directory.resolve("etc"));
        Path keyStore = etc.resolve("jmx.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "jmx", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", keyStore.toString(), "-storepass", "changeit",
                "-keypass", "changeit", "-ext", "SAN=dns:localhost,ip:127.0.0.1").inheritIO().start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).isZero();
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
        SSLContext.setDefault(trusting(keyStore));

        try (Broker broker = Broker.start(BrokerConfigLoader.load(etc.resolve("broker.xml")), directory.resolve("w"))) {
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://localhost:" + port + "/jmxrmi");
            Map<String, Object> environment = new HashMap<>();
            environment.put(JMXConnector.CREDENTIALS, new String[] {"admin", "admin"});
            environment.put("com.sun.jndi.rmi.factory.socket", new SslRMIClientSocketFactory());
            try (JMXConnector connector = JMXConnectorFactory.connect(url, environment)) {
                assertThat(connector.getMBeanServerConnection().getAttribute(
                        new ObjectName("org.tandembroker:type=VirtualHost,name=plain"), "State")).isEqualTo("ACTIVE");
            }

            Map<String, Object> plain = new HashMap<>();
            plain.put(JMXConnector.CREDENTIALS, new String[] {"admin", "admin"});
            assertThat(catchThrowable(() -> JMXConnectorFactory.connect(url, plain).close())).isNotNull();
        }
    }

    private static SSLContext trusting(Path keyStore) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            trusted.load(in, "changeit".toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
