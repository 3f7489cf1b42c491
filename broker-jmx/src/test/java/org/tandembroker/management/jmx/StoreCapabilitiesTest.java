package org.tandembroker.management.jmx;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import javax.management.MBeanServer;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.BackupSummary;
import org.tandembroker.core.store.CommitterStatistics;
import org.tandembroker.core.store.HotBackup;
import org.tandembroker.core.store.LogFigures;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreFigureSource;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.store.replication.GroupMember;
import org.tandembroker.core.store.replication.MemberState;
import org.tandembroker.core.store.replication.PingAnswer;
import org.tandembroker.core.store.replication.ReplicaLag;
import org.tandembroker.core.store.replication.ReplicationControl;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.vhost.ManagedVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;
import org.tandembroker.management.metrics.BrokerMetrics;
import org.tandembroker.management.metrics.MetricNames;
import org.tandembroker.management.store.DiskFigures;
import org.tandembroker.management.store.LatestFigures;
import org.tandembroker.management.store.StoreFigureReader;
import org.tandembroker.management.store.StoreFigures;

/** Management shows what a virtual host's store offers through the core SPI, and nothing of what it does not. */
class StoreCapabilitiesTest {
    private static final Path STORE_DIRECTORY = Path.of("/var/lib/tandem/test").toAbsolutePath();

    private final LatestFigures figures = new LatestFigures();
    private final DiskSpaceGuard guard = new DiskSpaceGuard(0, new OperationalLog());
    private final ManagementBeans beans = new ManagementBeans(figures, guard);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BrokerMetrics metrics = new BrokerMetrics(registry, figures, guard);
    private VirtualHostHarness harness;

    @AfterEach
    void close() {
        metrics.close();
        beans.close();
        harness.close();
    }

    @Test
    void aStoreOfferingNothingShowsItsRoleOnlyWithoutTheHaStoreOrBackupBeanOrDesignationMeter() {
        harness = VirtualHostHarness.memory(true, VirtualHostHarness.DEFAULTS, List.of(), List.of(), List.of());
        ManagedVirtualHost host = harness.host();

        StoreFigures read = new StoreFigureReader().read(host);
        beans.bind(host);
        metrics.bind(host);

        assertThat(read).isEqualTo(new StoreFigures("memory", "STANDALONE", true, Optional.empty(), Optional.empty(),
                -1, new TreeMap<>()));
        MBeanServer server = beans.server();
        assertThat(server.isRegistered(ObjectNames.virtualHost("test"))).isTrue();
        assertThat(server.isRegistered(ObjectNames.replicatedStore("test"))).isFalse();
        assertThat(server.isRegistered(ObjectNames.backup("test"))).isFalse();
        assertThat(registry.find(MetricNames.HA_DESIGNATED_PRIMARY).gauge()).isNull();
    }

    @Test
    void aStoreOfferingFiguresReplicationAndBackupIsShownThroughThem() throws Exception {
        harness = new VirtualHostHarness(VirtualHostHarness.config(true, VirtualHostHarness.DEFAULTS, List.of(),
                List.of(), List.of()), OfferingStore::new, 64L * 1024 * 1024);
        ManagedVirtualHost host = harness.host();

        StoreFigures read = new StoreFigureReader().read(host);
        figures.put("test", read);
        beans.bind(host);
        metrics.bind(host);

        assertThat(read.disk()).contains(new DiskFigures(5000, 800, 600, 200, 100));
        assertThat(read.logFsyncs()).isEqualTo(42);
        assertThat(read.committer()).contains(new CommitterStatistics(9, 1, 3, 9, 4));
        assertThat(read.replicaLags()).containsOnlyKeys("node-2");
        MBeanServer server = beans.server();
        assertThat(server.getAttribute(ObjectNames.replicatedStore("test"), "NodeState")).isEqualTo("MASTER");
        assertThat(server.getAttribute(ObjectNames.replicatedStore("test"), "GroupName")).isEqualTo("pair");
        assertThat(server.getAttribute(ObjectNames.replicatedStore("test"), "AvailableLogSize")).isEqualTo(5000L);
        CompositeData replica = ((TabularData) server.getAttribute(ObjectNames.replicatedStore("test"),
                "AllNodesInGroup")).get(new Object[] {"node-2"});
        assertThat(replica.get("NodeState")).isEqualTo("REPLICA");
        assertThat(replica.get("ReplicationLag")).isEqualTo(7L);
        assertThat(server.getAttribute(ObjectNames.backup("test"), "StorePath")).isEqualTo(STORE_DIRECTORY.toString());
        String backupDirectory = STORE_DIRECTORY.resolveSibling("backup").toString();
        assertThat(server.invoke(ObjectNames.backup("test"), "backup", new Object[] {backupDirectory},
                new String[] {String.class.getName()})).isEqualTo("backed up into " + backupDirectory);
        assertThat(registry.get(MetricNames.HA_DESIGNATED_PRIMARY).gauge().value()).isZero();
        assertThat(registry.get(MetricNames.STORE_COMMITS).functionCounter().count()).isEqualTo(9);
    }

