package org.tandembroker.core.testing;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.EntrySummary;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;

/**
 * A store that a test steers, wrapping a real one: it holds back recovery's background reads (every page of a
 * queue's entries but the first) until {@link #releasePages()}, can hold back one commit, and plays role changes
 * (as a replicated store does) on the virtual host that started it. Everything else goes to the wrapped store.
 * Thread-safe.
 */
public final class ControlledStore implements MessageStore {
    private final MessageStore delegate;
    private final AtomicReference<CompletableFuture<Void>> pageGate = new AtomicReference<>();
    private final AtomicInteger pagesRequested = new AtomicInteger();
    private final AtomicInteger pagesServed = new AtomicInteger();
    private final AtomicLong entriesRead = new AtomicLong();
    private final AtomicLong summariesRead = new AtomicLong();
    private final AtomicReference<CompletableFuture<Void>> nextCommitGate = new AtomicReference<>();
    private final AtomicReference<RuntimeException> nextCommitFailureAfterStoring = new AtomicReference<>();
    private final CompletableFuture<Void> heldCommitStarted = new CompletableFuture<>();
    private volatile StoreRoleListener listener;

    /** @param holdPages whether background pages are held from the start (until {@link #releasePages()}) */
    public ControlledStore(MessageStore delegate, boolean holdPages) {
        this.delegate = delegate;
        pageGate.set(holdPages ? new CompletableFuture<>() : CompletableFuture.completedFuture(null));
    }

    /** Holds every later background page until {@link #releasePages()}. */
    public void holdPages() {
        pageGate.updateAndGet(gate -> gate.isDone() ? new CompletableFuture<>() : gate);
    }

    /** Lets held and later pages through. */
    public void releasePages() {
        pageGate.get().complete(null);
    }

    /** Background pages asked for so far (held or not). */
    public int pagesRequested() {
        return pagesRequested.get();
    }

    /** Background pages read from the wrapped store so far. */
    public int pagesServed() {
        return pagesServed.get();
    }

    /**
     * Holds the next commit: it reaches the wrapped store only when the returned future completes normally, and
     * fails with its exception otherwise.
     */
    public CompletableFuture<Void> holdNextCommit() {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        nextCommitGate.set(gate);
        return gate;
    }

    /**
     * The next commit reaches the wrapped store and then reports {@code failure} (as a replicated master does when
     * its commit is durable locally but the replicas' acknowledgements did not arrive: IN_DOUBT).
     */
    public void failNextCommitAfterStoring(RuntimeException failure) {
        nextCommitFailureAfterStoring.set(failure);
    }

    /** Completes when the held commit has been asked for. */
    public CompletableFuture<Void> heldCommitStarted() {
        return heldCommitStarted;
    }

    /** Tells the virtual host this node may no longer serve (as a replicated store does when it loses master). */
    public CompletableFuture<Void> becomePassive(String reason) {
        return listener.becamePassive(Optional.empty(), reason);
    }

    /** Tells the virtual host this node may serve again: it recovers from the store afresh. */
    public CompletableFuture<Void> becomeActive() {
        return listener.becameActive();
    }

    @Override
    public void start(StoreRoleListener roleListener) {
        this.listener = roleListener;
        delegate.start(roleListener);
    }

    /** Entries recovery read with their messages' metadata ({@link StoredEntries#entries}) so far. */
    public long entriesRead() {
        return entriesRead.get();
    }

    /** Entries recovery read as summaries ({@link StoredEntries#summaries}) so far. */
    public long summariesRead() {
        return summariesRead.get();
    }

    private static <T> CompletableFuture<List<T>> counted(CompletableFuture<List<T>> page, AtomicLong count) {
        return page.whenComplete((read, failure) -> {
            if (read != null) {
                count.addAndGet(read.size());
            }
        });
    }

    @Override
    public StoredEntries recover(RecoveryHandler handler) {
        StoredEntries stored = delegate.recover(handler);
        return new StoredEntries() {
            @Override
            public long horizon() {
                return stored.horizon();
            }

            @Override
            public CompletableFuture<List<StoredEntry>> entries(UUID queueId, long afterMessageId, int max) {
                if (afterMessageId == 0) {
                    // a head page: never held
                    return counted(stored.entries(queueId, afterMessageId, max), entriesRead);
                }
                pagesRequested.incrementAndGet();
                return counted(pageGate.get().thenCompose(open -> stored.entries(queueId, afterMessageId, max))
                        .whenComplete((page, failure) -> pagesServed.incrementAndGet()), entriesRead);
            }

            @Override
            public CompletableFuture<List<EntrySummary>> summaries(UUID queueId, long afterMessageId, int max) {
                pagesRequested.incrementAndGet();
                return counted(pageGate.get().thenCompose(open -> stored.summaries(queueId, afterMessageId, max))
                        .whenComplete((page, failure) -> pagesServed.incrementAndGet()), summariesRead);
            }

            @Override
            public CompletableFuture<long[]> messageIds(long afterMessageId, int max) {
                return stored.messageIds(afterMessageId, max);
            }
        };
    }

    @Override
    public StoreTransaction newTransaction() {
        StoreTransaction inner = delegate.newTransaction();
        return new StoreTransaction() {
            @Override
            public void storeMessage(long messageId, byte[] metadata, byte[] content) {
                inner.storeMessage(messageId, metadata, content);
            }

            @Override
            public void storeMessage(long messageId, byte[] metadata, byte[] content,
                                     boolean alsoOnNonDurableQueues) {
                inner.storeMessage(messageId, metadata, content, alsoOnNonDurableQueues);
            }

            @Override
            public void enqueue(UUID queueId, long messageId) {
                inner.enqueue(queueId, messageId);
            }

            @Override
            public void dequeue(UUID queueId, long messageId) {
                inner.dequeue(queueId, messageId);
            }

            @Override
            public void removeMessage(long messageId) {
                inner.removeMessage(messageId);
            }

            @Override
            public void putConfig(ConfigRecord record) {
                inner.putConfig(record);
            }

            @Override
            public void removeConfig(UUID id) {
                inner.removeConfig(id);
            }

            @Override
            public boolean isEmpty() {
                return inner.isEmpty();
            }

            @Override
            public CompletableFuture<Void> commit() {
                RuntimeException afterStoring = nextCommitFailureAfterStoring.getAndSet(null);
                if (afterStoring != null) {
                    return inner.commit().thenCompose(stored -> CompletableFuture.failedFuture(afterStoring));
                }
                CompletableFuture<Void> gate = nextCommitGate.getAndSet(null);
                if (gate == null) {
                    return inner.commit();
                }
                heldCommitStarted.complete(null);
                return gate.thenCompose(open -> inner.commit());
            }
        };
    }

    @Override
    public CompletableFuture<byte[]> loadContent(long messageId) {
        return delegate.loadContent(messageId);
    }

    @Override
    public CompletableFuture<List<StoredEntry>> readMessages(long[] ids) {
        return delegate.readMessages(ids);
    }

    @Override
    public boolean readsMessagesById() {
        return delegate.readsMessagesById();
    }

    @Override
    public long nextMessageId() {
        return delegate.nextMessageId();
    }

    @Override
    public StoreStatus status() {
        return delegate.status();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
