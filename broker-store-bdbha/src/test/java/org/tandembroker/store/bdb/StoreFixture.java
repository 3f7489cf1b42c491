package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.NameValue;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.core.store.StoreRoleListener;

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

    /** Everything a recovery replayed, in order. */
    static final class Recovered implements RecoveryHandler {
        final List<String> callbackOrder = new ArrayList<>();
        final Map<UUID, ConfigRecord> configRecords = new LinkedHashMap<>();
        final Map<Long, byte[]> metadata = new LinkedHashMap<>();
        final Map<Long, Integer> contentSizes = new LinkedHashMap<>();
        final Map<UUID, List<Long>> entries = new LinkedHashMap<>();

        @Override
        public void configRecord(ConfigRecord record) {
            note("config");
            configRecords.put(record.id(), record);
        }

        @Override
        public void message(long messageId, byte[] metadataBytes, int contentSize) {
            note("message");
            metadata.put(messageId, metadataBytes);
            contentSizes.put(messageId, contentSize);
        }

        @Override
        public void queueEntry(UUID queueId, long messageId) {
            note("entry");
            entries.computeIfAbsent(queueId, q -> new ArrayList<>()).add(messageId);
        }

        private void note(String kind) {
            if (callbackOrder.isEmpty() || !callbackOrder.get(callbackOrder.size() - 1).equals(kind)) {
                callbackOrder.add(kind);
            }
        }
    }
}
