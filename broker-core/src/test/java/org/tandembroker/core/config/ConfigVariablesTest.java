package org.tandembroker.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Placeholders in configuration files: values from variables, validated as file values, errors naming the variable. */
class ConfigVariablesTest {
    private static final String BROKER = """
            <broker>
              <listeners advertisedAddress="${TANDEM_ADVERTISED_ADDRESS:-localhost:5672}">
                <listener name="amqp" host="${TANDEM_AMQP_HOST:-0.0.0.0}" port="${TANDEM_AMQP_PORT:-5672}"/>
              </listeners>
              <virtualHosts><virtualHost name="default" file="vhosts/default.xml"/></virtualHosts>
            </broker>
            """;
    private static final String VHOST = """
            <virtualHost name="default">
              <store type="bdb-ha">
                <groupName>${TANDEM_GROUP_NAME:-tandem}</groupName>
                <nodeName>${TANDEM_NODE_NAME}</nodeName>
                <nodeHostPort>${TANDEM_NODE_HOST}:${TANDEM_REPLICATION_PORT:-5000}</nodeHostPort>
              </store>
            </virtualHost>
            """;

    @TempDir
    Path dir;
    Path brokerXml;

    @BeforeEach
    void writeFiles() throws IOException {
        brokerXml = dir.resolve("broker.xml");
        Files.writeString(brokerXml, BROKER);
        Files.writeString(dir.resolve("users"), "# none\n");
        Files.createDirectories(dir.resolve("vhosts"));
        Files.writeString(dir.resolve("vhosts/default.xml"), VHOST);
    }

    private BrokerConfig load(Map<String, String> variables) throws ConfigException {
        return BrokerConfigLoader.load(brokerXml, Map.of(), ConfigVariables.of(variables));
    }

    @Test
    void setVariablesReplaceTheirPlaceholdersAndUnsetOnesTakeTheirDefaults() throws ConfigException {
        BrokerConfig config = load(Map.of("TANDEM_NODE_NAME", "node-b", "TANDEM_NODE_HOST", "node-b",
                "TANDEM_AMQP_PORT", "5673"));

        assertThat(config.listeners().get(0).port()).isEqualTo(5673);
        assertThat(config.listeners().get(0).host()).isEqualTo("0.0.0.0");
        assertThat(config.advertisedClientAddress()).isEqualTo("localhost:5672");
        StoreSettings store = config.virtualHosts().get(0).store();
        assertThat(store.text("nodeName")).contains("node-b");
        assertThat(store.text("groupName")).contains("tandem");
        assertThat(store.text("nodeHostPort")).contains("node-b:5000");
    }

    @Test
    void anEmptyVariableCountsAsUnset() throws ConfigException {
        BrokerConfig config = load(Map.of("TANDEM_NODE_NAME", "a", "TANDEM_NODE_HOST", "h", "TANDEM_AMQP_PORT", ""));

        assertThat(config.listeners().get(0).port()).isEqualTo(5672);
    }

    @Test
    void aBadValueFromAVariableIsRefusedNamingTheVariable() {
        assertThatThrownBy(() -> load(Map.of("TANDEM_NODE_NAME", "a", "TANDEM_NODE_HOST", "h",
                "TANDEM_AMQP_PORT", "70000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("broker.xml")
                .hasMessageContaining("<listeners/listener[amqp]@port (from ${TANDEM_AMQP_PORT})>")
                .hasMessageContaining("'70000'")
                .hasMessageContaining("allowed: an integer from 0 to 65535");
    }

    @Test
    void aRequiredVariableThatIsNotSetIsRefusedNamingVariableAndElement() {
        assertThatThrownBy(() -> load(Map.of("TANDEM_NODE_HOST", "h")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("default.xml: <store/nodeName> reads ${TANDEM_NODE_NAME}, which is not set")
                .hasMessageContaining("set TANDEM_NODE_NAME");
    }

    @Test
    void storeErrorsNameTheVariableTheStoreElementCameFrom() throws ConfigException {
        StoreSettings store = load(Map.of("TANDEM_NODE_NAME", "bad name", "TANDEM_NODE_HOST", "h"))
                .virtualHosts().get(0).store();
        ConfigException fromFactory = ConfigException.invalidValue(store.sourceFile(), "store/nodeName", "bad name",
                "1-64 letters");

        assertThat(store.namingSources(fromFactory).getMessage())
                .contains("<store/nodeName (from ${TANDEM_NODE_NAME})> has invalid value 'bad name'");
        assertThat(store.sources()).containsOnlyKeys("groupName", "nodeName", "nodeHostPort");
    }

    @Test
    void aMalformedPlaceholderIsRefused() throws IOException {
        Files.writeString(brokerXml, BROKER.replace("${TANDEM_AMQP_PORT:-5672}", "${TANDEM_AMQP_PORT"));

        assertThatThrownBy(() -> load(Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("@port")
                .hasMessageContaining("closed by '}'");
    }

    @Test
    void aDoubledDollarIsALiteralPlaceholderText() throws IOException, ConfigException {
        Files.writeString(dir.resolve("vhosts/default.xml"), """
                <virtualHost name="default"><store type="memory"><note>$${NOT_A_VARIABLE}</note></store></virtualHost>
                """);

        assertThat(load(Map.of()).virtualHosts().get(0).store().text("note")).contains("${NOT_A_VARIABLE}");
    }

    @Test
    void systemPropertiesComeBeforeTheEnvironment() throws ConfigException {
        System.setProperty("TANDEM_TEST_ONLY_PORT", "6001");
        try {
            assertThat(ConfigVariables.SYSTEM.resolve(brokerXml, "x", "${TANDEM_TEST_ONLY_PORT:-1}")).isEqualTo("6001");
            assertThat(ConfigVariables.SYSTEM.resolve(brokerXml, "x", "${PATH}")).isEqualTo(System.getenv("PATH"));
        } finally {
            System.clearProperty("TANDEM_TEST_ONLY_PORT");
        }
    }
}
