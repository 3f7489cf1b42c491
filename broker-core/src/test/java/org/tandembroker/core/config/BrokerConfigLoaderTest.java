package org.tandembroker.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.tandembroker.core.config.ConfigAssertions.rejectionOf;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerConfigLoaderTest {

    private static final String MINIMAL_VHOST = """
            <virtualHost name="%s"><store type="memory"/></virtualHost>
            """;
    private static final String ONE_HOST = """
              <virtualHosts default="default">
                <virtualHost name="default" file="vhosts/default.xml"/>
              </virtualHosts>
            """;
    private static final String ONE_LISTENER = """
              <listeners><listener name="amqp" host="127.0.0.1" port="5672"/></listeners>
            """;

    @TempDir
    Path dir;
    Path brokerXml;

    @BeforeEach
    void writeSupportingFiles() throws IOException {
        brokerXml = dir.resolve("broker.xml");
        Files.writeString(dir.resolve("users"), "# no users\n");
        Files.createDirectories(dir.resolve("vhosts"));
        Files.writeString(dir.resolve("vhosts/default.xml"), MINIMAL_VHOST.formatted("default"));
    }

    private Path broker(String body) throws IOException {
        Files.writeString(brokerXml, "<broker>\n" + body + "</broker>\n");
        return brokerXml;
    }

    private String rejects(String body, String... parts) throws IOException {
        Path file = broker(body);
        String[] all = new String[parts.length + 1];
        all[0] = "broker.xml";
        System.arraycopy(parts, 0, all, 1, parts.length);
        return rejectionOf(() -> BrokerConfigLoader.load(file), all);
    }

    @Test
    void loadsEveryElementOfACompleteBrokerFile() throws IOException, ConfigException {
        Files.writeString(dir.resolve("broker.p12"), "not checked by the loader");
        Files.writeString(dir.resolve("vhosts/test.xml"), MINIMAL_VHOST.formatted("test"));
        BrokerConfig config = BrokerConfigLoader.load(broker("""
                  <listeners advertisedAddress="broker1.example.com:5672">
                    <listener name="amqp" host="0.0.0.0" port="5672"/>
                    <listener name="amqps" host="0.0.0.0" port="5671">
                      <tls keyStore="broker.p12" keyStoreType="pkcs12" keyStorePassword="changeit"/>
                    </listener>
                  </listeners>
                  <security usersFile="users" anonymous="true"/>
                  <limits maxFrameSize="64KiB" maxMessageSize="10MiB" idleTimeout="30s" maxConnections="20"
                          linkCredit="100"/>
                  <memory messageBudget="1GiB"/>
                  <virtualHosts default="test">
                    <virtualHost name="default" file="vhosts/default.xml"/>
                    <virtualHost name="test" file="vhosts/test.xml"/>
                  </virtualHosts>
                """));

        assertThat(config.sourceFile()).isEqualTo(brokerXml.toAbsolutePath().normalize());
        assertThat(config.listeners()).containsExactly(
                new ListenerConfig("amqp", "0.0.0.0", 5672, Optional.empty()),
                new ListenerConfig("amqps", "0.0.0.0", 5671, Optional.of(
                        new TlsConfig(dir.resolve("broker.p12").toAbsolutePath().normalize(), "PKCS12", "changeit"))));
        assertThat(config.listeners().get(1).tls().orElseThrow().keyStorePassword()).isEqualTo("changeit");
        assertThat(config.advertisedClientAddress()).isEqualTo("broker1.example.com:5672");
        assertThat(config.usersFile()).isEqualTo(dir.resolve("users").toAbsolutePath().normalize());
        assertThat(config.anonymousEnabled()).isTrue();
        assertThat(config.limits()).isEqualTo(
                new ConnectionLimits(64 * 1024, 10L * 1024 * 1024, Duration.ofSeconds(30), 20, 100));
        assertThat(config.messageMemoryBudget()).isEqualTo(1024L * 1024 * 1024);
        assertThat(config.virtualHosts()).extracting(VirtualHostConfig::name).containsExactly("default", "test");
        assertThat(config.virtualHost("test").orElseThrow().sourceFile())
                .isEqualTo(dir.resolve("vhosts/test.xml").toAbsolutePath().normalize());
        assertThat(config.defaultVirtualHost()).isEqualTo("test");
    }

    @Test
    void appliesDefaultsForOmittedOptionalElements() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker("""
                  <listeners><listener name="amqp" port="5672"/></listeners>
                  <virtualHosts><virtualHost name="default" file="vhosts/default.xml"/></virtualHosts>
                """));

        assertThat(config.listeners().get(0).host()).isEqualTo("0.0.0.0");
        assertThat(config.usersFile()).isEqualTo(dir.resolve("users").toAbsolutePath().normalize());
        assertThat(config.anonymousEnabled()).isFalse();
        assertThat(config.limits()).isEqualTo(ConnectionLimits.DEFAULTS);
        assertThat(config.messageMemoryBudget()).isEqualTo(128L * 1024 * 1024);
        assertThat(config.queueWindow()).isEqualTo(BrokerConfig.DEFAULT_QUEUE_WINDOW).isEqualTo(20_000);
        assertThat(config.defaultVirtualHost()).isEqualTo("default");
    }

    @Test
    void derivesAdvertisedAddressFromTheFirstListenerWithoutTls() throws IOException, ConfigException {
        Files.writeString(dir.resolve("broker.p12"), "");
        BrokerConfig config = BrokerConfigLoader.load(broker("""
                  <listeners>
                    <listener name="amqps" host="127.0.0.1" port="5671">
                      <tls keyStore="broker.p12" keyStorePassword="changeit"/>
                    </listener>
                    <listener name="amqp" host="127.0.0.2" port="5673"/>
                  </listeners>
                """ + ONE_HOST));

        assertThat(config.advertisedClientAddress()).isEqualTo("127.0.0.2:5673");
        assertThat(config.listeners().get(0).tls().orElseThrow().keyStoreType()).isEqualTo("PKCS12");
    }

    @Test
    void advertisesThisMachinesHostNameForAWildcardListener() throws IOException, ConfigException {
        String expectedHost;
        try {
            expectedHost = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            expectedHost = "localhost";
        }
        BrokerConfig config = BrokerConfigLoader.load(broker("""
                  <listeners><listener name="amqp" host="0.0.0.0" port="5672"/></listeners>
                """ + ONE_HOST));

        assertThat(config.advertisedClientAddress()).isEqualTo(expectedHost + ":5672");
    }

    @Test
    void bracketsAnIpv6ListenerHostInTheAdvertisedAddress() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker("""
                  <listeners><listener name="amqp" host="::1" port="5672"/></listeners>
                """ + ONE_HOST));

        assertThat(config.advertisedClientAddress()).isEqualTo("[::1]:5672");
    }

    @Test
    void acceptsPortZeroForAnEphemeralPort() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker("""
                  <listeners><listener name="amqp" host="127.0.0.1" port="0"/></listeners>
                """ + ONE_HOST));

        assertThat(config.listeners().get(0).port()).isZero();
    }

    @Test
    void rejectsPortOutOfRangeNamingFileElementAndAllowedValues() throws IOException {
        rejects("""
                  <listeners><listener name="amqp" port="70000"/></listeners>
                """ + ONE_HOST, "<listeners/listener[amqp]@port>", "'70000'", "from 0 to 65535");
    }

    @Test
    void rejectsNonNumericPort() throws IOException {
        rejects("""
                  <listeners><listener name="amqp" port="amqp"/></listeners>
                """ + ONE_HOST, "listeners/listener[amqp]@port", "'amqp'", "an integer from 0 to 65535");
    }

    @Test
    void rejectsListenerWithoutPort() throws IOException {
        rejects("""
                  <listeners><listener name="amqp"/></listeners>
                """ + ONE_HOST, "listeners/listener[amqp]@port", "required but missing", "0 to 65535");
    }

    @Test
    void rejectsListenersWithoutAnyListener() throws IOException {
        rejects("<listeners/>\n" + ONE_HOST, "listeners/listener", "required but missing");
    }

    @Test
    void rejectsFileWithoutListeners() throws IOException {
        rejects(ONE_HOST, "<listeners>", "required but missing");
    }

    @Test
    void rejectsDuplicateListenerNames() throws IOException {
        rejects("""
                  <listeners>
                    <listener name="amqp" port="5672"/>
                    <listener name="amqp" port="5673"/>
                  </listeners>
                """ + ONE_HOST, "listeners/listener[amqp]@name", "'amqp'", "not used by another listener");
    }

    @Test
    void rejectsTwoListenersOnTheSameHostAndPort() throws IOException {
        rejects("""
                  <listeners>
                    <listener name="a" host="127.0.0.1" port="5672"/>
                    <listener name="b" host="127.0.0.1" port="5672"/>
                  </listeners>
                """ + ONE_HOST, "listeners/listener[b]@port", "'5672'", "listener a");
    }

    @Test
    void rejectsListenerNameWithWhitespace() throws IOException {
        rejects("""
                  <listeners><listener name="my listener" port="5672"/></listeners>
                """ + ONE_HOST, "@name", "'my listener'", ConfigElement.NAME_RULE);
    }

    @Test
    void rejectsNameLongerThan255Characters() throws IOException {
        String longName = "x".repeat(256);
        rejects("<listeners><listener name=\"" + longName + "\" port=\"5672\"/></listeners>\n" + ONE_HOST,
                "@name", longName, "1-255 characters");
    }

    @Test
    void rejectsAdvertisedAddressWithoutPort() throws IOException {
        rejects("""
                  <listeners advertisedAddress="broker1"><listener name="amqp" port="5672"/></listeners>
                """ + ONE_HOST, "listeners@advertisedAddress", "'broker1'", "host:port");
    }

    @Test
    void rejectsUnknownElementListingTheAllowedOnes() throws IOException {
        rejects(ONE_LISTENER + "<listner/>\n" + ONE_HOST, "<listner>", "not allowed",
                "listeners, security, limits, memory, virtualHosts");
    }

    @Test
    void rejectsUnknownAttributeListingTheAllowedOnes() throws IOException {
        rejects(ONE_LISTENER + "<limits maxFrame=\"64KiB\"/>\n" + ONE_HOST, "<limits@maxFrame>",
                "maxFrameSize, maxMessageSize, idleTimeout, maxConnections, linkCredit");
    }

    @Test
    void rejectsAnElementThatAppearsTwice() throws IOException {
        rejects(ONE_LISTENER + "<limits/><limits/>\n" + ONE_HOST, "<limits>", "2 times", "at most once");
    }

    @Test
    void rejectsTextWhereOnlyElementsBelong() throws IOException {
        rejects("<listeners>amqp<listener name=\"amqp\" port=\"5672\"/></listeners>\n" + ONE_HOST,
                "<listeners>", "'amqp'", "listener");
    }

    @Test
    void rejectsMalformedXmlWithLineAndColumn() throws IOException {
        Files.writeString(brokerXml, "<broker>\n  <listeners>\n</broker>\n");
        String message = rejectionOf(() -> BrokerConfigLoader.load(brokerXml), "broker.xml:3:", "malformed XML");
        assertThat(message).matches(".*broker\\.xml:3:\\d+: malformed XML: .+");
    }

    @Test
    void refusesADoctypeSoThatNoExternalEntityIsRead() throws IOException {
        Path secret = Files.writeString(dir.resolve("secret.txt"), "TOP-SECRET");
        Files.writeString(brokerXml, """
                <?xml version="1.0"?>
                <!DOCTYPE broker [<!ENTITY leak SYSTEM "%s">]>
                <broker><listeners advertisedAddress="&leak;"/></broker>
                """.formatted(secret.toUri()));
        String message = rejectionOf(() -> BrokerConfigLoader.load(brokerXml), "broker.xml:2:", "DOCTYPE");
        assertThat(message).doesNotContain("TOP-SECRET");
    }

    @Test
    void rejectsAnotherRootElement() throws IOException {
        Files.writeString(brokerXml, "<virtualHost name=\"x\"/>");
        rejectionOf(() -> BrokerConfigLoader.load(brokerXml), "broker.xml", "<virtualHost>", "allowed: <broker>");
    }

    @Test
    void rejectsAMissingBrokerFile() {
        Path missing = dir.resolve("nope.xml");
        rejectionOf(() -> BrokerConfigLoader.load(missing), "nope.xml", "not found");
    }

    @Test
    void rejectsFrameSizeBelowTheAmqpMinimum() throws IOException {
        rejects(ONE_LISTENER + "<limits maxFrameSize=\"100\"/>\n" + ONE_HOST, "limits@maxFrameSize", "'100'",
                "from 512 to", "KiB");
    }

    @Test
    void rejectsMalformedSize() throws IOException {
        rejects(ONE_LISTENER + "<limits maxMessageSize=\"lots\"/>\n" + ONE_HOST, "limits@maxMessageSize",
                "'lots'", Units.BYTES_FORMAT);
    }

    @Test
    void rejectsDurationWithoutUnit() throws IOException {
        rejects(ONE_LISTENER + "<limits idleTimeout=\"60\"/>\n" + ONE_HOST, "limits@idleTimeout", "'60'",
                Units.DURATION_FORMAT);
    }

    @Test
    void readsZeroIdleTimeoutAsNone() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker(ONE_LISTENER + "<limits idleTimeout=\"0\"/>\n"
                + ONE_HOST));

        assertThat(config.limits().idleTimeout()).isEqualTo(Duration.ZERO);
    }

    @Test
    void rejectsZeroMaxConnections() throws IOException {
        rejects(ONE_LISTENER + "<limits maxConnections=\"0\"/>\n" + ONE_HOST, "limits@maxConnections", "'0'",
                "from 1 to 2147483647");
    }

    @Test
    void rejectsNegativeMessageBudget() throws IOException {
        rejects(ONE_LISTENER + "<memory messageBudget=\"-1\"/>\n" + ONE_HOST, "memory@messageBudget", "'-1'",
                ">= 0");
    }

    @Test
    void readsTheQueueWindowAndZeroTurnsPagingOff() throws IOException, ConfigException {
        assertThat(BrokerConfigLoader.load(broker(ONE_LISTENER + "<memory queueWindow=\"500\"/>\n" + ONE_HOST))
                .queueWindow()).isEqualTo(500);
        assertThat(BrokerConfigLoader.load(broker(ONE_LISTENER + "<memory queueWindow=\"0\"/>\n" + ONE_HOST))
                .queueWindow()).isZero();
    }

    @Test
    void rejectsAQueueWindowThatIsNotACountOfEntries() throws IOException {
        rejects(ONE_LISTENER + "<memory queueWindow=\"-5\"/>\n" + ONE_HOST, "memory@queueWindow", "'-5'",
                "an integer from 0 to 100000000");
        rejects(ONE_LISTENER + "<memory queueWindow=\"20k\"/>\n" + ONE_HOST, "memory@queueWindow", "'20k'",
                "an integer from 0 to 100000000");
    }

    @Test
    void aWarmUpIsReadFromItsElementAndAbsentMeansNone() throws IOException, ConfigException {
        assertThat(BrokerConfigLoader.load(broker(ONE_LISTENER + "<warmUp duration=\"15s\"/>\n" + ONE_HOST))
                .warmUp()).isEqualTo(Duration.ofSeconds(15));
        assertThat(BrokerConfigLoader.load(broker(ONE_LISTENER + "<warmUp duration=\"0\"/>\n" + ONE_HOST))
                .warmsUp()).isFalse();
        BrokerConfig without = BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST));
        assertThat(without.warmUp()).isZero();
        assertThat(without.warmsUp()).isFalse();
    }

    @Test
    void rejectsAWarmUpLongerThanTwoMinutesOrThatIsNotADuration() throws IOException {
        rejects(ONE_LISTENER + "<warmUp duration=\"3min\"/>\n" + ONE_HOST, "warmUp@duration", "'3min'",
                "0 (no warm-up) to 120s");
        rejects(ONE_LISTENER + "<warmUp duration=\"soon\"/>\n" + ONE_HOST, "warmUp@duration", "'soon'");
        rejects(ONE_LISTENER + "<warmUp time=\"5s\"/>\n" + ONE_HOST, "warmUp", "time");
    }

    @Test
    void rejectsAnonymousThatIsNotABoolean() throws IOException {
        rejects(ONE_LISTENER + "<security anonymous=\"yes\"/>\n" + ONE_HOST, "security@anonymous", "'yes'",
                "true, false");
    }

    @Test
    void rejectsAUsersFileThatDoesNotExist() throws IOException {
        rejects(ONE_LISTENER + "<security usersFile=\"passwd\"/>\n" + ONE_HOST, "security@usersFile",
                "'passwd'", "a readable users file");
    }

    @Test
    void rejectsAKeyStoreThatDoesNotExist() throws IOException {
        rejects("""
                  <listeners><listener name="amqps" port="5671">
                    <tls keyStore="missing.p12" keyStorePassword="x"/>
                  </listener></listeners>
                """ + ONE_HOST, "listeners/listener[amqps]/tls@keyStore", "'missing.p12'", "key store file");
    }

    @Test
    void rejectsAnUnknownKeyStoreType() throws IOException {
        Files.writeString(dir.resolve("broker.pem"), "");
        rejects("""
                  <listeners><listener name="amqps" port="5671">
                    <tls keyStore="broker.pem" keyStoreType="PEM" keyStorePassword="x"/>
                  </listener></listeners>
                """ + ONE_HOST, "tls@keyStoreType", "'PEM'", "PKCS12, JKS");
    }

    @Test
    void rejectsTlsWithoutKeyStorePassword() throws IOException {
        Files.writeString(dir.resolve("broker.p12"), "");
        rejects("""
                  <listeners><listener name="amqps" port="5671"><tls keyStore="broker.p12"/></listener></listeners>
                """ + ONE_HOST, "tls@keyStorePassword", "required but missing");
    }

    @Test
    void rejectsADefaultVirtualHostThatIsNotDeclared() throws IOException {
        rejects(ONE_LISTENER + """
                  <virtualHosts default="prod"><virtualHost name="default" file="vhosts/default.xml"/></virtualHosts>
                """, "virtualHosts@default", "'prod'", "one of the declared virtual hosts: default");
    }

    @Test
    void requiresTheDefaultVirtualHostWhenThereAreSeveral() throws IOException {
        Files.writeString(dir.resolve("vhosts/test.xml"), MINIMAL_VHOST.formatted("test"));
        rejects(ONE_LISTENER + """
                  <virtualHosts>
                    <virtualHost name="default" file="vhosts/default.xml"/>
                    <virtualHost name="test" file="vhosts/test.xml"/>
                  </virtualHosts>
                """, "virtualHosts@default", "required but missing", "default, test");
    }

    @Test
    void rejectsDuplicateVirtualHostNames() throws IOException {
        rejects(ONE_LISTENER + """
                  <virtualHosts>
                    <virtualHost name="default" file="vhosts/default.xml"/>
                    <virtualHost name="default" file="vhosts/default.xml"/>
                  </virtualHosts>
                """, "virtualHosts/virtualHost[default]@name", "'default'", "not used by another virtual host");
    }

    @Test
    void rejectsAVirtualHostWhoseFileGivesAnotherName() throws IOException {
        Files.writeString(dir.resolve("vhosts/other.xml"), MINIMAL_VHOST.formatted("other"));
        Path file = broker(ONE_LISTENER + """
                  <virtualHosts><virtualHost name="default" file="vhosts/other.xml"/></virtualHosts>
                """);
        rejectionOf(() -> BrokerConfigLoader.load(file), "other.xml", "virtualHost@name", "'other'", "'default'");
    }

    @Test
    void rejectsAVirtualHostFileThatDoesNotExist() throws IOException {
        rejects(ONE_LISTENER + """
                  <virtualHosts><virtualHost name="default" file="vhosts/missing.xml"/></virtualHosts>
                """, "virtualHosts/virtualHost[default]@file", "'vhosts/missing.xml'", "virtual host file");
    }

    @Test
    void reportsAnErrorInAVirtualHostFileWithThatFilesName() throws IOException {
        Files.writeString(dir.resolve("vhosts/default.xml"), """
                <virtualHost name="default"><store type="memory"/><queues autoCreate="maybe"/></virtualHost>
                """);
        Path file = broker(ONE_LISTENER + ONE_HOST);
        rejectionOf(() -> BrokerConfigLoader.load(file), "default.xml", "queues@autoCreate", "'maybe'",
                "true, false");
    }

    @Test
    void overrideChangesAListenersPortAndHost() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST),
                Map.of("listeners.amqp.port", "0", "listeners.amqp.host", "127.0.0.9"));

        assertThat(config.listeners()).containsExactly(new ListenerConfig("amqp", "127.0.0.9", 0, Optional.empty()));
        assertThat(config.advertisedClientAddress()).isEqualTo("127.0.0.9:0");
    }

    @Test
    void rejectsAnInvalidOverrideValueNamingTheOverride() throws IOException {
        Path file = broker(ONE_LISTENER + ONE_HOST);
        rejectionOf(() -> BrokerConfigLoader.load(file, Map.of("listeners.amqp.port", "-1")), "broker.xml",
                "listeners/listener[amqp]@port (from override listeners.amqp.port)", "'-1'", "0 to 65535");
    }

    @Test
    void rejectsAnOverrideForAListenerThatIsNotDeclared() throws IOException {
        Path file = broker(ONE_LISTENER + ONE_HOST);
        rejectionOf(() -> BrokerConfigLoader.load(file, Map.of("listeners.amqps.port", "0")),
                "broker.xml", "listeners.amqps.port", "names no listener", "amqp");
    }

    @Test
    void rejectsAnUnsupportedOverrideKey() throws IOException {
        Path file = broker(ONE_LISTENER + ONE_HOST);
        rejectionOf(() -> BrokerConfigLoader.load(file, Map.of("limits.maxConnections", "5")), "broker.xml",
                "'limits.maxConnections'", "listeners.<name>.port, listeners.<name>.host");
    }
    // ---- <management> ----

    @Test
    void withoutManagementJmxMetricsAndTheDiskWatermarkAreOff() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST));

        assertThat(config.management()).isEqualTo(ManagementConfig.OFF);
        assertThat(config.management().anyEnabled()).isFalse();
    }

    @Test
    void loadsEveryManagementElement() throws IOException, ConfigException {
        Files.writeString(dir.resolve("jmx.p12"), "not checked by the loader");
        BrokerConfig config = BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST + """
                  <management>
                    <jmx host="127.0.0.1" port="19001" rmiHostname="broker1.example.com" keyStore="jmx.p12"
                         keyStoreType="jks" keyStorePassword="changeit"/>
                    <metrics host="127.0.0.1" port="19404"/>
                    <disk watermark="2GiB" checkInterval="500ms"/>
                  </management>
                """));

        ManagementConfig management = config.management();
        assertThat(management.jmx()).isEqualTo(new ManagementConfig.Jmx(true, "127.0.0.1", 19001,
                Optional.of("broker1.example.com"), Optional.of(new TlsConfig(
                        dir.resolve("jmx.p12").toAbsolutePath().normalize(), "JKS", "changeit"))));
        assertThat(management.metrics()).isEqualTo(new ManagementConfig.Metrics(true, "127.0.0.1", 19404));
        assertThat(management.diskWatermark()).isEqualTo(
                new ManagementConfig.DiskWatermark(2L << 30, Duration.ofMillis(500)));
    }

    @Test
    void managementElementsPresentWithoutAttributesTakeTheirDefaults() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST
                + "<management><jmx/><metrics/></management>\n"));

        assertThat(config.management().jmx()).isEqualTo(
                new ManagementConfig.Jmx(true, "0.0.0.0", 9001, Optional.empty(), Optional.empty()));
        assertThat(config.management().metrics()).isEqualTo(new ManagementConfig.Metrics(true, "127.0.0.1", 9404));
        assertThat(config.management().diskWatermark().enabled()).isFalse();
    }

    @Test
    void jmxCanBeSwitchedOff() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST
                + "<management><jmx enabled=\"false\"/></management>\n"));

        assertThat(config.management().jmx().enabled()).isFalse();
        assertThat(config.management().anyEnabled()).isFalse();
    }

    @Test
    void rejectsJmxPortZeroSayingHowToSwitchItOff() throws IOException {
        rejects(ONE_LISTENER + ONE_HOST + "<management><jmx port=\"0\"/></management>\n",
                "management/jmx@port", "'0'", "from 1 to 65535");
    }

    @Test
    void rejectsAManagementPortUsedByAListenerOrByJmx() throws IOException {
        rejects(ONE_LISTENER + ONE_HOST + "<management><jmx port=\"5672\"/></management>\n",
                "management/jmx@port", "'5672'", "listener amqp");
        rejects(ONE_LISTENER + ONE_HOST + "<management><jmx port=\"9100\"/><metrics port=\"9100\"/></management>\n",
                "management/metrics@port", "'9100'", "<management/jmx>");
    }

    @Test
    void twoHostsMayUseTheSameManagementPort() throws IOException, ConfigException {
        BrokerConfig config = BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST + """
                  <management><jmx host="127.0.0.2" port="9100"/><metrics host="127.0.0.3" port="9100"/></management>
                """));

        assertThat(config.management().metrics().port()).isEqualTo(9100);
    }

    @Test
    void rejectsJmxKeyStoreOptionsWithoutAKeyStoreOrAPassword() throws IOException {
        Files.writeString(dir.resolve("jmx.p12"), "");
        rejects(ONE_LISTENER + ONE_HOST + "<management><jmx keyStorePassword=\"x\"/></management>\n",
                "management/jmx@keyStore", "required but missing");
        rejects(ONE_LISTENER + ONE_HOST + "<management><jmx keyStore=\"jmx.p12\"/></management>\n",
                "management/jmx@keyStorePassword", "required but missing");
        rejects(ONE_LISTENER + ONE_HOST + "<management><jmx keyStore=\"none.p12\" keyStorePassword=\"x\"/>"
                + "</management>\n", "management/jmx@keyStore", "'none.p12'", "key store file");
    }

    @Test
    void rejectsABadDiskWatermarkOrCheckInterval() throws IOException {
        rejects(ONE_LISTENER + ONE_HOST + "<management><disk watermark=\"lots\"/></management>\n",
                "management/disk@watermark", "'lots'", Units.BYTES_FORMAT);
        rejects(ONE_LISTENER + ONE_HOST + "<management><disk watermark=\"1GiB\" checkInterval=\"10ms\"/>"
                + "</management>\n", "management/disk@checkInterval", "'10ms'", "from 100ms to 1h");
    }

    @Test
    void rejectsUnknownManagementElementsAndAttributes() throws IOException {
        rejects(ONE_LISTENER + ONE_HOST + "<management><http/></management>\n", "<management/http>",
                "allowed: jmx, metrics, disk");
        rejects(ONE_LISTENER + ONE_HOST + "<management><jmx password=\"x\"/></management>\n",
                "management/jmx@password", "allowed: enabled, host, port, rmiHostname, keyStore");
        rejects(ONE_LISTENER + ONE_HOST + "<management><jmx enabled=\"yes\"/></management>\n",
                "management/jmx@enabled", "'yes'");
    }

    @Test
    void readsTheClientSecuritySettingsAndTheirDefaults() throws IOException, ConfigException {
        Files.writeString(dir.resolve("acl"), "allow user:guest all #\n");
        Files.writeString(dir.resolve("broker.p12"), "not checked by the loader");
        Files.writeString(dir.resolve("clients.p12"), "not checked by the loader");

        BrokerConfig defaults = BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST));
        BrokerConfig configured = BrokerConfigLoader.load(broker("""
                  <listeners>
                    <listener name="amqps" host="0.0.0.0" port="5671">
                      <tls keyStore="broker.p12" keyStorePassword="changeit"/>
                      <clientCertificates mode="required" trustStore="clients.p12" trustStorePassword="x"
                                          userName="dn"/>
                    </listener>
                  </listeners>
                  <security permissionsFile="acl" allowPlainWithoutTls="true" authFailureDelay="1s"
                            authFailureDelayMax="20s"/>
                """ + ONE_HOST));

        assertThat(defaults.security()).isEqualTo(SecurityConfig.DEFAULTS);
        assertThat(configured.security()).isEqualTo(new SecurityConfig(Optional.of(dir.resolve("acl")), true,
                Duration.ofSeconds(1), Duration.ofSeconds(20)));
        assertThat(configured.listeners().get(0).clientCertificates()).contains(new ClientCertificateConfig(true,
                dir.resolve("clients.p12"), "PKCS12", "x", ClientCertificateConfig.UserName.DN));
    }

    @Test
    void aPermissionsFileBesideTheBrokerFileIsUsedWithoutBeingNamed() throws IOException, ConfigException {
        Files.writeString(dir.resolve("permissions"), "allow user:guest all #\n");

        assertThat(BrokerConfigLoader.load(broker(ONE_LISTENER + ONE_HOST)).security().permissionsFile())
                .contains(dir.resolve("permissions"));
    }

    @Test
    void rejectsBadClientSecuritySettingsNamingElementValueAndAllowed() throws IOException {
        Files.writeString(dir.resolve("broker.p12"), "x");
        Files.writeString(dir.resolve("clients.p12"), "x");
        rejects("<security permissionsFile=\"missing\"/>" + ONE_LISTENER + ONE_HOST,
                "security@permissionsFile", "missing", "readable permissions file");
        rejects("<security authFailureDelay=\"2s\" authFailureDelayMax=\"1s\"/>" + ONE_LISTENER + ONE_HOST,
                "security@authFailureDelayMax", "1s", "from authFailureDelay");
        rejects("""
                  <listeners><listener name="amqp" host="0.0.0.0" port="5672">
                    <clientCertificates trustStore="clients.p12" trustStorePassword="x"/>
                  </listener></listeners>
                """ + ONE_HOST, "tls", "needs a TLS listener");
        rejects("""
                  <listeners><listener name="amqps" host="0.0.0.0" port="5671">
                    <tls keyStore="broker.p12" keyStorePassword="changeit"/>
                    <clientCertificates trustStore="clients.p12" trustStorePassword="x" userName="email"/>
                  </listener></listeners>
                """ + ONE_HOST, "clientCertificates@userName", "email", "cn (", "dn (");
        rejects("""
                  <listeners><listener name="amqps" host="0.0.0.0" port="5671">
                    <tls keyStore="broker.p12" keyStorePassword="changeit"/>
                    <clientCertificates mode="sometimes" trustStore="clients.p12" trustStorePassword="x"/>
                  </listener></listeners>
                """ + ONE_HOST, "clientCertificates@mode", "sometimes", "optional", "required");
    }
}
