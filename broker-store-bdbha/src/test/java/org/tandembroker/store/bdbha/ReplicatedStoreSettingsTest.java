package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sleepycat.je.CacheMode;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Durability.ReplicaAckPolicy;
import com.sleepycat.je.Durability.SyncPolicy;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.rep.ReplicationConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.NameValue;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreContext;

/** Every element of {@code <store type="bdb-ha">} is checked at startup, with one line naming what is wrong. */
class ReplicatedStoreSettingsTest {
    @TempDir
    Path work;

    private Map<String, String> minimal() {
        Map<String, String> elements = new HashMap<>();
        elements.put("groupName", "tandem-group");
        elements.put("nodeName", "node-1");
        elements.put("nodeHostPort", "localhost:5000");
        elements.put("helperHostPort", "localhost:5000");
        return elements;
    }

    private ReplicatedStoreSettings parse(Map<String, String> elements, List<NameValue> envConfig,
                                          List<NameValue> repConfig) throws ConfigException {
        return ReplicatedStoreSettings.from(new StoreSettings(HaGroup.VHOST_FILE, "bdb-ha", elements, envConfig,
                repConfig), new StoreContext("test", work, "broker1.example:5672", new OperationalLog()));
    }

    private ReplicatedStoreSettings parse(Map<String, String> elements) throws ConfigException {
        return parse(elements, List.of(), List.of());
    }

    private ReplicatedStoreSettings with(String element, String value) throws ConfigException {
        Map<String, String> elements = minimal();
        elements.put(element, value);
        return parse(elements);
    }

    private static void refused(ThrowingCall call, String... fragments) {
        assertThatThrownBy(call::run).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(HaGroup.VHOST_FILE + ": ")
                .hasMessageContainingAll(fragments)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws Exception;
    }

    @Test
    void theFactoryIsFoundByServiceLoaderAsTypeBdbHa() {
        assertThat(ServiceLoader.load(MessageStoreFactory.class).stream().map(p -> p.get().type()))
                .contains("bdb", "bdb-ha");
    }

    @Test
    void defaultsFollowTheSpecAndTheBrokersJeDefaults() throws Exception {
        ReplicatedStoreSettings settings = parse(minimal());

        assertThat(settings.durability()).isEqualTo(new Durability(SyncPolicy.NO_SYNC, SyncPolicy.NO_SYNC,
                ReplicaAckPolicy.SIMPLE_MAJORITY));
        assertThat(settings.coalescingSync()).isTrue();
        assertThat(settings.designatedPrimary()).isFalse();
        assertThat(settings.prefillLogFiles()).isTrue();
        assertThat(settings.storePath()).isEqualTo(work.resolve("test").resolve("store").toAbsolutePath());
        long volume = Files.getFileStore(work).getTotalSpace();
        assertThat(settings.maxDisk()).isEqualTo(volume / 100 * 50);
        assertThat(settings.maxDiskText()).isEqualTo("50% of the volume (default)");
        assertThat(settings.environmentConfig().getConfigParam(EnvironmentConfig.MAX_DISK))
                .isEqualTo(Long.toString(settings.maxDisk()));
        ReplicationConfig rep = settings.replicationConfig("test");
        assertThat(rep.getConfigParam(ReplicationConfig.ENV_UNKNOWN_STATE_TIMEOUT)).isEqualTo("5 s");
        assertThat(rep.getConfigParam(ReplicationConfig.ENV_SETUP_TIMEOUT)).isEqualTo("180 s");
        assertThat(rep.getConfigParam(ReplicationConfig.CONSISTENCY_POLICY)).isEqualTo("NoConsistencyRequiredPolicy");
        assertThat(rep.getConfigParam(ReplicationConfig.INSUFFICIENT_REPLICAS_TIMEOUT)).isEqualTo("5 s");
        assertThat(rep.getConfigParam(ReplicationConfig.REPLICA_ACK_TIMEOUT)).isEqualTo("5 s");
        assertThat(rep.getConfigParam("je.rep.electionsOpenTimeout")).isEqualTo("2 s");
        assertThat(rep.getConfigParam("je.rep.electionsReadTimeout")).isEqualTo("2 s");
        assertThat(rep.getGroupName()).isEqualTo("tandem-group");
        assertThat(rep.getNodeName()).isEqualTo("node-1");
        assertThat(rep.getNodeHostPort()).isEqualTo("localhost:5000");
        assertThat(rep.getHelperHosts()).isEqualTo("localhost:5000");
    }

