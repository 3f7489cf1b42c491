package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sleepycat.je.rep.ReplicationSSLConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.store.bdbha.channel.AllowListAuthenticator;
import org.tandembroker.store.bdbha.channel.AllowListHostVerifier;
import org.tandembroker.store.bdbha.channel.ReplicationTls;

/** {@code <replicationTls>}: every setting validated at load, one line naming the file, setting, value and rule. */
class ReplicationTlsSettingsTest {
    @TempDir
    static Path certificates;
    static Path keyStore;
    static Path trustStore;
    static Path passwordFile;
    static Path passwordlessPkcs12Trust;

    @TempDir
    Path work;

    @BeforeAll
    static void makeCertificates() {
        TestCertificates made = new TestCertificates(certificates);
        Path authority = made.authority("ca");
        keyStore = made.nodeKeyStore("node-1", "ca");
        trustStore = made.trustStore("trust", authority);
        passwordFile = made.passwordFile();
        passwordlessPkcs12Trust = keyStore; // a PKCS12 store whose certificates are protected by its password
    }

    private Map<String, String> valid() {
        Map<String, String> elements = new HashMap<>();
        elements.put("groupName", "g");
        elements.put("nodeName", "node-1");
        elements.put("nodeHostPort", "localhost:5000");
        elements.put("helperHostPort", "localhost:5000");
        elements.putAll(TestCertificates.replicationTls(keyStore, trustStore, passwordFile, "CN=node-\\d, O=Tandem Test"));
        return elements;
    }

    private ReplicatedStoreSettings parse(Map<String, String> elements) throws ConfigException {
        return ReplicatedStoreSettings.from(new StoreSettings(HaGroup.VHOST_FILE, "bdb-ha", elements, List.of(),
                List.of()), new StoreContext("test", work, "broker1.example:5672", new OperationalLog()));
    }

    private void refused(Map<String, String> elements, String... fragments) {
        assertThatThrownBy(() -> parse(elements)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(HaGroup.VHOST_FILE + ": ")
                .hasMessageContainingAll(fragments)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain(
                        TestCertificates.PASSWORD));
    }

    private Map<String, String> with(String setting, String value) {
        Map<String, String> elements = valid();
        if (value == null) {
            elements.remove("replicationTls/" + setting);
        } else {
            elements.put("replicationTls/" + setting, value);
        }
        return elements;
    }

    @Test
    void validSettingsBecomeJesSslChannelWithTheAllowListBothWays() throws Exception {
        ReplicatedStoreSettings settings = parse(valid());
        ReplicationTls tls = settings.replicationTls().orElseThrow();
        assertThat(tls.keyStore()).isEqualTo(keyStore);
        assertThat(tls.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(settings.replicationConfig("token").getRepNetConfig()).isInstanceOfSatisfying(
                ReplicationSSLConfig.class, ssl -> {
                    assertThat(ssl.getChannelType()).isEqualTo("ssl");
                    assertThat(ssl.getSSLKeyStore()).isEqualTo(keyStore.toString());
                    assertThat(ssl.getSSLKeyStorePassword()).isEmpty(); // from the source, never a property
                    assertThat(new String(ssl.getSSLKeyStorePasswordSource().getPassword()))
                            .isEqualTo(TestCertificates.PASSWORD);
                    assertThat(ssl.getSSLAuthenticatorClass()).isEqualTo(AllowListAuthenticator.class.getName());
                    assertThat(ssl.getSSLHostVerifierClass()).isEqualTo(AllowListHostVerifier.class.getName());
                    assertThat(ssl.getSSLAuthenticatorParams()).isEqualTo("CN=node-\\d, O=Tandem Test");
                    assertThat(ssl.getChannelFactoryParams()).isEqualTo("token");
                });
        assertThat(settings.toString()).doesNotContain(TestCertificates.PASSWORD);
    }

    @Test
    void withoutTheElementReplicationIsPlainTcp() throws Exception {
        Map<String, String> elements = valid();
        elements.keySet().removeIf(name -> name.startsWith("replicationTls/"));
        ReplicatedStoreSettings settings = parse(elements);
        assertThat(settings.replicationTls()).isEmpty();
        assertThat(settings.replicationConfig("token").getRepNetConfig().getChannelType()).isEqualTo("basic");
    }

    @Test
    void aPasswordWrittenInTheConfigurationIsRefused() {
        refused(with("keyStorePassword", "secret"), "<store/replicationTls/keyStorePassword>", "(not shown)",
                "keyStorePasswordFile", "keyStorePasswordEnv");
    }

    @Test
    void thePasswordComesFromExactlyOneOfAFileAndAnEnvironmentVariable() throws Exception {
        refused(with("keyStorePasswordFile", null), "<store/replicationTls/keyStorePasswordFile>", "exactly one");
        refused(with("keyStorePasswordEnv", "TANDEM_KEYSTORE_PASSWORD"), "exactly one");
        refused(with("keyStorePasswordFile", work.resolve("missing").toString()), "cannot read the password file");
        Map<String, String> env = with("keyStorePasswordFile", null);
        env.put("replicationTls/keyStorePasswordEnv", "TANDEM_TEST_SURELY_UNSET_VARIABLE");
        refused(env, "<store/replicationTls/keyStorePasswordEnv>", "TANDEM_TEST_SURELY_UNSET_VARIABLE",
                "is not set");
        Map<String, String> values = new HashMap<>();
        values.put("keyStore", keyStore.toString());
        values.put("keyStorePasswordEnv", "NODE_PASSWORD");
        values.put("trustStore", trustStore.toString());
        values.put("trustStoreType", "JKS");
        values.put("allowedNodes", "mirror");
        ReplicationTls fromEnvironment = ReplicationTls.from(Path.of("arbiter.properties"), "replicationTls",
                values, work, name -> name.equals("NODE_PASSWORD") ? TestCertificates.PASSWORD : null);
        assertThat(fromEnvironment.keyStorePassword().variable()).isEqualTo("NODE_PASSWORD");
    }

    @Test
    void aWrongPasswordOrAMissingStoreIsReportedAtLoad() throws Exception {
        Path wrong = work.resolve("wrong.password");
        java.nio.file.Files.writeString(wrong, "not-the-password\n");
        refused(with("keyStorePasswordFile", wrong.toString()), "<store/replicationTls/keyStore>",
                "opens with the password from the file " + wrong);
        refused(with("keyStore", null), "<store/replicationTls/keyStore>");
        refused(with("trustStore", work.resolve("none.jks").toString()), "<store/replicationTls/trustStore>",
                "does not exist");
        refused(with("keyStore", trustStore.toString()), "holding this node's private key");
    }

    @Test
    void aTrustStoreJeCannotReadWithoutAPasswordIsRefused() {
        Map<String, String> elements = with("trustStore", passwordlessPkcs12Trust.toString());
        elements.put("replicationTls/trustStoreType", "PKCS12");
        refused(elements, "<store/replicationTls/trustStore>", "without a password", "JKS");
    }

    @Test
    void theAllowListProtocolsAndTypesAreChecked() {
        refused(with("allowedNodes", null), "<store/replicationTls/allowedNodes>", "mirror");
        refused(with("allowedNodes", "CN=(node"), "<store/replicationTls/allowedNodes>", "regular expression");
        refused(with("protocols", "SSLv3"), "<store/replicationTls/protocols>", "TLSv1.3");
        refused(with("keyStoreType", "NOPE"), "<store/replicationTls/keyStoreType>", "PKCS12");
        refused(with("cipherSuite", "x"), "<cipherSuite>", "allowedNodes");
    }
}
