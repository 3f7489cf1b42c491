package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sleepycat.je.Durability.SyncPolicy;
import com.sleepycat.je.EnvironmentConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.NameValue;
import org.tandembroker.core.config.StoreSettings;

class BdbStoreSettingsTest {
    @TempDir
    Path work;

    private BdbStoreSettings parse(Map<String, String> elements, List<NameValue> envConfig) throws ConfigException {
        return BdbStoreSettings.from(StoreFixture.settings(elements, envConfig), new StoreFixture(work).context());
    }

    private BdbStoreSettings parse(Map<String, String> elements) throws ConfigException {
        return parse(elements, List.of());
    }

    @Test
    void defaultsApplyWhenNoElementIsGiven() throws Exception {
        BdbStoreSettings settings = parse(Map.of());

        assertThat(settings.storePath()).isEqualTo(work.resolve("test").resolve("store").toAbsolutePath());
        assertThat(settings.durability()).isEqualTo(SyncPolicy.NO_SYNC);
        assertThat(settings.coalescingSync()).isTrue();
        assertThat(settings.prefillLogFiles()).isTrue();
        assertThat(settings.maxDisk()).isZero();
        assertThat(settings.envConfig()).isEmpty();
        assertThat(settings.environmentConfig().getConfigParam(EnvironmentConfig.MAX_DISK)).isEqualTo("0");
    }

    @Test
    void relativeStorePathResolvesAgainstTheWorkDirectory() throws Exception {
        assertThat(parse(Map.of("storePath", "data/vh1")).storePath()).isEqualTo(work.resolve("data/vh1"));
        Path absolute = work.resolve("elsewhere").toAbsolutePath();
        assertThat(parse(Map.of("storePath", absolute.toString())).storePath()).isEqualTo(absolute);
    }

