package org.tandembroker.core.store;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The messages and queue entries a store held when {@link MessageStore#recover} began, read in pages, so that a
 * virtual host can serve the head of every queue while the rest of each queue loads in the background.
 *
 * <p><b>The horizon.</b> Every message stored before recovery has an id of at most {@link #horizon()}; every
 * message stored afterwards has a higher id ({@link MessageStore#nextMessageId()} is positioned above it). Reads
 * here never return anything above the horizon, so new messages that clients publish while the old ones load are
 * never read twice. A queue entry at or below the horizon may disappear while it is being read (its queue was
 * deleted); the caller must not add such entries meanwhile (the virtual host defers moving an old message onto a
 * queue that is still loading).
 *
 * <p><b>Threads.</b> Any thread may call; the reads run on the store's own reader thread (the one that serves
 * {@link MessageStore#loadContent}), one at a time, and their futures complete there: keep dependent stages short
 * or move them to an executor of your own. A read after the store lost its active role, or was closed, fails with
 * {@code NOT_ACTIVE}; the store does not call back by itself.
 */
public interface StoredEntries {

    /** The highest message id stored when recovery began (of a message or of a queue entry); 0 for none. */
    long horizon();

    /**
     * Reads up to {@code max} entries of queue {@code queueId} whose message ids are above {@code afterMessageId}
     * and at most {@link #horizon()}, in ascending id order (which is the queue's enqueue order), each with its
     * message's metadata. Fewer than {@code max} entries means the queue has no more.
     */
    CompletableFuture<List<StoredEntry>> entries(UUID queueId, long afterMessageId, int max);

    /**
     * Like {@link #entries}, for entries beyond a queue's heap window: only what the queue needs until it reads the
     * message back ({@link EntrySummary}). A store that keeps a summary with each entry answers without reading the
     * messages; the default reads them.
     */
    default CompletableFuture<List<EntrySummary>> summaries(UUID queueId, long afterMessageId, int max) {
        return entries(queueId, afterMessageId, max)
                .thenApply(page -> page.stream().map(EntrySummary::of).toList());
    }

    /**
     * Reads up to {@code max} ids of stored messages above {@code afterMessageId} and at most {@link #horizon()},
     * ascending, whichever queues hold them (none: an orphan, left behind by a crash between a consumer's
     * acknowledgement and the message's removal). Fewer than {@code max} ids means there are no more.
     */
    CompletableFuture<long[]> messageIds(long afterMessageId, int max);
}
