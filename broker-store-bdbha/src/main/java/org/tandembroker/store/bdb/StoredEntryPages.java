package org.tandembroker.store.bdb;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.tandembroker.core.store.EntrySummary;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;

/**
 * The pages of a recovery, for both JE stores: queue entries and message ids up to the {@code horizon} fixed when
 * the configuration was recovered, each page read by the store's own {@link PageReader} (its reader thread, and for
 * the replicated store only while the master session that recovered is still current).
 *
 * <p>Threads: immutable; the reads run where the reader puts them.
 */
public final class StoredEntryPages implements StoredEntries {

    /** Runs one page read for the store; fails the future with a {@code BrokerException} naming {@code failure}. */
    public interface PageReader {
        <T> CompletableFuture<T> read(String failure, Function<StoreDatabases, T> work);
    }

    private final long horizon;
    private final PageReader reader;

    public StoredEntryPages(long horizon, PageReader reader) {
        this.horizon = horizon;
        this.reader = reader;
    }

    @Override
    public long horizon() {
        return horizon;
    }

    @Override
    public CompletableFuture<List<StoredEntry>> entries(UUID queueId, long afterMessageId, int max) {
        return reader.read("cannot read entries of queue " + queueId,
                dbs -> dbs.readEntries(queueId, afterMessageId, horizon, max));
    }

    @Override
    public CompletableFuture<List<EntrySummary>> summaries(UUID queueId, long afterMessageId, int max) {
        return reader.read("cannot read entries of queue " + queueId,
                dbs -> dbs.readEntrySummaries(queueId, afterMessageId, horizon, max));
    }

    @Override
    public CompletableFuture<long[]> messageIds(long afterMessageId, int max) {
        return reader.read("cannot read message ids", dbs -> dbs.readMessageIds(afterMessageId, horizon, max));
    }
}