    @Test
    void theDurabilityTripletIsParsedInAnyCaseWithSpacesAndNeedsNoEscaping() throws Exception {
        assertThat(with("durability", " write_no_sync , sync,ALL").durability())
                .isEqualTo(new Durability(SyncPolicy.WRITE_NO_SYNC, SyncPolicy.SYNC, ReplicaAckPolicy.ALL));
        assertThat(ReplicatedStoreSettings.format(with("durability", "NO_SYNC,WRITE_NO_SYNC,NONE").durability()))
                .isEqualTo("NO_SYNC,WRITE_NO_SYNC,NONE");
    }

    @Test
    void aBadTripletNamesThePartThatIsWrong() {
        refused(() -> with("durability", "NO_SYNC,NO_SYNC"), "<store/durability>", "'NO_SYNC,NO_SYNC'",
                "<master sync>,<replica sync>,<replica ack>");
        refused(() -> with("durability", "FAST,NO_SYNC,ALL"), "master sync policy (first part)",
                "SYNC, WRITE_NO_SYNC, NO_SYNC");
        refused(() -> with("durability", "NO_SYNC,ALL,ALL"), "replica sync policy (second part)");
        refused(() -> with("durability", "NO_SYNC,NO_SYNC,MAJORITY"), "replica acknowledgement policy (third part)",
                "ALL, SIMPLE_MAJORITY, NONE");
    }

    @Test
    void masterSyncWithCoalescingSyncIsRefusedAsTheSpecSaysItCannotBeUsed() throws Exception {
        refused(() -> with("durability", "SYNC,NO_SYNC,SIMPLE_MAJORITY"), "SYNC cannot be used with",
                "<store/coalescingSync> true", "the spec says it cannot be used");

        Map<String, String> elements = minimal();
        elements.put("durability", "SYNC,NO_SYNC,SIMPLE_MAJORITY");
        elements.put("coalescingSync", "false");
        assertThat(parse(elements).coalescingSync()).isFalse();
    }

    @Test
    void hostPortsMustBeHostColonPortWithAValidPort() throws Exception {
        refused(() -> with("nodeHostPort", "localhost"), "<store/nodeHostPort>", "'localhost'", "host:port");
        refused(() -> with("nodeHostPort", "localhost:70000"), "'localhost:70000'");
        refused(() -> with("nodeHostPort", "no-such-host.invalid:5000"), "'no-such-host.invalid:5000'",
                "resolves on this machine", "JE says");
        refused(() -> with("nodeHostPort", ":5000"), "':5000'");
        refused(() -> with("helperHostPort", "a:5000,,b:5000"), "<store/helperHostPort>", "comma-separated list");
        refused(() -> with("helperHostPort", "a:5000,b"), "'a:5000,b'");

        ReplicatedStoreSettings list = with("helperHostPort", "localhost:5000, 127.0.0.1:5001");
        assertThat(list.helperHostPorts()).containsExactly("localhost:5000", "127.0.0.1:5001");
        assertThat(list.replicationConfig("test").getHelperHosts()).isEqualTo("localhost:5000,127.0.0.1:5001");
    }

    @Test
    void groupNodeAndAddressesAreRequired() {
        for (String element : List.of("groupName", "nodeName", "nodeHostPort", "helperHostPort")) {
            Map<String, String> elements = minimal();
            elements.remove(element);
            refused(() -> parse(elements), "<store/" + element + "> is required but missing");
        }
        refused(() -> with("groupName", "my group"), "<store/groupName>", "'my group'", "letters, digits");
    }

    @Test
    void repConfigIsCheckedByJeAndMayOverrideTheBrokersDefaults() throws Exception {
        refused(() -> parse(minimal(), List.of(), List.of(new NameValue("je.rep.noSuchThing", "1"))),
                "<store/repConfig je.rep.noSuchThing>", "JE replication parameter");
        refused(() -> parse(minimal(), List.of(), List.of(new NameValue("je.rep.replicaAckTimeout", "soon"))),
                "<store/repConfig je.rep.replicaAckTimeout>", "'soon'");
        refused(() -> parse(minimal(), List.of(), List.of(new NameValue("je.rep.groupName", "other"))),
                "decided by the store", "<groupName>");
        refused(() -> parse(minimal(), List.of(), List.of(new NameValue("je.rep.designatedPrimary", "true"))),
                "<designatedPrimary>");
        refused(() -> parse(minimal(), List.of(), List.of(new NameValue("je.rep.node.priority", "2"),
                new NameValue("je.rep.node.priority", "3"))), "given twice");

        ReplicatedStoreSettings settings = parse(minimal(), List.of(),
                List.of(new NameValue("je.rep.replicaAckTimeout", "20 s"), new NameValue("je.rep.node.priority", "3"),
                        new NameValue("je.rep.electionsOpenTimeout", "10 s")));
        assertThat(settings.replicationConfig("test").getConfigParam(ReplicationConfig.REPLICA_ACK_TIMEOUT))
                .isEqualTo("20 s");
        assertThat(settings.replicationConfig("test").getConfigParam("je.rep.electionsOpenTimeout"))
                .isEqualTo("10 s");
        assertThat(settings.replicationConfig("test").getNodePriority()).isEqualTo(3);
    }

