package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.exec.SerialExecutor;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.StoreTransaction;

/**
 * A publish completes once its message is handed to the queue, before the queue's own thread has added the
 * entry; the queue's figures must already include it then, or a client (or a metrics scrape) that has seen the
 * publish settle can read a count that leaves it out.
 */
class BrokerQueueCountersTest {
    /** The queue's thread, held still: tasks wait here until {@link #runAll}. */
    private final ArrayDeque<Runnable> heldTasks = new ArrayDeque<>();
    private final BrokerQueue queue = new BrokerQueue(UUID.randomUUID(),
            new QueueConfig("orders", true, 0, 0, 0, 0, null), false,
            new SerialExecutor("orders", heldTasks::add), new NoHost());

    @Test
    void anEnqueuedMessageCountsInBeforeTheQueueThreadRuns() {
        ServerMessage message = message(1, 300);
        queue.reserve(300);
        queue.executor().execute(() -> { }); // the queue's thread is busy: the enqueue cannot run on the caller

        queue.enqueue(message);

        assertThat(heldTasks).as("the entry is added on the queue's thread, which has not run yet").isNotEmpty();
        assertThat(queue.depthMessages()).isEqualTo(1);
        assertThat(queue.enqueuedTotal()).isEqualTo(1);
        assertThat(queue.enqueuedBytes()).isEqualTo(300);

        runAll();

        assertThat(queue.enqueuedTotal()).as("adding the entry does not count it a second time").isEqualTo(1);
        assertThat(queue.enqueuedBytes()).isEqualTo(300);
    }

    @Test
    void recoveredEntriesCountInOnceWhenLoadedAndMessagesHeldMeanwhileOnceWhenEnqueued() {
        queue.expectRecoveredEntries();
        ServerMessage recovered = message(1, 100);
        recovered.setReferences(1);
        ServerMessage publishedWhileLoading = message(2, 50);
        queue.reserve(50);

        queue.enqueue(publishedWhileLoading);
        CompletableFuture<Boolean> added = queue.addRecovered(java.util.List.of(recovered), true);
        runAll();

        assertThat(added).isCompletedWithValue(true);
        assertThat(queue.enqueuedTotal()).isEqualTo(2);
        assertThat(queue.enqueuedBytes()).isEqualTo(150);
        assertThat(queue.depthMessages()).isEqualTo(2);
    }

    private void runAll() {
        while (!heldTasks.isEmpty()) {
            heldTasks.poll().run();
        }
    }

    private static ServerMessage message(long id, int size) {
        return new ServerMessage(id, new MessageMetadata(null, null, true, 4, 0, System.currentTimeMillis(), size),
                new byte[size], false);
    }

    private static final class NoHost implements QueueHost {
        @Override
        public StoreTransaction newStoreTransaction() {
            throw new UnsupportedOperationException("not used by these tests");
        }

        @Override
        public CompletableFuture<byte[]> loadContent(long messageId) {
            throw new UnsupportedOperationException("not used by these tests");
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

        @Override
        public long nowMillis() {
            return System.currentTimeMillis();
        }
    }
}