    /** A memory store that offers every capability, with fixed answers. */
    private static final class OfferingStore implements MessageStore {
        private final MemoryMessageStore messages = new MemoryMessageStore();

        @Override
        public Optional<StoreFigureSource> figures() {
            return Optional.of(new StoreFigureSource() {
                @Override
                public Optional<LogFigures> logFigures() {
                    return Optional.of(new LogFigures(5000, 800, 600, 200, 100, 42));
                }

                @Override
                public Optional<CommitterStatistics> committerStatistics() {
                    return Optional.of(new CommitterStatistics(9, 1, 3, 9, 4));
                }
            });
        }

        @Override
        public Optional<ReplicationControl> replication() {
            return Optional.of(new MasterOfAPair());
        }

        @Override
        public Optional<HotBackup> hotBackup() {
            return Optional.of(new HotBackup() {
                @Override
                public Optional<Path> storeDirectory() {
                    return Optional.of(STORE_DIRECTORY);
                }

                @Override
                public BackupSummary backUp(Path toDirectory) {
                    return new BackupSummary("backed up into " + toDirectory, 2, 2048, 1);
                }
            });
        }

        @Override
        public void start(StoreRoleListener listener) {
            messages.start(listener);
        }

        @Override
        public StoredEntries recover(RecoveryHandler handler) {
            return messages.recover(handler);
        }

        @Override
        public StoreTransaction newTransaction() {
            return messages.newTransaction();
        }

        @Override
        public CompletableFuture<byte[]> loadContent(long messageId) {
            return messages.loadContent(messageId);
        }

        @Override
        public long nextMessageId() {
            return messages.nextMessageId();
        }

        @Override
        public StoreStatus status() {
            return new StoreStatus("MASTER", true, "master of group pair");
        }

        @Override
        public void close() {
            messages.close();
        }
    }

    /** Node 1, master of group "pair", whose replica node 2 is 7 entries behind. Changes are refused. */
    private static final class MasterOfAPair implements ReplicationControl {

        @Override
        public String groupName() {
            return "pair";
        }

        @Override
        public String nodeName() {
            return "node-1";
        }

        @Override
        public String nodeHostPort() {
            return "localhost:5001";
        }

        @Override
        public String helperHostPort() {
            return "localhost:5001";
        }

        @Override
        public MemberState nodeState() {
            return MemberState.MASTER;
        }

        @Override
        public String durability() {
            return "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY";
        }

        @Override
        public boolean coalescingSync() {
            return true;
        }

        @Override
        public Optional<String> masterName() {
            return Optional.of("node-1");
        }

        @Override
        public List<GroupMember> groupMembers() {
            return List.of(new GroupMember("node-1", "localhost:5001", "ELECTABLE", Optional.of(MemberState.MASTER)),
                    new GroupMember("node-2", "localhost:5002", "ELECTABLE", Optional.of(MemberState.REPLICA)));
        }

        @Override
        public SortedMap<String, ReplicaLag> replicaLags() {
            return new TreeMap<>(Map.of("node-2", new ReplicaLag("node-2", 7, 12)));
        }

        @Override
        public boolean isDesignatedPrimary() {
            return false;
        }

        @Override
        public CompletableFuture<Void> setDesignatedPrimary(boolean designatedPrimary) {
            return refused();
        }

        @Override
        public CompletableFuture<Void> setNodePriority(int priority) {
            return refused();
        }

        @Override
        public CompletableFuture<Void> removeNodeFromGroup(String nodeName) {
            return refused();
        }

        @Override
        public CompletableFuture<Void> updateAddress(String nodeName, String host, int port) {
            return refused();
        }

        @Override
        public CompletableFuture<String> transferMaster(String nodeName, int timeoutSeconds) {
            return refused();
        }

        @Override
        public PingAnswer ping(GroupMember member, int timeoutMillis) {
            return new PingAnswer(member.name(), member.state().orElseThrow(), Optional.of("node-1"), "18.3.12", 24,
                    100, 107, 0, 0.5);
        }

        private static <T> CompletableFuture<T> refused() {
            return CompletableFuture.failedFuture(new IllegalStateException("not in this test"));
        }
    }
}
