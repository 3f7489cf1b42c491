package org.tandembroker.core.vhost;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.RecoveredBeyondWindow;
import org.tandembroker.core.store.EntrySummary;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;

/**
 * Loads the stored entries of a new master's durable queues, so that the virtual host serves before the queues
 * are loaded: {@link #loadHeads()} reads the first page of every queue during activation (its cost depends on
 * the number of queues, not on their depth); {@link #loadRest()} then reads the rest in pages, oldest first,
 * round robin over the queues, and hands each page to its queue ({@link BrokerQueue#addRecovered}), whose
 * consumers take what is loaded meanwhile; {@link #finish} settles what recovery left behind.
 *
 * <p><b>Shared messages and the recovery reference.</b> A message routed to several queues has one entry on each,
 * and is removed from the store when its reference count (one per entry) reaches zero. Queues load independently,
 * so a message consumed from a queue that loaded it could reach zero while another queue has not read its entry
 * yet. Hence every recovered message is created once ({@link #recovered}, by id) with one extra reference held by
 * this loader, and released only when every queue has loaded ({@link #finish}): a release that reaches zero
 * removes the message (it was consumed from every queue meanwhile). Then the stored message ids up to the
 * horizon that no queue held (orphans) are removed.
 *
 * <p><b>Queues deeper than their heap window.</b> Once a queue has its {@linkplain BrokerQueue#heapWindow() window}
 * of entries, the rest of its entries are not turned into messages: the loader reads only their summaries (id,
 * priority, size: {@link StoredEntries#summaries}, which a JE store answers from the entries alone, without reading
 * the messages), collects their ids (8 bytes each,
 * {@link RecoveredBeyondWindow}) and, when every queue has been read, hands them to the queue, which reads them back
 * from the store as its consumers take the head. A message held by another queue as well is shared (one reference
 * count): such a message, beyond the window of one queue, is created once like the others and stays on the heap
 * (pinned). The orphan sweep counts the ids beyond windows as held.
 *
 * <p><b>Threads.</b> Every field is confined to the virtual host's life-cycle thread: the steps run there (as
 * tasks on {@code steps}), except during activation, when the life-cycle thread itself calls {@link #loadHeads()}
 * and, if nothing is left to load, waits for {@link #finish} whose steps then run on the store's reader thread
 * (each step hands over to the next through the store's futures, so one runs at a time). Store reads run on the
 * store's reader thread; pages are added on each queue's executor. {@link #cancel()} (life-cycle thread, on
 * passivation or stop) stops every later step: nothing more is added to queues, nothing removed from the store.
 */
