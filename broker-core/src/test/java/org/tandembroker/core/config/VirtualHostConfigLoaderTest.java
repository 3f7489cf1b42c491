package org.tandembroker.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.tandembroker.core.config.ConfigAssertions.rejectionOf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.exchange.ExchangeType;

class VirtualHostConfigLoaderTest {

    private static final String STORE = "<store type=\"memory\"/>\n";

    @TempDir
    Path dir;

    private Path vhost(String body) throws IOException {
        return Files.writeString(dir.resolve("test.xml"), "<virtualHost name=\"test\">\n" + body + "</virtualHost>\n");
    }

    private VirtualHostConfig load(String body) throws IOException, ConfigException {
        return VirtualHostConfigLoader.load(vhost(body));
    }

    private String rejects(String body, String... parts) throws IOException {
        Path file = vhost(body);
        String[] all = new String[parts.length + 1];
        all[0] = "test.xml";
        System.arraycopy(parts, 0, all, 1, parts.length);
        return rejectionOf(() -> VirtualHostConfigLoader.load(file), all);
    }

    @Test
    void loadsTheDocumentedFormat() throws IOException, ConfigException {
        VirtualHostConfig config = load("""
                  <store type="bdb">
                    <storePath>default/store</storePath>
                    <durability>NO_SYNC</durability>
                    <coalescingSync>true</coalescingSync>
                    <envConfig><name>je.cleaner.threads</name><value>2</value></envConfig>
                    <repConfig><name>je.rep.insufficientReplicasTimeout</name><value>10 s</value></repConfig>
                  </store>
                  <queues autoCreate="false">
                    <defaults durable="true" maxDepthMessages="0" maxDepthBytes="0" messageTtl="0" maxDeliveries="10"
                              deadLetterQueue="DLQ"/>
                    <queue name="orders" durable="true" maxDepthMessages="100000" maxDepthBytes="1GiB"
                           messageTtl="1h" maxDeliveries="5" deadLetterQueue="orders.dlq"/>
                  </queues>
                  <exchanges>
                    <exchange name="news" type="topic" durable="true"/>
                  </exchanges>
                  <bindings>
                    <binding exchange="news" queue="orders" key="stocks.#"/>
                  </bindings>
                """);

        assertThat(config.name()).isEqualTo("test");
        assertThat(config.sourceFile()).isEqualTo(dir.resolve("test.xml").toAbsolutePath().normalize());
        StoreSettings store = config.store();
        assertThat(store.type()).isEqualTo("bdb");
        assertThat(store.sourceFile()).isEqualTo(config.sourceFile());
        assertThat(store.elements()).isEqualTo(Map.of("storePath", "default/store", "durability", "NO_SYNC",
                "coalescingSync", "true"));
        assertThat(store.envConfig()).containsExactly(new NameValue("je.cleaner.threads", "2"));
        assertThat(store.repConfig()).containsExactly(new NameValue("je.rep.insufficientReplicasTimeout", "10 s"));
        assertThat(config.autoCreateQueues()).isFalse();
        assertThat(config.queueDefaults()).isEqualTo(new QueueConfig("", true, 0, 0, 0, 10, "DLQ"));
        assertThat(config.queues()).containsExactly(
                new QueueConfig("orders", true, 100_000, 1024L * 1024 * 1024, 3_600_000, 5, "orders.dlq"));
        assertThat(config.exchanges()).containsExactly(new ExchangeConfig("news", ExchangeType.TOPIC, true));
        assertThat(config.bindings()).containsExactly(new BindingConfig("news", "orders", "stocks.#"));
    }

    @Test
    void withoutQueuesElementQueuesAreAutoCreatedWithBuiltInDefaults() throws IOException, ConfigException {
        VirtualHostConfig config = load(STORE);

        assertThat(config.autoCreateQueues()).isTrue();
        assertThat(config.queueDefaults()).isEqualTo(new QueueConfig("", true, 0, 0, 0, 0, null));
        assertThat(config.queues()).isEmpty();
        assertThat(config.exchanges()).isEmpty();
        assertThat(config.bindings()).isEmpty();
    }

