package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.activemq.artemis.api.core.TransportConfiguration;
import org.apache.activemq.artemis.core.config.ClusterConnectionConfiguration;
import org.apache.activemq.artemis.core.config.FileDeploymentManager;
import org.apache.activemq.artemis.core.config.HAPolicyConfiguration;
import org.apache.activemq.artemis.core.config.impl.FileConfiguration;
import org.apache.activemq.artemis.core.io.aio.AIOSequentialFileFactory;
import org.apache.activemq.artemis.core.server.JournalType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peer's generated {@code broker.xml}, read by Artemis's own parser (schema-validated, as the peer process
 * reads it): persistence on with a synced journal, ASYNCIO requested, security off, an AMQP acceptor on loopback,
 * and for the pair a replication primary and backup that reach each other through a cluster connection.
 */
class PeerClusterTest {

    @Test
    void theStandaloneServerIsPersistentSyncsItsJournalAndServesAmqpOnLoopbackWithoutHa(@TempDir Path directory)
            throws Exception {
        PeerCluster peer = PeerCluster.write(directory, PeerCluster.Shape.STANDALONE, List.of());

        assertThat(peer.roles()).containsExactly("standalone");
        FileConfiguration config = parse(peer.brokerXmls().get(0));
        assertThat(config.isPersistenceEnabled()).isTrue();
        assertThat(peer.brokerXmls().get(0)).content().contains("<journal-type>ASYNCIO</journal-type>");
        // Artemis's parser itself falls back to NIO in a JVM that cannot load libaio (this one has no native path)
        assertThat(config.getJournalType()).isEqualTo(AIOSequentialFileFactory.isSupported() ? JournalType.ASYNCIO
                : JournalType.NIO);
        assertThat(config.isJournalSyncTransactional()).isTrue();
        assertThat(config.isJournalSyncNonTransactional()).isTrue();
        assertThat(config.isSecurityEnabled()).isFalse();
        assertThat(config.getJournalDirectory()).startsWith(directory.toString());
        assertThat(config.getHAPolicyConfiguration().getType()).isEqualTo(HAPolicyConfiguration.TYPE.PRIMARY_ONLY);
        assertThat(config.getAcceptorConfigurations()).singleElement().satisfies(acceptor -> {
            assertThat(acceptor.getName()).isEqualTo("amqp");
            assertThat(acceptor.getParams()).containsEntry("host", "127.0.0.1").containsEntry("protocols", "AMQP");
        });
        assertThat(config.getClusterConfigurations()).isEmpty();
    }

    @Test
    void thePairIsAReplicationPrimaryAndBackupConnectedToEachOther(@TempDir Path directory) throws Exception {
        PeerCluster peer = PeerCluster.write(directory, PeerCluster.Shape.REPLICATED_PAIR, List.of());

        assertThat(peer.roles()).containsExactly("primary", "backup");
        FileConfiguration primary = parse(peer.brokerXmls().get(0));
        FileConfiguration backup = parse(peer.brokerXmls().get(1));
        assertThat(primary.getHAPolicyConfiguration().getType())
                .isEqualTo(HAPolicyConfiguration.TYPE.REPLICATION_PRIMARY_QUORUM_VOTING);
        assertThat(backup.getHAPolicyConfiguration().getType())
                .isEqualTo(HAPolicyConfiguration.TYPE.REPLICATION_BACKUP_QUORUM_VOTING);
        for (FileConfiguration config : List.of(primary, backup)) {
            assertThat(config.isPersistenceEnabled()).isTrue();
            assertThat(config.isJournalSyncTransactional()).isTrue();
            assertThat(config.isJournalSyncNonTransactional()).isTrue();
            assertThat(config.getAcceptorConfigurations()).extracting(TransportConfiguration::getName)
                    .containsExactlyInAnyOrder("amqp", "core");
        }
        assertThat(port(primary, "self")).isEqualTo(port(backup, "other"));
        assertThat(port(backup, "self")).isEqualTo(port(primary, "other"));
        assertThat(port(primary, "self")).isEqualTo(acceptorPort(primary, "core"));
        assertThat(port(backup, "self")).isEqualTo(acceptorPort(backup, "core"));
        ClusterConnectionConfiguration cluster = primary.getClusterConfigurations().get(0);
        assertThat(cluster.getStaticConnectors()).containsExactly("other");
        assertThat(acceptorPort(primary, "amqp")).isNotEqualTo(acceptorPort(backup, "amqp"));
        assertThat(primary.getJournalDirectory()).isNotEqualTo(backup.getJournalDirectory());
    }

    @Test
    void theDurabilityOfEachSideIsSaidInTheTables() {
        assertThat(PeerCluster.durability(PeerCluster.Shape.STANDALONE)).contains("journal synced");
        assertThat(PeerCluster.durability(PeerCluster.Shape.REPLICATED_PAIR))
                .contains("replication acknowledgement awaited", "backup: appends without syncing");
    }

    private static FileConfiguration parse(Path xml) throws Exception {
        assertThat(xml).exists();
        FileConfiguration config = new FileConfiguration();
        new FileDeploymentManager(xml.toUri().toString()).addDeployable(config).readConfiguration();
        assertThat(config.isParsed()).as("parsed %s", Files.readString(xml)).isTrue();
        return config;
    }

    private static Object port(FileConfiguration config, String connector) {
        Map<String, TransportConfiguration> connectors = config.getConnectorConfigurations();
        return String.valueOf(connectors.get(connector).getParams().get("port"));
    }

    private static Object acceptorPort(FileConfiguration config, String acceptor) {
        return config.getAcceptorConfigurations().stream().filter(a -> a.getName().equals(acceptor))
                .map(a -> String.valueOf(a.getParams().get("port"))).findFirst().orElseThrow();
    }
}