final class RecoveredEntryLoader {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveredEntryLoader.class);
    /** Entries read per queue before activation. */
    static final int HEAD_PAGE = 256;
    /** Entries per read in the background: small enough not to hold up the content reads sharing the reader. */
    static final int PAGE = 2048;
    static final int ORPHAN_PAGE = 8192;
    private static final int REMOVALS_PER_TRANSACTION = 1024;
    private static final long RETRY_MILLIS = 1000;

    private final String hostName;
    private final MessageStore store;
    private final StoredEntries stored;
    private final Executor steps;
    private final ScheduledExecutorService timer;
    private final OperationalLog operationalLog;
    private final CompletableFuture<Long> done = new CompletableFuture<>();
    private final List<QueueCursor> cursors = new ArrayList<>();
    private final ArrayDeque<QueueCursor> unfinished = new ArrayDeque<>();
    /** Every recovered message by id, each holding this loader's reference until {@link #finish}. */
    private final Map<Long, ServerMessage> recovered = new HashMap<>();
    private final Map<String, String> interned = new HashMap<>();
    private final long startNanos = System.nanoTime();
    private volatile boolean cancelled;
    private long entriesLoaded;
    private long missingMessages;
    private int readFailures;

    /** A queue and how far it is loaded. */
    private static final class QueueCursor {
        final BrokerQueue queue;
        long afterMessageId;
        /** Entries added to the queue as messages (its window). */
        long inWindow;
        /** Entries beyond the window, null until the window is full. */
        RecoveredBeyondWindow beyond;
        CompletableFuture<Boolean> lastAdd = CompletableFuture.completedFuture(true);

        QueueCursor(BrokerQueue queue) {
            this.queue = queue;
        }
    }

    /**
     * @param queues the recovered durable queues, each {@linkplain BrokerQueue#expectRecoveredEntries() expecting}
     *               its entries
     * @param steps  the life-cycle thread's executor (a rejected step means the host stopped: it is dropped)
     */
    RecoveredEntryLoader(String hostName, MessageStore store, StoredEntries stored, List<BrokerQueue> queues,
                         Executor steps, ScheduledExecutorService timer, OperationalLog operationalLog) {
        this.hostName = hostName;
        this.store = store;
        this.stored = stored;
        this.steps = steps;
        this.timer = timer;
        this.operationalLog = operationalLog;
        queues.forEach(queue -> cursors.add(new QueueCursor(queue)));
    }

    /**
     * Reads the first page of every queue and adds it, waiting for both (life-cycle thread, during activation).
     * Returns whether every queue is now completely loaded.
     */
    boolean loadHeads() {
        List<CompletableFuture<List<StoredEntry>>> heads = new ArrayList<>(cursors.size());
        for (QueueCursor cursor : cursors) {
            heads.add(stored.entries(cursor.queue.id(), 0, HEAD_PAGE));
        }
        for (int i = 0; i < cursors.size(); i++) {
            QueueCursor cursor = cursors.get(i);
            List<StoredEntry> page = heads.get(i).join();
            boolean last = page.size() < HEAD_PAGE;
            advance(cursor, page.isEmpty() ? -1 : page.get(page.size() - 1).messageId(), last);
            add(cursor, page, last);
        }
        CompletableFuture.allOf(cursors.stream().map(c -> c.lastAdd).toArray(CompletableFuture[]::new)).join();
        return unfinished.isEmpty();
    }

    /** Messages and entries loaded so far (life-cycle thread). */
    long entriesLoaded() {
        return entriesLoaded;
    }

    int queuesLoading() {
        return unfinished.size();
    }

    /** Loads the rest in the background, then {@linkplain #finish finishes} (life-cycle thread). */
    void loadRest() {
        next();
    }

    /** Completes with the number of recovered messages once finished; never if cancelled. */
    CompletableFuture<Long> done() {
        return done;
    }

    /** Stops every later step (life-cycle thread). */
    void cancel() {
        cancelled = true;
    }

    private void next() {
        if (cancelled) {
            return;
        }
        QueueCursor cursor = unfinished.poll();
        if (cursor == null) {
            finish(steps);
            return;
        }
        if (cursor.lastAdd.getNow(true) == Boolean.FALSE) {
            next(); // the queue was deleted: nothing more to load for it
            return;
        }
        if (pastWindow(cursor)) {
            guard(stored.summaries(cursor.queue.id(), cursor.afterMessageId, PAGE)
                    .handleAsync((page, failure) -> onSummaries(cursor, page, failure), steps));
        } else {
            guard(stored.entries(cursor.queue.id(), cursor.afterMessageId, PAGE)
                    .handleAsync((page, failure) -> onPage(cursor, page, failure), steps));
        }
    }

    /** Whether every further entry of the queue is beyond its window (so the rest is read as summaries). */
    private static boolean pastWindow(QueueCursor cursor) {
        int window = cursor.queue.heapWindow();
        return window > 0 && (cursor.beyond != null || cursor.inWindow >= window);
    }

    /** A failed read: the queue goes first in line again, tried after {@link #RETRY_MILLIS}. */
    private boolean failed(QueueCursor cursor, Throwable failure) {
        if (failure == null) {
            return false;
        }
        if (readFailures++ == 0) {
            LOG.warn("Virtual host '{}': loading the recovered entries of queue '{}' failed: {}; retrying every "
                    + "{} ms (further failures are not logged)", hostName, cursor.queue.name(),
                    BrokerException.from(failure).getMessage(), RETRY_MILLIS);
        }
        unfinished.addFirst(cursor);
        timer.schedule(() -> steps.execute(this::next), RETRY_MILLIS, TimeUnit.MILLISECONDS);
        return true;
    }

    private Void onPage(QueueCursor cursor, List<StoredEntry> page, Throwable failure) {
        if (cancelled || failed(cursor, failure)) {
            return null;
        }
        boolean last = page.size() < PAGE;
        advance(cursor, page.isEmpty() ? -1 : page.get(page.size() - 1).messageId(), last);
        if (last) {
            add(cursor, page, true); // before next(), which may finish: finishing waits for every queue's last add
            next();
        } else {
            next(); // the reader reads the next page while this thread turns this one into messages
            add(cursor, page, false);
        }
        return null;
    }

    /**
     * Summaries of entries beyond the window: their ids join the queue's {@link RecoveredBeyondWindow}; a message
     * another queue recovered as a message is pinned, as in {@link #add}.
     */
    private Void onSummaries(QueueCursor cursor, List<EntrySummary> page, Throwable failure) {
        if (cancelled || failed(cursor, failure)) {
            return null;
        }
        boolean last = page.size() < PAGE;
        advance(cursor, page.isEmpty() ? -1 : page.get(page.size() - 1).messageId(), last);
        for (EntrySummary entry : page) {
            ServerMessage message = recovered.get(entry.messageId());
            if (message != null) {
                message.addReference();
                RecoveredBeyondWindow beyond = beyond(cursor);
                beyond.add(message.id(), cursor.queue.levelOf(message.metadata()), message.metadata().contentSize());
                beyond.pin(message);
            } else if (entry.messageStored()) {
                beyond(cursor).add(entry.messageId(), cursor.queue.levelOf(entry.priority()), entry.contentSize());
            } else {
                missing(cursor, entry.messageId());
                continue;
            }
            entriesLoaded++;
        }
        // A queue with entries beyond its window ends its loading when those are handed over (finish).
        cursor.lastAdd = cursor.queue.addRecovered(List.of(), last && cursor.beyond == null);
        next();
        return null;
    }

    /** Moves the cursor past a page whose last id is {@code lastId} (-1: empty); more to load: back in line. */
    private void advance(QueueCursor cursor, long lastId, boolean last) {
        if (lastId != -1) {
            cursor.afterMessageId = lastId;
        }
        if (!last) {
            unfinished.addLast(cursor);
        }
    }

    /** Turns a page into messages (one object per id, see the class comment) and hands it to its queue. */
    private void add(QueueCursor cursor, List<StoredEntry> page, boolean last) {
        List<ServerMessage> messages = new ArrayList<>(page.size());
        int window = cursor.queue.heapWindow();
        for (StoredEntry entry : page) {
            boolean beyondWindow = window > 0 && (cursor.beyond != null || cursor.inWindow >= window);
            ServerMessage message = recovered.get(entry.messageId());
            if (message == null) {
                MessageMetadata metadata = metadata(entry);
                if (metadata == null) {
                    missing(cursor, entry.messageId());
                    continue;
                }
                if (beyondWindow) {
                    beyond(cursor).add(entry.messageId(), cursor.queue.levelOf(metadata), metadata.contentSize());
                    entriesLoaded++;
                    continue;
                }
                message = new ServerMessage(entry.messageId(), metadata, null, true);
                message.setReferences(1); // this loader's reference, released in finish
                recovered.put(entry.messageId(), message);
            }
            message.addReference();
            if (beyondWindow) {
                RecoveredBeyondWindow beyond = beyond(cursor);
                beyond.add(message.id(), cursor.queue.levelOf(message.metadata()), message.metadata().contentSize());
                beyond.pin(message);
                entriesLoaded++;
            } else {
                messages.add(message);
                cursor.inWindow++;
            }
        }
        entriesLoaded += messages.size();
        // A queue with entries beyond its window ends its loading when those are handed over (finish).
        cursor.lastAdd = cursor.queue.addRecovered(messages, last && cursor.beyond == null);
    }

    private void missing(QueueCursor cursor, long messageId) {
        if (missingMessages++ == 0) {
            LOG.warn("Virtual host '{}': ignoring the entry of message {} on queue '{}': the message is not in the "
                    + "store or unreadable (further such entries are counted)", hostName, messageId,
                    cursor.queue.name());
        }
    }

    private static RecoveredBeyondWindow beyond(QueueCursor cursor) {
        if (cursor.beyond == null) {
            cursor.beyond = new RecoveredBeyondWindow();
        }
        return cursor.beyond;
    }

    private MessageMetadata metadata(StoredEntry entry) {
        if (entry.metadata() == null) {
            return null;
        }
        MessageMetadata m;
        try {
            m = MetadataCodec.decode(entry.metadata());
        } catch (RuntimeException e) {
            return null;
        }
        return new MessageMetadata(intern(m.to()), intern(m.subject()), m.persistent(), m.priority(),
                m.expiresAtMillis(), m.arrivalMillis(), m.contentSize(), m.properties(), m.deliverAtMillis());
    }

    private String intern(String s) {
        return s == null ? null : interned.computeIfAbsent(s, k -> k);
    }

    /**
     * Once every page has been added: releases this loader's reference on every recovered message (removing those
     * that were consumed from every queue meanwhile), then removes the orphans, logs MST-1005 and MST-1006 and
     * completes {@link #done()}. Each step runs on {@code stepExecutor}.
     */
    void finish(Executor stepExecutor) {
        guard(CompletableFuture.allOf(cursors.stream().map(c -> c.lastAdd).toArray(CompletableFuture[]::new))
                .thenComposeAsync(added -> handBeyondWindows(stepExecutor), stepExecutor)
                .handleAsync((added, failure) -> releaseRecoveryReferences(stepExecutor), stepExecutor));
    }

    /**
     * Pins every id beyond a window whose message another queue holds too (reading the messages no queue created
     * yet), then hands each queue its entries beyond the window, which ends its loading.
     */
    private CompletableFuture<Void> handBeyondWindows(Executor stepExecutor) {
        if (cancelled || cursors.stream().allMatch(c -> c.beyond == null)) {
            return CompletableFuture.completedFuture(null);
        }
        List<Long> unread = new ArrayList<>();
        for (QueueCursor cursor : cursors) {
            RecoveredBeyondWindow beyond = cursor.beyond;
            for (int i = 0; beyond != null && i < beyond.size(); i++) {
                long id = beyond.id(i);
                if (!beyond.isPinned(id) && !recovered.containsKey(id) && heldBeyondAnotherWindow(cursor, id)) {
                    unread.add(id);
                }
            }
        }
        CompletableFuture<List<StoredEntry>> shared = unread.isEmpty()
                ? CompletableFuture.completedFuture(List.of())
                : store.readMessages(unread.stream().mapToLong(Long::longValue).distinct().toArray());
        return shared.thenComposeAsync(page -> {
            for (StoredEntry entry : page) {
                MessageMetadata metadata = metadata(entry);
                if (metadata != null) {
                    ServerMessage message = new ServerMessage(entry.messageId(), metadata, null, true);
                    message.setReferences(1); // this loader's reference, released in finish
                    recovered.put(entry.messageId(), message);
                }
            }
            List<CompletableFuture<Boolean>> handed = new ArrayList<>();
            for (QueueCursor cursor : cursors) {
                RecoveredBeyondWindow beyond = cursor.beyond;
                if (beyond == null) {
                    continue;
                }
                for (int i = 0; i < beyond.size(); i++) {
                    ServerMessage message = beyond.isPinned(beyond.id(i)) ? null : recovered.get(beyond.id(i));
                    if (message != null) {
                        message.addReference();
                        beyond.pin(message);
                    }
                }
                handed.add(cursor.queue.addRecoveredBeyondWindow(beyond));
            }
            return CompletableFuture.allOf(handed.toArray(CompletableFuture[]::new));
        }, stepExecutor);
    }

    private boolean heldBeyondAnotherWindow(QueueCursor self, long messageId) {
        for (QueueCursor other : cursors) {
            if (other != self && other.beyond != null && other.beyond.contains(messageId)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a stored message id is held by a queue (as a recovered message or beyond a window). */
    private boolean held(long messageId) {
        if (recovered.containsKey(messageId)) {
            return true;
        }
        for (QueueCursor cursor : cursors) {
            if (cursor.beyond != null && cursor.beyond.contains(messageId)) {
                return true;
            }
        }
        return false;
    }

    private Void releaseRecoveryReferences(Executor stepExecutor) {
        if (cancelled) {
            return null;
        }
        Removals removals = new Removals();
        for (ServerMessage message : recovered.values()) {
            if (message.dropReference() == 0) {
                removals.remove(message.id());
            }
        }
        long consumedWhileLoading = removals.count;
        removals.commit();
        sweepOrphans(0, consumedWhileLoading, 0, stepExecutor);
        return null;
    }

    private void sweepOrphans(long afterMessageId, long consumedWhileLoading, long orphans, Executor stepExecutor) {
        guard(stored.messageIds(afterMessageId, ORPHAN_PAGE).handleAsync((ids, failure) -> {
            if (cancelled) {
                return null;
            }
            if (failure != null) {
                LOG.warn("Virtual host '{}': reading stored message ids failed: {}; messages that no queue holds "
                        + "stay until the next recovery", hostName, BrokerException.from(failure).getMessage());
                complete(consumedWhileLoading, orphans);
                return null;
            }
            Removals removals = new Removals();
            for (long id : ids) {
                if (!held(id)) {
                    removals.remove(id);
                }
            }
            removals.commit();
            long orphansSoFar = orphans + removals.count;
            if (ids.length == ORPHAN_PAGE) {
                sweepOrphans(ids[ids.length - 1], consumedWhileLoading, orphansSoFar, stepExecutor);
            } else {
                complete(consumedWhileLoading, orphansSoFar);
            }
            return null;
        }, stepExecutor));
    }

    /** A step that failed unexpectedly ends the loading: logged (unless cancelled), {@link #done()} fails. */
    private void guard(CompletableFuture<?> step) {
        step.whenComplete((ok, failure) -> {
            if (failure != null && !cancelled && !done.isDone()) {
                LOG.error("Virtual host '{}': loading recovered queue entries stopped", hostName, failure);
                done.completeExceptionally(failure);
            }
        });
    }

    private void complete(long consumedWhileLoading, long orphans) {
        long messages = recovered.size();
        for (QueueCursor cursor : cursors) {
            messages += cursor.beyond == null ? 0 : cursor.beyond.size() - cursor.beyond.pinnedCount();
            cursor.beyond = null;
        }
        recovered.clear();
        LOG.info("Virtual host '{}': loaded {} queue entries of {} queues ({} messages; {} consumed from every queue "
                + "while loading, {} orphans removed, {} entries without a message ignored) in {} ms", hostName,
                entriesLoaded, cursors.size(), messages, consumedWhileLoading, orphans, missingMessages,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        operationalLog.log(LogCode.MST_1005, messages);
        operationalLog.log(LogCode.MST_1006);
        done.complete(messages);
    }

    /** Message removals in transactions of bounded size; committed without waiting (a removal needs no fsync). */
    private final class Removals {
        private StoreTransaction transaction;
        private int inTransaction;
        long count;

        void remove(long messageId) {
            if (transaction == null) {
                transaction = store.newTransaction();
            }
            transaction.removeMessage(messageId);
            count++;
            if (++inTransaction == REMOVALS_PER_TRANSACTION) {
                commit();
            }
        }

        void commit() {
            if (transaction != null) {
                transaction.commit(); // a failure leaves orphans for the next recovery
                transaction = null;
                inTransaction = 0;
            }
        }
    }
}