    @Test
    void aDeclaredQueueTakesTheDefaultsForAttributesItLeavesOut() throws IOException, ConfigException {
        VirtualHostConfig config = load(STORE + """
                  <queues>
                    <defaults durable="false" maxDepthMessages="7" maxDepthBytes="1KiB" messageTtl="5s"
                              maxDeliveries="3" deadLetterQueue="DLQ"/>
                    <queue name="orders" maxDepthMessages="9"/>
                  </queues>
                """);

        assertThat(config.queues()).containsExactly(new QueueConfig("orders", false, 9, 1024, 5000, 3, "DLQ"));
    }

    @Test
    void aDeclaredDeadLetterQueueDoesNotInheritMaxDeliveriesOrADeadLetterQueue() throws IOException,
            ConfigException {
        VirtualHostConfig config = load(STORE + """
                  <queues>
                    <defaults maxDeliveries="10" deadLetterQueue="DLQ"/>
                    <queue name="DLQ"/>
                    <queue name="orders" deadLetterQueue="orders.dlq"/>
                    <queue name="orders.dlq" maxDeliveries="2" deadLetterQueue="DLQ"/>
                  </queues>
                """);

        assertThat(config.queues()).containsExactly(
                new QueueConfig("DLQ", true, 0, 0, 0, 0, null),
                new QueueConfig("orders", true, 0, 0, 0, 10, "orders.dlq"),
                new QueueConfig("orders.dlq", true, 0, 0, 0, 2, "DLQ"));
    }

    @Test
    void anEmptyDeadLetterQueueAttributeMeansNone() throws IOException, ConfigException {
        VirtualHostConfig config = load(STORE + """
                  <queues>
                    <defaults deadLetterQueue="DLQ"/>
                    <queue name="audit" deadLetterQueue=""/>
                  </queues>
                """);

        assertThat(config.queues().get(0).deadLetterQueue()).isNull();
    }

    @Test
    void aDeadLetterQueueThatIsNotDeclaredIsAllowed() throws IOException, ConfigException {
        VirtualHostConfig config = load(STORE + """
                  <queues><queue name="orders" deadLetterQueue="orders.dlq"/></queues>
                """);

        assertThat(config.queues()).extracting(QueueConfig::name).containsExactly("orders");
        assertThat(config.queues().get(0).deadLetterQueue()).isEqualTo("orders.dlq");
    }

    @Test
    void rejectsAQueueThatIsItsOwnDeadLetterQueue() throws IOException {
        rejects(STORE + "<queues><queue name=\"orders\" deadLetterQueue=\"orders\"/></queues>\n",
                "queues/queue[orders]@deadLetterQueue", "'orders'", "another queue");
    }

    @Test
    void readsZeroTtlAsNeverAndDurationsWithUnits() throws IOException, ConfigException {
        VirtualHostConfig config = load(STORE + """
                  <queues>
                    <queue name="a" messageTtl="0"/>
                    <queue name="b" messageTtl="250ms"/>
                    <queue name="c" messageTtl="2min"/>
                  </queues>
                """);

        assertThat(config.queues()).extracting(QueueConfig::messageTtlMillis).containsExactly(0L, 250L,
                Duration.ofMinutes(2).toMillis());
    }

    @Test
    void rejectsATtlWithoutUnit() throws IOException {
        rejects(STORE + "<queues><queue name=\"a\" messageTtl=\"60\"/></queues>\n", "queues/queue[a]@messageTtl",
                "'60'", "0 (none) or " + Units.DURATION_FORMAT);
    }

    @Test
    void rejectsANegativeMaxDepth() throws IOException {
        rejects(STORE + "<queues><defaults maxDepthMessages=\"-5\"/></queues>\n", "queues/defaults@maxDepthMessages",
                "'-5'", ">= 0");
    }

    @Test
    void rejectsAMalformedMaxDepthBytes() throws IOException {
        rejects(STORE + "<queues><queue name=\"a\" maxDepthBytes=\"1 lightyear\"/></queues>\n",
                "queues/queue[a]@maxDepthBytes", "'1 lightyear'", Units.BYTES_FORMAT);
    }

