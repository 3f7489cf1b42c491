package org.tandembroker.management.store;

import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.store.bdb.BdbMessageStore;
import org.tandembroker.store.bdb.BdbStoreStats;
import org.tandembroker.store.bdb.JeLogFigures;
import org.tandembroker.store.bdbha.ReplicaLag;
import org.tandembroker.store.bdbha.ReplicatedMessageStore;

/**
 * Reads {@link StoreFigures} from a virtual host's store. Costs a JE statistics call per store: call it from the
 * management sampler thread every few seconds, never per message or per scrape.
 * Figures a store cannot give (closed, being replaced) are reported as unknown, never as zero.
 */
public final class StoreFigureReader {

    public StoreFigures read(BrokerVirtualHost host) {
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
        Optional<JeLogFigures> log = store.logFigures();
        return new StoreFigures(BdbMessageStore.TYPE, status.role(), status.writable(), log.map(StoreFigureReader::disk),
                store.stats().map(BdbStoreStats::committer), log.map(JeLogFigures::logFsyncs).orElse(-1L),
                new TreeMap<>());
    }

    private static StoreFigures readReplicated(ReplicatedMessageStore store, StoreStatus status) {
        Optional<JeLogFigures> log = store.logFigures();
        SortedMap<String, ReplicaLag> lags = store.replicaLags();
        return new StoreFigures(ReplicatedMessageStore.TYPE, status.role(), status.writable(),
                log.map(StoreFigureReader::disk), store.committerStats(), log.map(JeLogFigures::logFsyncs).orElse(-1L),
                lags);
    }

    private static DiskFigures disk(JeLogFigures f) {
        return new DiskFigures(f.availableLogSize(), f.totalLogSize(), f.activeLogSize(), f.reservedLogSize(),
                f.protectedLogSize());
    }
}