    @Test
    void storePathThatIsAFileIsRefused() throws Exception {
        Files.writeString(work.resolve("afile"), "x");

        assertThatThrownBy(() -> parse(Map.of("storePath", "afile")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("<store/storePath>").hasMessageContaining("'afile'")
                .hasMessageContaining("is not a directory");
    }

    @Test
    void emptyStorePathIsRefused() {
        assertThatThrownBy(() -> parse(Map.of("storePath", "  ")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("<store/storePath>");
    }

    @Test
    void durabilityAcceptsTheThreeSyncPoliciesInAnyCase() throws Exception {
        assertThat(parse(Map.of("durability", "write_no_sync")).durability()).isEqualTo(SyncPolicy.WRITE_NO_SYNC);
        assertThat(parse(Map.of("durability", "NO_SYNC")).durability()).isEqualTo(SyncPolicy.NO_SYNC);
        assertThat(parse(Map.of("durability", "SYNC", "coalescingSync", "false")).durability())
                .isEqualTo(SyncPolicy.SYNC);
    }

    @Test
    void invalidDurabilityIsRefusedNamingFileElementValueAndAllowedValues() {
        assertThatThrownBy(() -> parse(Map.of("durability", "SOMETIMES")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(StoreFixture.VHOST_FILE + ": <store/durability> has invalid value 'SOMETIMES'; "
                        + "allowed: SYNC, WRITE_NO_SYNC, NO_SYNC");
    }

    @Test
    void invalidCoalescingSyncIsRefused() {
        assertThatThrownBy(() -> parse(Map.of("coalescingSync", "yes")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("<store/coalescingSync> has invalid value 'yes'")
                .hasMessageContaining("allowed: true, false");
    }

    @Test
    void prefillLogFilesCanBeTurnedOffAndTakesOnlyTrueOrFalse() throws Exception {
        assertThat(parse(Map.of("prefillLogFiles", "false")).prefillLogFiles()).isFalse();
        assertThatThrownBy(() -> parse(Map.of("prefillLogFiles", "off")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("<store/prefillLogFiles> has invalid value 'off'")
                .hasMessageContaining("allowed: true, false");
    }

    @Test
    void syncWithCoalescingSyncIsRefusedBecauseItAddsFsyncsForNoDurabilityGain() {
        assertThatThrownBy(() -> parse(Map.of("durability", "SYNC")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(StoreFixture.VHOST_FILE + ": <store/durability> SYNC")
                .hasMessageContaining("the spec says it cannot be used")
                .hasMessageContaining("no durability gain")
                .hasMessageContaining("coalescingSync false");
    }

    @Test
    void invalidMaxDiskIsRefused() {
        assertThatThrownBy(() -> parse(Map.of("maxDisk", "plenty")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("<store/maxDisk> has invalid value 'plenty'")
                .hasMessageContaining("allowed: a byte count");
    }

    @Test
    void maxDiskBelowTwoLogFilesIsRefused() {
        assertThatThrownBy(() -> parse(Map.of("maxDisk", "15MB")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("<store/maxDisk> has invalid value '15MB'")
                .hasMessageContaining("at least 20000000 bytes");
        assertThatThrownBy(() -> parse(Map.of("maxDisk", "1MB"),
                List.of(new NameValue("je.log.fileMax", "1000000"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("at least 2000000 bytes");
    }

    @Test
    void maxDiskIsPassedToJe() throws Exception {
        BdbStoreSettings settings = parse(Map.of("maxDisk", "1GiB"));

        assertThat(settings.maxDisk()).isEqualTo(1L << 30);
        assertThat(settings.environmentConfig().getConfigParam(EnvironmentConfig.MAX_DISK))
                .isEqualTo(Long.toString(1L << 30));
    }

    @Test
    void unknownElementIsRefusedListingTheAllowedElements() {
        assertThatThrownBy(() -> parse(Map.of("storepath", "x", "durability", "NO_SYNC")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(StoreFixture.VHOST_FILE + ": <store type=\"bdb\"> has unknown element [<storepath>]; "
                        + "allowed: storePath, durability, coalescingSync, prefillLogFiles, maxDisk, envConfig");
    }

    @Test
    void repConfigIsRefusedForTheStandaloneStore() {
        StoreSettings settings = new StoreSettings(StoreFixture.VHOST_FILE, "bdb", Map.of(), List.of(),
                List.of(new NameValue("je.rep.electionsPrimaryRetries", "0")));

        assertThatThrownBy(() -> BdbStoreSettings.from(settings, new StoreFixture(work).context()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("<repConfig>");
    }

    @Test
    void unknownEnvConfigParameterIsRefusedNamingTheParameter() {
        assertThatThrownBy(() -> parse(Map.of(), List.of(new NameValue("je.noSuchParameter", "1"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(StoreFixture.VHOST_FILE + ": <store/envConfig je.noSuchParameter> "
                        + "has invalid value '1'")
                .hasMessageContaining("is not a valid BDBJE environment parameter");
    }

    @Test
    void invalidEnvConfigValueIsRefusedNamingTheParameter() {
        assertThatThrownBy(() -> parse(Map.of(), List.of(new NameValue("je.log.fileMax", "12"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("<store/envConfig je.log.fileMax> has invalid value '12'")
                .hasMessageContaining("JE says:");
    }

    @Test
    void replicationParameterInEnvConfigIsRefused() {
        assertThatThrownBy(() -> parse(Map.of(), List.of(new NameValue("je.rep.groupName", "g"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("<store/envConfig je.rep.groupName>");
    }

    @Test
    void envConfigParametersThatElementsOrTheStoreDecideAreRefused() {
        assertThatThrownBy(() -> parse(Map.of(), List.of(new NameValue("je.maxDisk", "100000000"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("<store/envConfig je.maxDisk>").hasMessageContaining("<maxDisk>");
        assertThatThrownBy(() -> parse(Map.of(), List.of(new NameValue("je.env.isTransactional", "false"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("needs a transactional environment");
    }

    @Test
    void envConfigParameterGivenTwiceIsRefused() {
        assertThatThrownBy(() -> parse(Map.of(), List.of(new NameValue("je.log.fileMax", "2000000"),
                new NameValue("je.log.fileMax", "3000000"))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("given twice");
    }

    @Test
    void validEnvConfigIsAppliedToTheEnvironmentConfig() throws Exception {
        BdbStoreSettings settings = parse(Map.of(), List.of(new NameValue("je.log.fileMax", "2000000"),
                new NameValue("je.sharedCache", "false"), new NameValue("je.cleaner.threads", "2")));

        EnvironmentConfig config = settings.environmentConfig();
        assertThat(config.getConfigParam(EnvironmentConfig.LOG_FILE_MAX)).isEqualTo("2000000");
        assertThat(config.getConfigParam(EnvironmentConfig.SHARED_CACHE)).isEqualTo("false");
        assertThat(config.getConfigParam(EnvironmentConfig.CLEANER_THREADS)).isEqualTo("2");
        assertThat(config.getTransactional()).isTrue();
        assertThat(config.getAllowCreate()).isTrue();
    }

    @Test
    void commitDurabilityUsesTheConfiguredLocalSyncPolicy() throws Exception {
        assertThat(parse(Map.of("durability", "WRITE_NO_SYNC")).commitDurability().getLocalSync())
                .isEqualTo(SyncPolicy.WRITE_NO_SYNC);
    }
}