    @Test
    void rejectsAnUnknownQueueAttribute() throws IOException {
        rejects(STORE + "<queues><queue name=\"a\" exclusive=\"true\"/></queues>\n", "queues/queue[a]@exclusive",
                "name, durable, maxDepthMessages, maxDepthBytes, messageTtl, maxDeliveries, deadLetterQueue");
    }

    @Test
    void queuesHavePriorityOrderUnlessTheFileSwitchesItOffAndALastValueKeyOnlyWhereDeclared() throws IOException,
            ConfigException {
        VirtualHostConfig config = load(STORE + """
                  <queues>
                    <defaults priority="false"/>
                    <queue name="plain"/>
                    <queue name="urgent" priority="true"/>
                    <queue name="prices" lastValueKey="symbol"/>
                  </queues>
                """);

        assertThat(config.queueDefaults().options()).isEqualTo(new QueueOptions(false, null));
        assertThat(config.queues()).extracting(QueueConfig::options).containsExactly(new QueueOptions(false, null),
                new QueueOptions(true, null), new QueueOptions(false, "symbol"));
        assertThat(load(STORE).queueDefaults().options()).as("built in").isEqualTo(QueueOptions.DEFAULT);
    }

    @Test
    void rejectsALastValueKeyInTheDefaults() throws IOException {
        rejects(STORE + "<queues><defaults lastValueKey=\"symbol\"/></queues>\n", "queues/defaults@lastValueKey",
                "priority");
    }

    @Test
    void rejectsALastValueKeyThatIsNoPropertyName() throws IOException {
        rejects(STORE + "<queues><queue name=\"a\" lastValueKey=\"two words\"/></queues>\n",
                "queues/queue[a]@lastValueKey", "'two words'", "an application property name");
    }

    @Test
    void rejectsAPriorityThatIsNoBoolean() throws IOException {
        rejects(STORE + "<queues><queue name=\"a\" priority=\"high\"/></queues>\n", "queues/queue[a]@priority",
                "'high'", "true, false");
    }

    @Test
    void rejectsDuplicateQueueNames() throws IOException {
        rejects(STORE + "<queues><queue name=\"a\"/><queue name=\"a\"/></queues>\n", "queues/queue[a]@name", "'a'",
                "not used by another queue");
    }

    @Test
    void rejectsAnEmptyQueueName() throws IOException {
        rejects(STORE + "<queues><queue name=\"\"/></queues>\n", "queues/queue[1]@name", "''",
                ConfigElement.NAME_RULE);
    }

    @Test
    void rejectsAQueueNameLongerThan255Characters() throws IOException {
        String name = "q".repeat(256);
        rejects(STORE + "<queues><queue name=\"" + name + "\"/></queues>\n", "@name", name, "1-255 characters");
    }

    @Test
    void acceptsSeveralEnvConfigElementsAndSeveralPairsInOneKeepingFileOrder() throws IOException,
            ConfigException {
        VirtualHostConfig config = load("""
                  <store type="bdb">
                    <envConfig><name>a</name><value>1</value></envConfig>
                    <envConfig>
                      <name>b</name><value>2</value>
                      <name>c</name><value>3</value>
                    </envConfig>
                    <repConfig><name>r</name><value>x</value></repConfig>
                  </store>
                """);

        assertThat(config.store().envConfig()).containsExactly(new NameValue("a", "1"), new NameValue("b", "2"),
                new NameValue("c", "3"));
        assertThat(config.store().repConfig()).containsExactly(new NameValue("r", "x"));
    }

    @Test
    void keepsCommasInStoreTextAndUnescapesBackslashEscapedCommas() throws IOException, ConfigException {
        VirtualHostConfig config = load("""
                  <store type="bdb-ha">
                    <durability>NO_SYNC,NO_SYNC,SIMPLE_MAJORITY</durability>
                    <oldDurability>NO_SYNC\\,NO_SYNC\\,SIMPLE_MAJORITY</oldDurability>
                    <storePath>C:\\tandem\\store</storePath>
                  </store>
                """);

        assertThat(config.store().text("durability")).contains("NO_SYNC,NO_SYNC,SIMPLE_MAJORITY");
        assertThat(config.store().text("oldDurability")).contains("NO_SYNC,NO_SYNC,SIMPLE_MAJORITY");
        assertThat(config.store().text("storePath")).contains("C:\\tandem\\store");
    }

