package org.tandembroker.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfigLoader;
import org.tandembroker.core.daemon.Broker;
import org.tandembroker.core.security.PasswordHash;

/**
 * {@code ha-admin} against a broker whose JMX connector uses TLS: with {@code --tls} and a trust store that trusts
 * the broker's certificate it works; without {@code --tls} it cannot connect (exit 3) and says to add it. Runs in a
 * JVM of its own (see the pom): trusting a store replaces the JVM's default SSL context.
 */
class HaAdminTlsTest {
    @TempDir
    Path directory;

    @Test
    void withTlsAndATrustStoreStatusWorksAndWithoutTlsTheToolSaysToAddIt() throws Exception {
        Path etc = Files.createDirectories(directory.resolve("etc"));
        Path keyStore = etc.resolve("jmx.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "jmx", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", keyStore.toString(), "-storepass", "changeit",
                "-keypass", "changeit", "-ext", "SAN=dns:localhost,ip:127.0.0.1").inheritIO().start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).isZero();
        int jmxPort = InJvmBroker.freePort();
        int replicationPort = InJvmBroker.freePort();
        Files.writeString(etc.resolve("broker.xml"), """
                <broker>
                  <listeners><listener name="amqp" host="127.0.0.1" port="0"/></listeners>
                  <virtualHosts><virtualHost name="default" file="default.xml"/></virtualHosts>
                  <management>
                    <jmx host="127.0.0.1" port="%d" keyStore="jmx.p12" keyStorePassword="changeit"/>
                  </management>
                </broker>
                """.formatted(jmxPort));
        Files.writeString(etc.resolve("default.xml"), "<virtualHost name=\"default\">"
                + InJvmBroker.replicatedStore(directory.resolve("store"), "secure", "node-1", replicationPort,
                replicationPort) + "</virtualHost>");
        Files.writeString(etc.resolve("users"), "admin:" + PasswordHash.create("admin".toCharArray(), 1000).encode()
                + ":role=admin\n");
        String[] admin = {"--port", String.valueOf(jmxPort), "--user", "admin", "--password", "admin"};

        try (Broker broker = Broker.start(BrokerConfigLoader.load(etc.resolve("broker.xml")), directory.resolve("w"))) {
            ToolRun plain = ToolRun.haAdmin(admin, "status", "--connect-timeout", "10");
            ToolRun secure = ToolRun.haAdmin(admin, "status", "--tls", "--trust-store", keyStore.toString(),
                    "--trust-store-password", "changeit");

            assertThat(plain.exitCode()).as(plain.toString()).isEqualTo(3);
            assertThat(plain.err()).contains("add --tls");
            assertThat(secure.exitCode()).as(secure.toString()).isZero();
            assertThat(secure.out()).contains("asked node node-1 (MASTER)");
        }
    }
}
