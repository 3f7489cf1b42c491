package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.NameValue;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;

/** Builds settings and stores for tests, and records what the store tells its listener and the oplog. */
final class StoreFixture {
    static final Path VHOST_FILE = Path.of("etc/vhosts/test.xml");
    static final String VHOST = "test";

    final Path workDirectory;
    final OperationalLog operationalLog = new OperationalLog();
    final List<String> logLines = new CopyOnWriteArrayList<>();

    StoreFixture(Path workDirectory) {
        this.workDirectory = workDirectory;
        operationalLog.addObserver(logLines::add);
    }

    static StoreSettings settings(Map<String, String> elements, List<NameValue> envConfig) {
        return new StoreSettings(VHOST_FILE, "bdb", elements, envConfig, List.of());
    }

    StoreContext context() {
        return new StoreContext(VHOST, workDirectory, null, operationalLog);
    }

    BdbMessageStore create(Map<String, String> elements, List<NameValue> envConfig) throws ConfigException {
        return (BdbMessageStore) new BdbMessageStoreFactory().create(settings(elements, envConfig), context());
    }

    /** Creates and starts a store, and waits until it reports active. */
    BdbMessageStore open(Map<String, String> elements, List<NameValue> envConfig) throws Exception {
        BdbMessageStore store = create(elements, envConfig);
        RoleListener listener = new RoleListener();
        store.start(listener);
        assertThat(listener.active.get(30, TimeUnit.SECONDS)).startsWith("bdb-lifecycle-");
        return store;
    }

    BdbMessageStore open() throws Exception {
        return open(Map.of(), List.of());
    }

    long linesWithCode(String code) {
        return logLines.stream().filter(line -> line.startsWith(code + " ")).count();
    }

    /** Completes {@link #active} with the name of the thread that called becameActive. */
    static final class RoleListener implements StoreRoleListener {
        final CompletableFuture<String> active = new CompletableFuture<>();
        final CompletableFuture<String> passive = new CompletableFuture<>();

        @Override
        public CompletableFuture<Void> becameActive() {
            active.complete(Thread.currentThread().getName());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> becamePassive(Optional<String> activeNodeClientAddress, String reason) {
            passive.complete(reason);
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Everything a recovery found: the configuration records it replayed, and what its pages hold for every queue
     * with a configuration record and every queue named, read {@code pageSize} at a time.
     */
    static final class Recovered {
        final Map<UUID, ConfigRecord> configRecords = new LinkedHashMap<>();
        /** The metadata of the messages of the entries read, by id. */
        final Map<Long, byte[]> metadata = new TreeMap<>();
        final Map<Long, Integer> contentSizes = new TreeMap<>();
        /** Each queue's entries, for queues with at least one. */
        final Map<UUID, List<Long>> entries = new LinkedHashMap<>();
        /** Entries whose message was missing. */
        final List<Long> entriesWithoutMessage = new ArrayList<>();
        /** Every stored message id up to the horizon. */
        final List<Long> messageIds = new ArrayList<>();
        long horizon;

        static Recovered from(MessageStore store, UUID... queues) {
            return from(store, 3, queues);
        }

        static Recovered from(MessageStore store, int pageSize, UUID... queues) {
            Recovered recovered = new Recovered();
            StoredEntries stored = store.recover(record -> recovered.configRecords.put(record.id(), record));
            recovered.horizon = stored.horizon();
            Set<UUID> queueIds = new LinkedHashSet<>();
            recovered.configRecords.values().stream().filter(r -> r.type().equals(ConfigRecord.QUEUE))
                    .forEach(r -> queueIds.add(r.id()));
            queueIds.addAll(List.of(queues));
            for (UUID queue : queueIds) {
                long after = 0;
                while (true) {
                    List<StoredEntry> page = stored.entries(queue, after, pageSize).join();
                    for (StoredEntry entry : page) {
                        recovered.entries.computeIfAbsent(queue, q -> new ArrayList<>()).add(entry.messageId());
                        if (entry.metadata() == null) {
                            recovered.entriesWithoutMessage.add(entry.messageId());
                        } else {
                            recovered.metadata.put(entry.messageId(), entry.metadata());
                            recovered.contentSizes.put(entry.messageId(), entry.contentSize());
                        }
                        after = entry.messageId();
                    }
                    if (page.size() < pageSize) {
                        break;
                    }
                }
            }
            long after = 0;
            while (true) {
                long[] ids = stored.messageIds(after, pageSize).join();
                for (long id : ids) {
                    recovered.messageIds.add(id);
                    after = id;
                }
                if (ids.length < pageSize) {
                    break;
                }
            }
            return recovered;
        }
    }
}