    @Test
    void rejectsANameWithoutValueInEnvConfig() throws IOException {
        rejects("<store type=\"bdb\"><envConfig><name>je.x</name></envConfig></store>\n",
                "store/envConfig[1]/value", "required but missing", "je.x");
    }

    @Test
    void rejectsAnEmptyEnvConfig() throws IOException {
        rejects("<store type=\"bdb\"><envConfig/></store>\n", "store/envConfig[1]/name", "required but missing");
    }

    @Test
    void rejectsAnUnknownElementInEnvConfig() throws IOException {
        rejects("<store type=\"bdb\"><repConfig><key>k</key></repConfig></store>\n", "store/repConfig[1]/key",
                "not allowed", "name, value");
    }

    @Test
    void rejectsAFileWithoutStore() throws IOException {
        rejects("<queues/>\n", "<store>", "required but missing");
    }

    @Test
    void rejectsAStoreWithoutType() throws IOException {
        rejects("<store/>\n", "store@type", "required but missing");
    }

    @Test
    void rejectsAnAttributeOnAStoreElement() throws IOException {
        rejects("<store type=\"bdb\" path=\"x\"/>\n", "store@path", "allowed: type");
    }

    @Test
    void aGroupOfStoreSettingsIsFlattenedForTheStoreToCheck() throws IOException, ConfigException {
        VirtualHostConfig config = load("<store type=\"bdb-ha\"><replicationTls><keyStore>a.p12</keyStore>"
                + "<allowedNodes>CN=a</allowedNodes></replicationTls></store>\n");
        assertThat(config.store().elements()).containsEntry("replicationTls/keyStore", "a.p12")
                .containsEntry("replicationTls/allowedNodes", "CN=a");
    }

    @Test
    void rejectsElementsNestedInsideAGroupOfStoreSettings() throws IOException {
        rejects("<store type=\"bdb\"><replicationTls><keyStore><dir>x</dir></keyStore></replicationTls></store>\n",
                "<store/replicationTls/keyStore>", "contains elements", "text only");
    }

    @Test
    void rejectsTextBesideTheSettingsOfAGroup() throws IOException {
        rejects("<store type=\"bdb\"><replicationTls>x<keyStore>a</keyStore></replicationTls></store>\n",
                "<store/replicationTls>", "contains text 'x'", "allowed: child elements");
    }

    @Test
    void rejectsARepeatedSimpleStoreElement() throws IOException {
        rejects("<store type=\"bdb\"><storePath>a</storePath><storePath>b</storePath></store>\n",
                "store/storePath", "more than once");
    }

    @Test
    void acceptsExchangeTypesInAnyCase() throws IOException, ConfigException {
        VirtualHostConfig config = load(STORE + """
                  <exchanges>
                    <exchange name="d" type="DIRECT"/>
                    <exchange name="f" type="Fanout" durable="false"/>
                  </exchanges>
                """);

        assertThat(config.exchanges()).containsExactly(new ExchangeConfig("d", ExchangeType.DIRECT, true),
                new ExchangeConfig("f", ExchangeType.FANOUT, false));
    }

    @Test
    void rejectsAnUnknownExchangeTypeListingTheAllowedOnes() throws IOException {
        rejects(STORE + "<exchanges><exchange name=\"x\" type=\"headers\"/></exchanges>\n",
                "exchanges/exchange[x]@type", "'headers'", "direct, topic, fanout");
    }

    @Test
    void rejectsAnExchangeWithoutType() throws IOException {
        rejects(STORE + "<exchanges><exchange name=\"x\"/></exchanges>\n", "exchanges/exchange[x]@type",
                "required but missing", "direct, topic, fanout");
    }

    @Test
    void rejectsDeclaringAReservedAmqExchange() throws IOException {
        rejects(STORE + "<exchanges><exchange name=\"amq.topic\" type=\"topic\"/></exchanges>\n",
                "exchanges/exchange[amq.topic]@name", "'amq.topic'", "not starting with 'amq.'",
                "amq.direct, amq.fanout, amq.topic");
    }

