package org.tandembroker.management.store;

import com.sleepycat.je.EnvironmentStats;
import com.sleepycat.je.StatsConfig;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.core.vhost.VirtualHostImpl;
import org.tandembroker.store.bdb.BdbMessageStore;
import org.tandembroker.store.bdb.BdbStoreStats;
import org.tandembroker.store.bdbha.ReplicaLag;
import org.tandembroker.store.bdbha.ReplicatedMessageStore;

/**
 * Reads {@link StoreFigures} from a virtual host's store. Costs a JE statistics call per store: call it from the
 * management sampler thread every few seconds, never per message or per scrape.
 *
 * <p>The replicated store has no public accessor for JE's {@code EnvironmentStats} yet, so its environment is
 * reached through the package-private {@code ReplicatedMessageStore.environment()} by reflection. That is a stopgap
 * until broker-store-bdbha offers the figures itself; this module's tests fail if the method goes away, and at run
 * time the disk figures of HA stores are then reported as unknown (one warning), never as zero.
 */
public final class StoreFigureReader {
    private static final Logger LOG = LoggerFactory.getLogger(StoreFigureReader.class);
    private static final Optional<Method> REPLICATED_ENVIRONMENT = replicatedEnvironmentAccessor();

    public StoreFigures read(VirtualHostImpl host) {
        Optional<MessageStore> store = host.store();
        if (store.isEmpty()) {
            return StoreFigures.none("CLOSED");
        }
        MessageStore current = store.get();
        StoreStatus status = current.status();
        if (current instanceof ReplicatedMessageStore replicated) {
            return readReplicated(replicated, status);
        }
        if (current instanceof BdbMessageStore standalone) {
            return readStandalone(standalone, status);
        }
        return new StoreFigures(host.config().store().type(), status.role(), status.writable(), Optional.empty(),
                Optional.empty(), -1, new TreeMap<>());
    }

    private static StoreFigures readStandalone(BdbMessageStore store, StoreStatus status) {
        Optional<BdbStoreStats> stats = store.stats();
        return new StoreFigures(BdbMessageStore.TYPE, status.role(), status.writable(),
                stats.map(s -> new DiskFigures(s.availableLogSize(), s.totalLogSize(), -1, -1, -1)),
                stats.map(BdbStoreStats::committer), stats.map(BdbStoreStats::logFsyncs).orElse(-1L), new TreeMap<>());
    }

    private static StoreFigures readReplicated(ReplicatedMessageStore store, StoreStatus status) {
        Optional<DiskFigures> disk = Optional.empty();
        long fsyncs = -1;
        Optional<EnvironmentStats> stats = environmentStats(store);
        if (stats.isPresent()) {
            EnvironmentStats s = stats.get();
            disk = Optional.of(new DiskFigures(s.getAvailableLogSize(), s.getTotalLogSize(), s.getActiveLogSize(),
                    s.getReservedLogSize(), s.getProtectedLogSize()));
            fsyncs = s.getNLogFSyncs();
        }
        SortedMap<String, ReplicaLag> lags = store.replicaLags();
        return new StoreFigures(ReplicatedMessageStore.TYPE, status.role(), status.writable(), disk,
                store.committerStats(), fsyncs, lags);
    }

    private static Optional<EnvironmentStats> environmentStats(ReplicatedMessageStore store) {
        if (REPLICATED_ENVIRONMENT.isEmpty()) {
            return Optional.empty();
        }
        try {
            Optional<?> environment = (Optional<?>) REPLICATED_ENVIRONMENT.get().invoke(store);
            if (environment.isEmpty() || !(environment.get() instanceof ReplicatedEnvironment env) || !env.isValid()) {
                return Optional.empty();
            }
            return Optional.of(env.getStats(new StatsConfig()));
        } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
            return Optional.empty(); // being closed or replaced: the next reading tries again
        }
    }

    /** Whether HA stores' JE figures can be read (for tests). */
    public static boolean readsReplicatedEnvironments() {
        return REPLICATED_ENVIRONMENT.isPresent();
    }

    private static Optional<Method> replicatedEnvironmentAccessor() {
        try {
            Method method = ReplicatedMessageStore.class.getDeclaredMethod("environment");
            method.setAccessible(true);
            return Optional.of(method);
        } catch (NoSuchMethodException | RuntimeException e) {
            LOG.warn("The disk figures of bdb-ha stores are unavailable: ReplicatedMessageStore.environment() "
                    + "cannot be reached ({})", e.toString());
            return Optional.empty();
        }
    }
}
