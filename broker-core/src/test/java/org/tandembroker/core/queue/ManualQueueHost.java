package org.tandembroker.core.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.exec.SerialExecutor;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.StoreTransaction;

/**
 * A queue host for tests of a queue without a store: a clock the test moves and a timer the test fires. Its queues
 * run their tasks on the caller's thread. Not thread-safe: one test thread.
 */
final class ManualQueueHost implements QueueHost {
    private long now = 1_000_000;
    private final List<Timer> timers = new ArrayList<>();
    private long nextId = 1;

    private record Timer(long atMillis, Runnable task) {
    }

    /** A non-durable queue on this host whose tasks run at once on the calling thread. */
    BrokerQueue queue(String name) {
        return new BrokerQueue(UUID.randomUUID(), new QueueConfig(name, false, 0, 0, 0, 0, null), false,
                new SerialExecutor(name, Runnable::run), this);
    }

    /** A message (not stored) with that text as content, due {@code delayMillis} from now (0: at once). */
    ServerMessage message(String text, String groupId, long delayMillis) {
        return message(text, groupId, delayMillis, 0);
    }

    /** As {@link #message(String, String, long)}, expiring {@code ttlMillis} from now (0: never). */
    ServerMessage message(String text, String groupId, long delayMillis, long ttlMillis) {
        MessageProperties properties = groupId == null ? MessageProperties.NONE
                : new MessageProperties(null, null, null, groupId, null, 0, java.util.Map.of());
        MessageMetadata metadata = new MessageMetadata(null, null, false, 4, ttlMillis == 0 ? 0 : now + ttlMillis, now,
                text.length(), properties,
                delayMillis == 0 ? 0 : now + delayMillis);
        return new ServerMessage(nextId++, metadata, text.getBytes(java.nio.charset.StandardCharsets.UTF_8), false);
    }

    /** Publishes {@code message} to {@code queue} as the publisher does (room reserved, then enqueued). */
    static void publish(BrokerQueue queue, ServerMessage message) {
        queue.reserve(message.metadata().contentSize());
        queue.enqueue(message);
    }

    /** Moves the clock on and fires the timers that are due by then, in time order. */
    void advance(long millis) {
        now += millis;
        timers.sort((a, b) -> Long.compare(a.atMillis(), b.atMillis()));
        while (!timers.isEmpty() && timers.get(0).atMillis() <= now) {
            timers.remove(0).task().run();
        }
    }

    /** Timers set and not yet fired. */
    int pendingTimers() {
        return timers.size();
    }

    @Override
    public void schedule(Runnable task, long delayMillis) {
        timers.add(new Timer(now + Math.max(0, delayMillis), task));
    }

    @Override
    public long nowMillis() {
        return now;
    }

    @Override
    public StoreTransaction newStoreTransaction() {
        return new NothingToStore();
    }

    @Override
    public CompletableFuture<byte[]> loadContent(long messageId) {
        throw new UnsupportedOperationException("messages in these tests keep their content");
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
        return new OperationalLog();
    }

    /** Messages of these tests are never stored, so a removal writes nothing. */
    private static final class NothingToStore implements StoreTransaction {
        @Override
        public void storeMessage(long messageId, byte[] metadata, byte[] content) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void enqueue(UUID queueId, long messageId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void dequeue(UUID queueId, long messageId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void removeMessage(long messageId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void putConfig(ConfigRecord record) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void removeConfig(UUID id) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isEmpty() {
            return true;
        }

        @Override
        public CompletableFuture<Void> commit() {
            return CompletableFuture.completedFuture(null);
        }
    }
}
