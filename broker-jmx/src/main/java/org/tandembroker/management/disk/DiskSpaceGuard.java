package org.tandembroker.management.disk;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.management.store.DiskFigures;
import org.tandembroker.management.store.StoreFigures;

/**
 * The disk-space watermark. Given each store's latest {@link StoreFigures}, it compares the space the store may
 * still write (JE's available log size) with the watermark: below it, the virtual host refuses new publishes with
 * {@code RESOURCE_LIMIT_EXCEEDED} ({@link BrokerVirtualHost#refusePublishes}) and {@code MST-1010} says why, once;
 * at or above it again publishes resume and {@code MST-1011} says so. Consumers and their acknowledgements carry
 * on throughout, and nothing already accepted is touched. A replica short of space gets the same MST-1010 line (a
 * replica whose disk fills stops applying the replication stream), and the state shows in metrics and over JMX.
 *
 * <p>The figures come from the sampler's last reading, so the hot publish path pays one volatile read.
 *
 * <p><b>Threads.</b> {@link #check} runs on the management sampler thread, the only writer of {@link #low}
 * (other threads read it). The watermark is volatile: an operator may change it over JMX from any thread (not
 * persisted: the broker file's value applies again after a restart).
 */
public final class DiskSpaceGuard {
    private final OperationalLog operationalLog;
    private volatile long watermark;
    /** The virtual hosts whose stores are below the watermark. Written by the sampler thread only. */
    private final Set<String> low = ConcurrentHashMap.newKeySet();

    public DiskSpaceGuard(long watermark, OperationalLog operationalLog) {
        this.watermark = watermark;
        this.operationalLog = operationalLog;
    }

    /** The watermark in bytes; 0 = off. */
    public long watermark() {
        return watermark;
    }

    /** Changes the watermark (0 switches it off); applied at the next {@link #check}. */
    public void setWatermark(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("a watermark is 0 (off) or a number of bytes, not " + bytes);
        }
        watermark = bytes;
    }

    /** Whether {@code virtualHost}'s store was below the watermark at the last check. Any thread. */
    public boolean isLow(String virtualHost) {
        return low.contains(virtualHost);
    }

    /** Compares {@code figures} with the watermark and refuses or resumes publishes. Sampler thread. */
    public void check(BrokerVirtualHost host, StoreFigures figures) {
        long mark = watermark;
        String name = host.name();
        boolean wasLow = low.contains(name);
        if (mark == 0) {
            if (wasLow) {
                resume(host, "the disk watermark was switched off");
            }
            return;
        }
        Optional<DiskFigures> disk = figures.disk();
        if (disk.isEmpty() || disk.get().available() < 0) {
            return; // no figures now (store opening, closed, or not a JE store): keep the last verdict
        }
        long available = disk.get().available();
        if (available < mark && !wasLow) {
            low.add(name);
            String reason = "virtual host '" + name + "' refuses new messages: its store may write only "
                    + bytes(available) + " more, below the disk watermark of " + bytes(mark)
                    + "; consumers may still take messages";
            host.refusePublishes(reason);
            operationalLog.log(LogCode.MST_1010, describe(name, figures) + " may write " + bytes(available)
                    + " more (JE available log size), below the watermark " + bytes(mark) + consequence(figures));
        } else if (available >= mark && wasLow) {
            resume(host, "its store may write " + bytes(available) + " more, at or above the watermark "
                    + bytes(mark));
        }
    }

    /** Forgets a host's state and accepts its publishes again (the plugin is closing). Sampler thread or after it. */
    public void release(BrokerVirtualHost host) {
        if (low.remove(host.name())) {
            host.acceptPublishes();
        }
    }

    private void resume(BrokerVirtualHost host, String why) {
        low.remove(host.name());
        host.acceptPublishes();
        operationalLog.log(LogCode.MST_1011, "virtual host '" + host.name() + "': " + why
                + "; publishes are accepted again");
    }

    private static String describe(String name, StoreFigures figures) {
        return switch (figures.role()) {
            case "REPLICA" -> "REPLICA: the store of virtual host '" + name + "' on this replica";
            case "MASTER" -> "the store of virtual host '" + name + "' (master)";
            default -> "the store of virtual host '" + name + "' (" + figures.role() + ")";
        };
    }

    private static String consequence(StoreFigures figures) {
        if (figures.role().equals("REPLICA")) {
            return "; at its disk limit this replica stops applying the replication stream, falls behind and may"
                    + " need a network restore: free space or raise maxDisk";
        }
        return "; new publishes are refused until space returns (free space, consume messages or raise maxDisk)";
    }

    /** A byte count for operators: exact bytes and a rounded binary unit. */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = n;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
