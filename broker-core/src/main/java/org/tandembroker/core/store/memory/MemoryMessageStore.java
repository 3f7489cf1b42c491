package org.tandembroker.core.store.memory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;

/**
 * A non-persistent store: everything lives on the heap and is gone when the broker stops. Commits complete at
 * once (there is no disk to wait for). Its maps are guarded by this object's monitor; critical sections are a
 * few map operations (recovery's reads sort and copy: this store only recovers what it was given in the same
 * JVM, for tests). Reads of {@link StoredEntries} complete at once, on the caller's thread.
 */
public final class MemoryMessageStore implements MessageStore {
    private final Map<UUID, ConfigRecord> configRecords = new LinkedHashMap<>();
    private final Map<Long, StoredMessage> messages = new HashMap<>();
    private final Map<UUID, TreeSet<Long>> entries = new HashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);
    private volatile boolean closed;

    private record StoredMessage(byte[] metadata, byte[] content) {
    }

    @Override
    public void start(StoreRoleListener listener) {
        NamedThreadFactory.daemonThread("memory-store-activation").newThread(listener::becameActive).start();
    }

    @Override
    public synchronized StoredEntries recover(RecoveryHandler handler) {
        configRecords.values().forEach(handler::configRecord);
        long highest = messages.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
        for (TreeSet<Long> ids : entries.values()) {
            if (!ids.isEmpty()) {
                highest = Math.max(highest, ids.last());
            }
        }
        long horizon = highest;
        nextId.accumulateAndGet(horizon + 1, Math::max);
        return new StoredEntries() {
            @Override
            public long horizon() {
                return horizon;
            }

            @Override
            public CompletableFuture<List<StoredEntry>> entries(UUID queueId, long afterMessageId, int max) {
                return CompletableFuture.completedFuture(readEntries(queueId, afterMessageId, horizon, max));
            }

            @Override
            public CompletableFuture<long[]> messageIds(long afterMessageId, int max) {
                return CompletableFuture.completedFuture(readMessageIds(afterMessageId, horizon, max));
            }
        };
    }

    private synchronized List<StoredEntry> readEntries(UUID queueId, long after, long horizon, int max) {
        TreeSet<Long> ids = entries.get(queueId);
        if (ids == null || after >= horizon) {
            return List.of();
        }
        List<StoredEntry> page = new ArrayList<>();
        for (long id : ids.subSet(after, false, horizon, true)) {
            if (page.size() == max) {
                break;
            }
            StoredMessage m = messages.get(id);
            page.add(m == null ? new StoredEntry(id, null, 0) : new StoredEntry(id, m.metadata(), m.content().length));
        }
        return page;
    }

    /** Sorts every id on each call: the memory store is recovered only when it holds next to nothing. */
    private synchronized long[] readMessageIds(long after, long horizon, int max) {
        return messages.keySet().stream().mapToLong(Long::longValue).filter(id -> id > after && id <= horizon)
                .sorted().limit(max).toArray();
    }

    @Override
    public StoreTransaction newTransaction() {
        return new MemoryTransaction();
    }

    @Override
    public synchronized CompletableFuture<byte[]> loadContent(long messageId) {
        StoredMessage m = messages.get(messageId);
        if (m == null) {
            return CompletableFuture.failedFuture(
                    new BrokerException(ErrorKind.NOT_FOUND, "message " + messageId + " is not in the store"));
        }
        return CompletableFuture.completedFuture(m.content());
    }

    @Override
    public synchronized CompletableFuture<List<StoredEntry>> readMessages(long[] ids) {
        List<StoredEntry> page = new ArrayList<>(ids.length);
        for (long id : ids) {
            StoredMessage m = messages.get(id);
            page.add(m == null ? new StoredEntry(id, null, 0) : new StoredEntry(id, m.metadata(), m.content().length));
        }
        return CompletableFuture.completedFuture(page);
    }

    @Override
    public boolean readsMessagesById() {
        return true;
    }

    @Override
    public long nextMessageId() {
        return nextId.getAndIncrement();
    }

    @Override
    public synchronized StoreStatus status() {
        return new StoreStatus(closed ? "CLOSED" : "STANDALONE", !closed,
                "memory store: " + messages.size() + " messages (not persistent)");
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    private synchronized void apply(List<Consumer<MemoryMessageStore>> operations) {
        if (closed) {
            throw new BrokerException(ErrorKind.NOT_ACTIVE, "store is closed");
        }
        operations.forEach(op -> op.accept(this));
    }

    private final class MemoryTransaction implements StoreTransaction {
        private final List<Consumer<MemoryMessageStore>> operations = new ArrayList<>();

        @Override
        public void storeMessage(long messageId, byte[] metadata, byte[] content) {
            operations.add(s -> s.messages.put(messageId, new StoredMessage(metadata, content)));
        }

        @Override
        public void enqueue(UUID queueId, long messageId) {
            operations.add(s -> s.entries.computeIfAbsent(queueId, q -> new TreeSet<>()).add(messageId));
        }

        @Override
        public void dequeue(UUID queueId, long messageId) {
            operations.add(s -> {
                TreeSet<Long> ids = s.entries.get(queueId);
                if (ids != null) {
                    ids.remove(messageId);
                }
            });
        }

        @Override
        public void removeMessage(long messageId) {
            operations.add(s -> s.messages.remove(messageId));
        }

        @Override
        public void putConfig(ConfigRecord record) {
            operations.add(s -> s.configRecords.put(record.id(), record));
        }

        @Override
        public void removeConfig(UUID id) {
            operations.add(s -> {
                s.configRecords.remove(id);
                s.entries.remove(id);
            });
        }

        @Override
        public boolean isEmpty() {
            return operations.isEmpty();
        }

        @Override
        public CompletableFuture<Void> commit() {
            try {
                apply(operations);
                return CompletableFuture.completedFuture(null);
            } catch (BrokerException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
    }
}
