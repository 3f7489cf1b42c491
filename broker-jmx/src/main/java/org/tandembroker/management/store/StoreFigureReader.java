package org.tandembroker.management.store;

import java.util.Optional;
import java.util.TreeMap;
import org.tandembroker.core.store.LogFigures;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreFigureSource;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.core.store.replication.ReplicationControl;
import org.tandembroker.core.vhost.ManagedVirtualHost;

/**
 * Reads {@link StoreFigures} from a virtual host's store, through what the store offers
 * ({@link MessageStore#figures()}, {@link MessageStore#replication()}): a store that offers neither shows its role
 * and nothing else. A reading may cost a statistics call per store: call it from the management sampler thread
 * every few seconds, never per message or per scrape. Figures a store cannot give (closed, being replaced) are
 * reported as unknown, never as zero.
 */
public final class StoreFigureReader {

    public StoreFigures read(ManagedVirtualHost host) {
        Optional<MessageStore> store = host.store();
        if (store.isEmpty()) {
            return StoreFigures.none("CLOSED");
        }
        MessageStore current = store.get();
        StoreStatus status = current.status();
        Optional<StoreFigureSource> source = current.figures();
        Optional<LogFigures> log = source.flatMap(StoreFigureSource::logFigures);
        return new StoreFigures(host.config().store().type(), status.role(), status.writable(),
                log.map(StoreFigureReader::disk), source.flatMap(StoreFigureSource::committerStatistics),
                log.map(LogFigures::logFsyncs).orElse(-1L),
                current.replication().map(ReplicationControl::replicaLags).orElseGet(TreeMap::new));
    }

    private static DiskFigures disk(LogFigures f) {
        return new DiskFigures(f.availableLogSize(), f.totalLogSize(), f.activeLogSize(), f.reservedLogSize(),
                f.protectedLogSize());
    }
}
