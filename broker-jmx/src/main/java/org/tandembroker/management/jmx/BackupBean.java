package org.tandembroker.management.jmx;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.vhost.VirtualHostImpl;
import org.tandembroker.store.bdb.backup.BackupException;
import org.tandembroker.store.bdb.backup.BackupReport;
import org.tandembroker.store.bdb.backup.StoreBackup;

/**
 * {@link BackupMBean} over a virtual host's store. It holds the virtual host, not the store: the store is looked up
 * at each call (a passivated and reactivated host has a new one).
 *
 * <p><b>Threads.</b> RMI's connection threads. A backup runs on the caller's thread for as long as the copy takes
 * (JMX calls have no deadline); one backup of a virtual host at a time ({@link #running}).
 */
final class BackupBean implements BackupMBean {
    private static final Logger LOG = LoggerFactory.getLogger(BackupBean.class);

    private final VirtualHostImpl host;
    private final ReentrantLock running = new ReentrantLock();
    private volatile String lastBackup = "";

    BackupBean(VirtualHostImpl host) {
        this.host = host;
    }

    static DescribedMBean<BackupMBean> described(BackupBean bean) {
        return DescribedMBean.of(bean, BackupMBean.class,
                "Hot backups of the store of virtual host '" + bean.host.name() + "' (JE DbBackup in the broker)",
                Map.of("StorePath", "The store directory, as the broker sees it",
                        "StoreType", "bdb or bdb-ha",
                        "LastBackup", "The report of the last backup since the broker started; empty if none",
                        "backup", "Back the store up into toDirectory (absolute, on the broker's machine, empty or "
                                + "new) while the broker serves; returns what was copied"),
                Map.of("backup", List.of("toDirectory")),
                Set.of());
    }

    @Override
    public String getStorePath() {
        return host.store().flatMap(StoreBackup::storeDirectory).map(Path::toString).orElse("");
    }

    @Override
    public String getStoreType() {
        return host.config().store().type();
    }

    @Override
    public String getLastBackup() {
        return lastBackup;
    }

    @Override
    public String backup(String toDirectory) {
        if (toDirectory == null || toDirectory.isBlank()) {
            throw new IllegalArgumentException("toDirectory is empty: give an absolute directory on the broker's "
                    + "machine");
        }
        Path target = Path.of(toDirectory.trim());
        if (!target.isAbsolute()) {
            throw new IllegalArgumentException("toDirectory '" + toDirectory + "' is relative: give an absolute "
                    + "directory (the broker writes it on its own machine)");
        }
        if (!running.tryLock()) {
            throw new IllegalStateException("a backup of virtual host '" + host.name() + "' is already running");
        }
        try {
            MessageStore store = host.store().orElseThrow(() -> new IllegalStateException("virtual host '"
                    + host.name() + "' has no open store now (" + host.state() + ")"));
            BackupReport report = StoreBackup.backUpRunningStore(store, target);
            String description = report.describe();
            lastBackup = description;
            LOG.info("Virtual host '{}': backup over JMX into {}: {} files, {} bytes, last file {}", host.name(),
                    target, report.files().size(), report.totalBytes(), report.lastFileNumber());
            return description;
        } catch (BackupException failure) {
            LOG.warn("Virtual host '{}': backup into {} failed: {}", host.name(), target, failure.getMessage());
            throw new IllegalStateException(failure.getMessage());
        } finally {
            running.unlock();
        }
    }
}