    @Test
    void rejectsDuplicateExchangeNames() throws IOException {
        rejects(STORE + """
                  <exchanges><exchange name="x" type="direct"/><exchange name="x" type="topic"/></exchanges>
                """, "exchanges/exchange[x]@name", "'x'", "not used by another exchange");
    }

    @Test
    void rejectsAnExchangeNamedLikeAQueue() throws IOException {
        rejects(STORE + """
                  <queues><queue name="orders"/></queues>
                  <exchanges><exchange name="orders" type="direct"/></exchanges>
                """, "exchanges/exchange[orders]@name", "'orders'", "not used by a queue");
    }

    @Test
    void rejectsAQueueNamedLikeAPredeclaredExchange() throws IOException {
        rejects(STORE + "<queues><queue name=\"amq.fanout\"/></queues>\n", "queues/queue[amq.fanout]@name",
                "'amq.fanout'", "not used by an exchange");
    }

    @Test
    void rejectsAnExchangeNameWithASlash() throws IOException {
        rejects(STORE + "<exchanges><exchange name=\"a/b\" type=\"direct\"/></exchanges>\n",
                "exchanges/exchange[a/b]@name", "'a/b'", "without '/'");
    }

    @Test
    void rejectsABindingToAnUndeclaredExchange() throws IOException {
        rejects(STORE + """
                  <queues><queue name="orders"/></queues>
                  <exchanges><exchange name="news" type="topic"/></exchanges>
                  <bindings><binding exchange="newz" queue="orders" key="#"/></bindings>
                """, "bindings/binding[1]@exchange", "'newz'", "news, amq.direct, amq.fanout, amq.topic");
    }

    @Test
    void rejectsABindingToAnUndeclaredQueue() throws IOException {
        rejects(STORE + """
                  <queues><queue name="orders"/></queues>
                  <bindings><binding exchange="amq.direct" queue="ordres" key="k"/></bindings>
                """, "bindings/binding[1]@queue", "'ordres'", "a declared queue: orders");
    }

    @Test
    void bindsToPredeclaredExchangesAndNeedsNoKeyForFanout() throws IOException, ConfigException {
        VirtualHostConfig config = load(STORE + """
                  <queues><queue name="orders"/></queues>
                  <bindings>
                    <binding exchange="amq.fanout" queue="orders"/>
                    <binding exchange="amq.direct" queue="orders" key=""/>
                  </bindings>
                """);

        assertThat(config.bindings()).containsExactly(new BindingConfig("amq.fanout", "orders", ""),
                new BindingConfig("amq.direct", "orders", ""));
    }

    @Test
    void rejectsABindingWithoutKeyOnATopicExchange() throws IOException {
        rejects(STORE + """
                  <queues><queue name="orders"/></queues>
                  <bindings><binding exchange="amq.topic" queue="orders"/></bindings>
                """, "bindings/binding[1]@key", "required but missing", "topic exchange amq.topic");
    }

    @Test
    void rejectsATopicKeyWithAWildcardInsideAWord() throws IOException {
        rejects(STORE + """
                  <queues><queue name="orders"/></queues>
                  <bindings><binding exchange="amq.topic" queue="orders" key="stocks.ny*"/></bindings>
                """, "bindings/binding[1]@key", "'stocks.ny*'", "'*' (one word) and '#' (zero or more words)");
    }

    @Test
    void rejectsADuplicateBinding() throws IOException {
        rejects(STORE + """
                  <queues><queue name="orders"/></queues>
                  <bindings>
                    <binding exchange="amq.topic" queue="orders" key="a.*"/>
                    <binding exchange="amq.topic" queue="orders" key="a.*"/>
                  </bindings>
                """, "bindings/binding[2]@key", "'a.*'", "not already declared");
    }

    @Test
    void rejectsAVirtualHostWithoutName() throws IOException {
        Path file = Files.writeString(dir.resolve("test.xml"), "<virtualHost>" + STORE + "</virtualHost>");
        rejectionOf(() -> VirtualHostConfigLoader.load(file), "test.xml", "virtualHost@name", "required but missing");
    }

    @Test
    void rejectsAnUnknownElementListingTheAllowedOnes() throws IOException {
        rejects(STORE + "<queue name=\"orders\"/>\n", "<queue>", "not allowed", "store, queues, exchanges, bindings");
    }
}
