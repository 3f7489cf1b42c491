package org.tandembroker.core.queue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.QueueOptions;
import org.tandembroker.core.exec.SerialExecutor;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntry;
import org.tandembroker.core.store.memory.MemoryMessageStore;

/**
 * A queue host over a {@link MemoryMessageStore}, for tests of durable queues with a heap window: messages are
 * stored as the publisher stores them, and the reads of paged messages either complete at once or wait until the
 * test {@linkplain #completeReads() completes them} ({@link #holdReads}). Its queues run their tasks on the
 * caller's thread; timers run when the test says ({@link #runScheduled()}). Not thread-safe: one test thread.
 */
final class StoredQueueHost implements QueueHost {
    final MemoryMessageStore store = new MemoryMessageStore();
    private final int window;
    private long now = 1_000_000;
    private boolean holdReads;
    private final ArrayDeque<Runnable> heldReads = new ArrayDeque<>();
    private int reads;
    private final OperationalLog operationalLog = new OperationalLog();
    private final ArrayDeque<Runnable> scheduled = new ArrayDeque<>();
    private int contentReads;
    private int contentReadsToFail;
    private org.tandembroker.core.ErrorKind contentReadFailure;
    private ContentBudget bodiesReadWithMetadata;

    StoredQueueHost(int window) {
        this.window = window;
        store.start(new org.tandembroker.core.store.StoreRoleListener() {
            @Override
            public CompletableFuture<Void> becameActive() {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletableFuture<Void> becamePassive(java.util.Optional<String> newMaster, String reason) {
                return CompletableFuture.completedFuture(null);
            }
        });
    }

    /** A durable queue with priority order. */
    BrokerQueue queue(String name) {
        return queue(name, QueueOptions.DEFAULT, 0, 0);
    }

    BrokerQueue queue(String name, QueueOptions options, long maxMessages, long maxBytes) {
        return new BrokerQueue(UUID.randomUUID(), new QueueConfig(name, true, maxMessages, maxBytes, 0, 0, null,
                options), false, new SerialExecutor(name, Runnable::run), this);
    }

    /** A stored, persistent message with that text as content. */
    ServerMessage message(String text, int priority, long ttlMillis, String groupId, Map<String, Object> properties) {
        MessageProperties props = new MessageProperties(null, null, null, groupId, null, 0, properties);
        MessageMetadata metadata = new MessageMetadata(null, null, true, priority, ttlMillis == 0 ? 0 : now + ttlMillis,
                now, text.length(), props);
        return new ServerMessage(store.nextMessageId(), metadata, text.getBytes(StandardCharsets.UTF_8), true);
    }

    ServerMessage message(String text) {
        return message(text, 4, 0, null, Map.of());
    }

    /** Publishes as the publisher does: room reserved on each queue, stored with its entries, then enqueued. */
    void publish(ServerMessage message, BrokerQueue... queues) {
        for (BrokerQueue queue : queues) {
            queue.reserve(message.metadata().contentSize());
        }
        StoreTransaction txn = store.newTransaction();
        txn.storeMessage(message.id(), MetadataCodec.encode(message.metadata()), message.contentOnHeap());
        for (BrokerQueue queue : queues) {
            txn.enqueue(queue.id(), message.id());
        }
        txn.commit().join();
        message.setReferences(queues.length);
        for (BrokerQueue queue : queues) {
            queue.enqueue(message);
        }
    }

    /** From now on reads of paged messages wait for {@link #completeReads()}. */
    void holdReads() {
        holdReads = true;
    }

    /** Completes the reads held so far; returns how many. */
    int completeReads() {
        int n = 0;
        while (!heldReads.isEmpty()) {
            heldReads.poll().run();
            n++;
        }
        return n;
    }

    /** Reads of paged messages asked for so far. */
    int reads() {
        return reads;
    }

    /** The next {@code n} content reads fail with {@code kind} (a store that cannot read now). */
    void failContentReads(int n, org.tandembroker.core.ErrorKind kind) {
        contentReadsToFail = n;
        contentReadFailure = kind;
    }

    /**
     * From now on reads of paged messages return each body with its metadata, as a store that keeps small bodies in
     * the metadata record does, and queues keep them within {@code budget}.
     */
    void readBodiesWithMetadataWithin(ContentBudget budget) {
        bodiesReadWithMetadata = budget;
    }

    @Override
    public ContentBudget contentBudget() {
        return bodiesReadWithMetadata;
    }

    private List<StoredEntry> withBodies(List<StoredEntry> page) {
        if (bodiesReadWithMetadata == null) {
            return page;
        }
        return page.stream().map(entry -> entry.metadata() == null ? entry : new StoredEntry(entry.messageId(),
                entry.metadata(), entry.contentSize(), store.loadContent(entry.messageId()).join())).toList();
    }

    /** Content reads asked for so far. */
    int contentReads() {
        return contentReads;
    }

    /** Runs the tasks scheduled so far (as if their delay passed); returns how many. */
    int runScheduled() {
        int n = 0;
        for (int due = scheduled.size(); due > 0; due--) {
            scheduled.poll().run();
            n++;
        }
        return n;
    }

    void advance(long millis) {
        now += millis;
    }

    @Override
    public int queueWindow() {
        return window;
    }

    @Override
    public CompletableFuture<List<StoredEntry>> readMessages(long[] ids) {
        reads++;
        if (!holdReads) {
            return store.readMessages(ids).thenApply(this::withBodies);
        }
        CompletableFuture<List<StoredEntry>> result = new CompletableFuture<>();
        heldReads.add(() -> store.readMessages(ids).thenApply(this::withBodies).whenComplete((page, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(page);
            }
        }));
        return result;
    }

    @Override
    public StoreTransaction newStoreTransaction() {
        return store.newTransaction();
    }

    @Override
    public CompletableFuture<byte[]> loadContent(long messageId) {
        contentReads++;
        if (contentReadsToFail > 0) {
            contentReadsToFail--;
            return CompletableFuture.failedFuture(new org.tandembroker.core.BrokerException(contentReadFailure,
                    "the store cannot read now"));
        }
        return store.loadContent(messageId);
    }

    @Override
    public CompletableFuture<BrokerQueue> deadLetterQueue(String name) {
        throw new UnsupportedOperationException("not used by these tests");
    }

    @Override
    public void autoDelete(BrokerQueue queue) {
    }

    @Override
    public OperationalLog operationalLog() {
        return operationalLog;
    }

    @Override
    public long nowMillis() {
        return now;
    }

    @Override
    public void schedule(Runnable task, long delayMillis) {
        scheduled.add(task); // run by runScheduled()
    }
}
