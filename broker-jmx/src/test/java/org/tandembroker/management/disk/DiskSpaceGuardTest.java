package org.tandembroker.management.disk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.management.store.DiskFigures;
import org.tandembroker.management.store.StoreFigures;

/** One MST-1010 line when a store goes below the watermark, one MST-1011 when it is back; unknown figures change nothing. */
class DiskSpaceGuardTest {
    private static final long MIB = 1024 * 1024;

    private final VirtualHostHarness harness = VirtualHostHarness.memory(true, VirtualHostHarness.DEFAULTS, List.of(),
            List.of(), List.of());
    private final OperationalLog log = new OperationalLog();
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final DiskSpaceGuard guard = new DiskSpaceGuard(100 * MIB, log);

    DiskSpaceGuardTest() {
        log.addObserver(lines::add);
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private static StoreFigures figures(String role, long available) {
        return new StoreFigures("bdb-ha", role, true, Optional.of(new DiskFigures(available, 0, 0, 0, 0)),
                Optional.empty(), -1, new TreeMap<>());
    }

    @Test
    void aMasterBelowTheWatermarkRefusesPublishesOnceAndResumesAtIt() {
        BrokerVirtualHost host = harness.host();

        guard.check(host, figures("MASTER", 99 * MIB));
        guard.check(host, figures("MASTER", 50 * MIB));

        assertThat(host.publishRefusal()).hasValueSatisfying(reason -> assertThat(reason)
                .contains("virtual host 'test' refuses new messages", "99.0 MiB", "100.0 MiB"));
        assertThat(guard.isLow("test")).isTrue();
        assertThat(lines).singleElement().asString().startsWith("MST-1010 : Disk space low : the store of virtual "
                + "host 'test' (master) may write 99.0 MiB more");

        guard.check(host, figures("MASTER", 100 * MIB));

        assertThat(host.publishRefusal()).isEmpty();
        assertThat(guard.isLow("test")).isFalse();
        assertThat(lines).hasSize(2).last().asString().startsWith("MST-1011 : Disk space recovered : virtual host "
                + "'test': its store may write 100.0 MiB more");
    }

    @Test
    void aReplicaShortOfSpaceSaysItFallsBehind() {
        guard.check(harness.host(), figures("REPLICA", MIB));

        assertThat(lines).singleElement().asString().contains("REPLICA: the store of virtual host 'test' on this "
                + "replica", "stops applying the replication stream", "network restore");
    }

    @Test
    void unknownFiguresKeepTheLastVerdictAndSwitchingOffResumes() {
        BrokerVirtualHost host = harness.host();
        guard.check(host, figures("MASTER", MIB));

        guard.check(host, StoreFigures.none("CLOSED"));
        assertThat(host.publishRefusal()).isPresent();

        guard.setWatermark(0);
        guard.check(host, StoreFigures.none("CLOSED"));

        assertThat(host.publishRefusal()).isEmpty();
        assertThat(lines).last().asString().contains("the disk watermark was switched off");
    }
}