    @Test
    void jeChannelParametersAreRefusedBecauseReplicationTlsDecidesTheChannel() {
        refused(() -> parse(minimal(), List.of(), List.of(new NameValue("je.rep.channelType", "ssl"))),
                "<store/repConfig je.rep.channelType>", "decided by the store", "<replicationTls>");
        refused(() -> parse(minimal(), List.of(), List.of(new NameValue("je.rep.ssl.keyStoreFile", "/k.jks"))),
                "je.rep.ssl.keyStoreFile", "decided by the store", "<replicationTls>");
    }

    @Test
    void recordsLeaveJesCacheByDefaultSoThatAReplicaDoesNotKeepTheBodiesItReplays() throws Exception {
        // a replica replays with the environment's default cache mode; internal nodes stay cached (EVICT_LN)
        assertThat(parse(minimal()).environmentConfig().getCacheMode()).isEqualTo(CacheMode.EVICT_LN);
    }

    @Test
    void theJeCacheDefaultsToAFifthOfTheHeapUnlessConfigured() throws Exception {
        assertThat(parse(minimal()).environmentConfig().getConfigParam(EnvironmentConfig.MAX_MEMORY_PERCENT))
                .isEqualTo("20");
        assertThat(parse(minimal(), List.of(new NameValue("je.maxMemoryPercent", "40")), List.of())
                .environmentConfig().getConfigParam(EnvironmentConfig.MAX_MEMORY_PERCENT)).isEqualTo("40");
    }

    @Test
    void envConfigIsCheckedByJeAndMaySetNeitherMaxDiskNorDurability() throws Exception {
        refused(() -> parse(minimal(), List.of(new NameValue("je.noSuchThing", "1")), List.of()),
                "<store/envConfig je.noSuchThing>");
        refused(() -> parse(minimal(), List.of(new NameValue("je.maxDisk", "1000000000")), List.of()),
                "<maxDisk>");
        refused(() -> parse(minimal(), List.of(new NameValue("je.txn.durability", "sync")), List.of()),
                "<durability>");
        refused(() -> parse(minimal(), List.of(new NameValue("je.rep.node.priority", "1")), List.of()),
                "<store/envConfig je.rep.node.priority>");

        ReplicatedStoreSettings settings = parse(minimal(), List.of(new NameValue("je.cleaner.threads", "2")),
                List.of());
        assertThat(settings.environmentConfig().getConfigParam("je.cleaner.threads")).isEqualTo("2");
    }

    @Test
    void maxDiskIsASizeOrAShareOfTheVolumeAndAlwaysSet() throws Exception {
        assertThat(with("maxDisk", "20GiB").maxDisk()).isEqualTo(20L << 30);
        assertThat(with("maxDisk", "20GiB").environmentConfig().getConfigParam(EnvironmentConfig.MAX_DISK))
                .isEqualTo(Long.toString(20L << 30));
        assertThat(with("maxDisk", "10%").maxDisk()).isEqualTo(Files.getFileStore(work).getTotalSpace() / 100 * 10);
        refused(() -> with("maxDisk", "0"), "<store/maxDisk>", "'0'", "0 (no limit) is not allowed");
        refused(() -> with("maxDisk", "1MiB"), "at least 20000000 bytes");
        refused(() -> with("maxDisk", "lots"), "'lots'", "a percentage from 1% to 99%");
        refused(() -> with("maxDisk", "0%"), "'0%'");
    }

    @Test
    void unknownElementsAreRefusedListingTheAllowedOnes() {
        refused(() -> with("helperHosts", "a:1"), "unknown element [<helperHosts>]", "helperHostPort",
                "designatedPrimary", "repConfig");
        refused(() -> with("designatedPrimary", "yes"), "<store/designatedPrimary>", "'yes'", "true, false");
    }

    @Test
    void prefillLogFilesCanBeTurnedOffAndTakesOnlyTrueOrFalse() throws Exception {
        assertThat(with("prefillLogFiles", "false").prefillLogFiles()).isFalse();
        refused(() -> with("prefillLogFiles", "no"), "<store/prefillLogFiles>", "'no'", "true, false");
    }
}
