package org.tandembroker.core.message;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.LongFunction;

/**
 * A message held by the broker: its id, metadata, and its content when the content is on the heap.
 *
 * <p>Shared by every queue the message was routed to, so its mutable parts are thread-safe: the content
 * reference is volatile (set to null when the body is evicted to the store, see {@link ContentBudget}) and
 * {@link #references} counts the queue entries that still hold the message (the stored record and
 * the content go when it reaches zero).
 */
public final class ServerMessage {
    private final long id;
    private final MessageMetadata metadata;
    private final boolean stored;
    /** The connection it was published on (for no-local), or null: not stored, so null after a restart. */
    private final String publisherConnection;
    private static final AtomicIntegerFieldUpdater<ServerMessage> REFERENCES =
            AtomicIntegerFieldUpdater.newUpdater(ServerMessage.class, "references");

    /** Queue entries holding this message (an updater, not an AtomicInteger: a million messages, a million objects). */
    private volatile int references;
    private volatile byte[] content;
    private volatile ContentBudget budget;

    public ServerMessage(long id, MessageMetadata metadata, byte[] content, boolean stored) {
        this(id, metadata, content, stored, null);
    }

    public ServerMessage(long id, MessageMetadata metadata, byte[] content, boolean stored,
                         String publisherConnection) {
        this.id = id;
        this.metadata = metadata;
        this.content = content;
        this.stored = stored;
        this.publisherConnection = publisherConnection;
    }

    /** The connection the message was published on, when known (see {@link IncomingMessage}). */
    public String publisherConnection() {
        return publisherConnection;
    }

    public long id() {
        return id;
    }

    public MessageMetadata metadata() {
        return metadata;
    }

    /** Whether the message is (or is being) written to the store. */
    public boolean isStored() {
        return stored;
    }

    public int references() {
        return references;
    }

    public void setReferences(int count) {
        REFERENCES.set(this, count);
    }

    public int addReference() {
        return REFERENCES.incrementAndGet(this);
    }

    /** Drops one reference; returns the number left. */
    public int dropReference() {
        return REFERENCES.decrementAndGet(this);
    }

    /** The content if it is on the heap; otherwise loads it with {@code loader} (the store's async read). */
    public CompletableFuture<byte[]> content(LongFunction<CompletableFuture<byte[]>> loader) {
        byte[] onHeap = content;
        if (onHeap != null) {
            return CompletableFuture.completedFuture(onHeap);
        }
        return loader.apply(id);
    }

    /** The content of a message that is still on the heap (a new message, before its commit). */
    public byte[] contentOnHeap() {
        byte[] onHeap = content;
        if (onHeap == null) {
            throw new IllegalStateException("content of message " + id + " is no longer on the heap");
        }
        return onHeap;
    }

    public boolean hasContentOnHeap() {
        return content != null;
    }

    /**
     * Accounts the content against {@code contentBudget}; a stored message whose content does not fit is evicted
     * (it stays readable from the store).
     */
    public void retainWithin(ContentBudget contentBudget) {
        byte[] onHeap = content;
        if (onHeap == null) {
            return;
        }
        if (contentBudget.tryRetain(onHeap.length, !stored)) {
            budget = contentBudget;
        } else {
            content = null;
        }
    }

    /** The message left the broker: its content no longer counts against the budget. */
    public void releaseContent() {
        ContentBudget b = budget;
        byte[] onHeap = content;
        if (b != null && onHeap != null) {
            budget = null;
            b.release(onHeap.length);
        }
        content = null;
    }
}
