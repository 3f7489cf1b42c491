package org.tandembroker.core.queue;

import java.util.ArrayDeque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.exec.SerialExecutor;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntry;
import org.tandembroker.core.txn.LocalTransaction;
import org.tandembroker.core.txn.TransactionParticipant;

/**
 * A FIFO queue with competing consumers and at-least-once delivery.
 *
 * <p><b>Threads.</b> Entries ({@link EntryList}), consumers and credit are owned by {@link #executor()}, a
 * {@link SerialExecutor}, so nothing on the delivery path takes a lock; methods that must run there assert it.
 * Only the depth ({@link QueueDepth}) is shared: publishers reserve room from their own threads.
 *
 * <p><b>Store.</b> A queue writes only removals (relaxed durability: a lost removal is a redelivery); adding an
 * entry is written by whoever published it, in the same store transaction as the message.
 *
 * <p><b>Delivery delay.</b> A message whose delivery time has not come waits in a {@link DeliverySchedule}, outside
 * the entries (no consumer or browser sees it), and counts in the depth from its publish. One timer per queue, on the
 * host's scheduler, hands the due messages back to the executor, which adds them as if just published. A recovered
 * message goes back on the schedule or, when due, straight to the entries.
 *
 * <p><b>Heap window (paging).</b> A durable queue that is not a last-value queue keeps at most
 * {@link QueueHost#queueWindow()} new entries on the heap. A message that arrives while the window is full stays in
 * the store only: {@link PagedEntries} keeps its id, in arrival order, and the queue reads the oldest back in
 * batches (on the store's reader thread, handed back to the executor) as soon as its consumers have made room for
 * a batch, so the next batch is on its way before the window runs dry. Depth and byte counts include paged
 * messages. Consumers, selectors, browsers, message groups and expiry see the window: a paged message expires, and
 * a browser or a selector sees it, once it is read back; a consumer with credit that finds nothing in the window
 * makes the queue read on past it. See docs/architecture.md ("Deep queues").
 *
 * <p><b>Recovery.</b> A recovered durable queue serves while its stored entries are still being loaded
 * ({@link #addRecovered}). Messages published meanwhile wait behind the last recovered entry, so everything that
 * was on the queue before a failover is delivered first; dead-lettering onto a loading queue waits for it
 * ({@link #recoveryLoaded()}), or the loading could read the moved entry again.
 */
public final class BrokerQueue {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerQueue.class);
    /** Messages read back from the store in one batch, at most (a quarter of the window when that is smaller). */
    static final int MAX_PAGE_BATCH = 2048;
    /** Wait before reading paged messages again after a failed read. */
    private static final long PAGE_RETRY_MILLIS = 1000;

    private final UUID id;
    private final QueueConfig config;
    private final boolean autoDelete;
    private final SerialExecutor executor;
    private final QueueHost host;
    private final QueueDepth depth;
    private final EntryRemoval removal;
    private final AtomicLong unrecordedRemovals = new AtomicLong();
    private final LongAdder browsed = new LongAdder();
    private final LongAdder lastValueReplacements = new LongAdder();
    /** What a subscription queue takes from its exchange (its subscriber's selector, no-local); set by subscribers. */
    private volatile MessageFilter admission = MessageFilter.ALL;

    // Owned by executor.
    private final EntryList entries;
    private final Dispatcher dispatcher;
    /** New entries kept on the heap before messages stay in the store only; 0: no limit. */
    private final int window;
    /** Messages beyond the window; null when the queue keeps everything on the heap. */
    private final PagedEntries paged;
    private final int pageBatch;
    private long pageReadFailures;
    /** Failed content reads for delivery other than a missing message (retried), for the log's rate limit. */
    private long contentReadFailures;
    private long pagedMissing;
    private final DeliverySchedule schedule = new DeliverySchedule();
    private boolean deleted;
    /**
     * Shut down without removing from the store (the host passivated): from then on this queue writes nothing to
     * the store, whose contents belong to the next activation's recovery. Late work on this queue (a publish or an
     * acknowledgement whose commit completes after the passivation) would otherwise remove records that a quick
     * re-activation has just loaded (reliability finding 4).
     */
    private volatile boolean storeReleased;
    /** Recovered entries are still being loaded: new messages wait in {@link #heldWhileLoading}. */
    private boolean loading;
    private final ArrayDeque<ServerMessage> heldWhileLoading = new ArrayDeque<>();
    /** Completes when loading ends (or the queue shuts down); complete for a queue that never loads. */
    private volatile CompletableFuture<Void> recoveryLoaded = CompletableFuture.completedFuture(null);

    public BrokerQueue(UUID id, QueueConfig config, boolean autoDelete, SerialExecutor executor, QueueHost host) {
        this.id = id;
        this.config = config;
        this.autoDelete = autoDelete;
        this.executor = executor;
        this.host = host;
        this.depth = new QueueDepth(config.maxDepthMessages(), config.maxDepthBytes());
        this.removal = new EntryRemoval(id, config.durable(), this::storeTransaction);
        this.entries = new EntryList(config.messageTtlMillis(), config.options());
        this.dispatcher = new Dispatcher(this, entries, host, executor);
        this.window = host != null && config.durable() && !config.options().isLastValue()
                ? Math.max(0, host.queueWindow()) : 0;
        this.paged = window > 0 ? new PagedEntries() : null;
        this.pageBatch = Math.max(1, Math.min(MAX_PAGE_BATCH, window / 4));
    }

    public UUID id() {
        return id;
    }

    public String name() {
        return config.name();
    }

    public QueueConfig config() {
        return config;
    }

    public boolean isDurable() {
        return config.durable();
    }

    public boolean isAutoDelete() {
        return autoDelete;
    }

    public SerialExecutor executor() {
        return executor;
    }

    /** Messages on the queue, including those delivered and not yet settled and publishes being stored. */
    public long depthMessages() {
        return depth.messages();
    }

    public long depthBytes() {
        return depth.bytes();
    }

    public long enqueuedTotal() {
        return depth.enqueuedTotal();
    }

    public long dequeuedTotal() {
        return depth.dequeuedTotal();
    }

    /** Content bytes of the messages enqueued (since the queue was created or recovered on this node). */
    public long enqueuedBytes() {
        return depth.enqueuedBytes();
    }

    /** Content bytes of the messages removed. */
    public long dequeuedBytes() {
        return depth.dequeuedBytes();
    }

    /** Copies delivered to browsers (since the queue was created or recovered on this node). */
    public long browsedTotal() {
        return browsed.sum();
    }

    void countBrowsed() {
        browsed.increment();
    }

    /**
     * Messages a newer one with the same last-value key replaced before delivery (since the queue was created or
     * recovered on this node; a recovery that finds both, a replacement's removal lost in a crash, counts again).
     */
    public long lastValueReplacementsTotal() {
        return lastValueReplacements.sum();
    }

    /** Messages waiting for their delivery time (any thread; approximate); they count in the depth too. */
    public int delayedCount() {
        return schedule.size();
    }

    /**
     * Messages beyond the heap window, kept in the store only (or pinned on the heap, see {@link PagedEntries}), not
     * counting a batch being read back (any thread; approximate); they count in the depth too.
     */
    public long pagedCount() {
        return paged == null ? 0 : paged.size();
    }

    /** The heap window of this queue in new entries; 0 when it keeps every entry on the heap. */
    public int heapWindow() {
        return window;
    }

    /** Message groups assigned to a consumer now (any thread; approximate). */
    public int activeGroupCount() {
        return dispatcher.activeGroups();
    }

    /** Number of attached consumers (read from any thread; approximate). */
    public int consumerCount() {
        return dispatcher.count();
    }

    // ---- publishing (any thread) ----

    /**
     * Restricts what an exchange routes to this queue (a topic subscription's queue takes only what its subscriber
     * selects; the rest is never enqueued). Any thread.
     */
    public void admitOnly(MessageFilter filter) {
        admission = filter;
    }

    /** Whether an exchange should route a message with {@code metadata}, published on that connection, here. */
    public boolean admits(MessageMetadata metadata, String publisherConnection) {
        MessageFilter filter = admission;
        return filter.isAll() || filter.accepts(metadata, publisherConnection, 0);
    }

    /**
     * Reserves room for one message of {@code bytes}, or fails with RESOURCE_LIMIT_EXCEEDED when the queue is
     * full. Every successful reservation ends in {@link #enqueue} or {@link #cancelReservation}.
     */
    public void reserve(int bytes) {
        String full = depth.tryReserve(bytes);
        if (full != null) {
            host.operationalLog().log(LogCode.VHT_1008, name(), full);
            throw new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED, "queue '" + name() + "' is full: it " + full
                    + "; publishes are refused until consumers drain it");
        }
    }

    public void cancelReservation(int bytes) {
        depth.cancel(bytes);
    }

    /**
     * Adds a message whose room was reserved (and which is stored, if it had to be). While recovered entries are
     * loading, the message waits behind them. It counts as enqueued at once, as its reservation already counts in
     * the depth: once a publish completes, the in-counters include it.
     */
    public void enqueue(ServerMessage message) {
        depth.enqueued(message.metadata().contentSize());
        // Called where a commit completed (a store thread) or a message needed no commit: when the queue is idle,
        // that thread places and dispatches the message itself instead of waking a queue worker for it.
        executor.executeHereIfIdle(() -> {
            if (deleted) {
                cancelReservation(message.metadata().contentSize());
                removal.removeWithoutEntries(List.of(message));
                return;
            }
            if (loading) {
                heldWhileLoading.addLast(message);
                return;
            }
            place(message);
            dispatch();
        });
    }

    /** Adds a message to the entries, or to the schedule while its delivery time has not come (executor). */
    private void place(ServerMessage message) {
        if (message.metadata().deliverAtMillis() != 0 && message.metadata().isDelayed(host.nowMillis())) {
            schedule.add(message);
            armTimer();
        } else {
            append(message);
        }
    }

    /** Sets the queue's timer for the earliest delivery time when no timer set already comes first (executor). */
    private void armTimer() {
        long at = schedule.timerNeeded();
        if (at != 0) {
            host.schedule(() -> executor.execute(() -> releaseDue(at)), at - host.nowMillis());
        }
    }

    /** The timer set for {@code timerAt} fired: the messages due join the entries (executor). */
    private void releaseDue(long timerAt) {
        schedule.timerFired(timerAt);
        if (deleted) {
            return;
        }
        List<ServerMessage> due = schedule.takeDue(host.nowMillis());
        for (ServerMessage message : due) {
            append(message);
        }
        armTimer();
        if (!due.isEmpty()) {
            dispatch();
        }
    }

    // ---- recovery (see the class comment) ----

    /**
     * Marks this queue as one whose stored entries will be added with {@link #addRecovered} until its last page.
     * Only by the activation thread, before the queue is visible to any other thread (the executor's first task
     * sees the change).
     */
    public void expectRecoveredEntries() {
        loading = true;
        recoveryLoaded = new CompletableFuture<>();
    }

    /**
     * Completes once every recovered entry has been added (or the queue shut down); at once for a queue that did
     * not expect any. Completes on this queue's executor.
     */
    public CompletableFuture<Void> recoveryLoaded() {
        return recoveryLoaded;
    }

    /**
     * Adds the next page of recovered entries, in enqueue order, behind those already added; {@code last} ends
     * the loading and lets the messages held meanwhile follow. Each message must already count a reference for
     * this queue's entry. While loading, the depth counts loaded entries and new publishes only (it lags, never
     * goes negative). Completes on the executor with false when the queue had shut down (the page's references
     * are then dropped, and nothing is added).
     */
    public CompletableFuture<Boolean> addRecovered(List<ServerMessage> page, boolean last) {
        CompletableFuture<Boolean> added = new CompletableFuture<>();
        executor.execute(() -> {
            if (deleted || !loading) {
                // The loader keeps its own reference on each recovered message until every queue has loaded, so
                // this never drops the last one: the store records stay for the loader to settle.
                page.forEach(ServerMessage::dropReference);
                added.complete(false);
                return;
            }
            for (ServerMessage message : page) {
                int size = message.metadata().contentSize();
                depth.reserveUnchecked(size);
                depth.enqueued(size);
                place(message);
            }
            if (last) {
                endLoading();
            }
            dispatch();
            added.complete(true);
        });
        return added;
    }

    /**
     * Ends the loading of a queue deeper than its heap window: {@code beyond} are its recovered entries after the
     * pages added so far, kept in the store only (see {@link PagedEntries}); the messages held meanwhile follow.
     * Completes on the executor with false when the queue had shut down (the pinned messages' references are then
     * dropped, and nothing is added).
     */
    public CompletableFuture<Boolean> addRecoveredBeyondWindow(RecoveredBeyondWindow beyond) {
        CompletableFuture<Boolean> added = new CompletableFuture<>();
        executor.execute(() -> {
            if (deleted || !loading || paged == null) {
                beyond.dropPinned();
                added.complete(false);
                return;
            }
            depth.recoveredInBulk(beyond.size(), beyond.bytes());
            paged.addRecovered(beyond);
            endLoading();
            dispatch();
            added.complete(true);
        });
        return added;
    }

    private void endLoading() {
        loading = false;
        for (ServerMessage held : heldWhileLoading) {
            place(held);
        }
        heldWhileLoading.clear();
        recoveryLoaded.complete(null);
    }

    /** The priority level a message with {@code metadata} is queued at here (0 without priority order). */
    public int levelOf(MessageMetadata metadata) {
        return levelOf(metadata.priority());
    }

    /** The level a message of {@code priority} takes on this queue. */
    public int levelOf(int priority) {
        return config.options().priority() ? Math.max(0, Math.min(EntryList.LEVELS - 1, priority)) : 0;
    }

    /** Whether recovered entries are still being loaded (read from any thread; approximate). */
    public boolean isLoadingRecoveredEntries() {
        return !recoveryLoaded.isDone();
    }

    // ---- consumers (executor) ----

    /** Attaches a consumer that takes every message; completes on the queue's executor. */
    public CompletableFuture<Subscription> subscribe(ConsumerTarget target, boolean preSettled) {
        return subscribe(target, preSettled, MessageFilter.ALL);
    }

    /**
     * Attaches a consumer that takes only the messages {@code filter} accepts (the others stay for other consumers);
     * completes on the queue's executor.
     */
    public CompletableFuture<Subscription> subscribe(ConsumerTarget target, boolean preSettled, MessageFilter filter) {
        return subscribe(target, preSettled, filter, false);
    }

    /**
     * Attaches a consumer, or with {@code browsing} a browser, which is delivered copies of the entries its filter
     * accepts, in queue order, without taking them; completes on the queue's executor.
     */
    public CompletableFuture<Subscription> subscribe(ConsumerTarget target, boolean preSettled, MessageFilter filter,
                                                     boolean browsing) {
        CompletableFuture<Subscription> result = new CompletableFuture<>();
        executor.execute(() -> {
            if (deleted) {
                result.completeExceptionally(new BrokerException(ErrorKind.NOT_FOUND,
                        "queue '" + name() + "' was deleted"));
                return;
            }
            QueueConsumer consumer = new QueueConsumer(this, target, preSettled, filter, browsing);
            dispatcher.add(consumer);
            result.complete(consumer);
        });
        return result;
    }

    void removeConsumer(QueueConsumer consumer) {
        assert executor.inExecutor() : executor;
        if (consumer.closed) {
            return;
        }
        boolean wasLast = dispatcher.remove(consumer);
        if (autoDelete && wasLast) {
            host.autoDelete(this);
        } else {
            dispatch();
        }
    }

    void dispatch() {
        assert executor.inExecutor() : executor;
        if (!deleted) {
            dispatcher.dispatch();
            readBackPaged();
        }
    }

    // ---- the heap window (executor) ----

    /**
     * Reads the next batch of paged messages back once the window has room for it, or when a consumer with credit
     * found nothing in the window (a selector, a browser, groups owned by others: the window then grows, batch by
     * batch, as it would hold everything without a window). One read at a time.
     */
    private void readBackPaged() {
        if (paged == null || paged.size() == 0 || paged.isReading()
                || (entries.newEntries() + pageBatch > window && !dispatcher.consumerFoundNothing())) {
            return;
        }
        long[] batch = paged.take(pageBatch);
        CompletableFuture<List<StoredEntry>> read;
        try {
            read = host.readMessages(id, batch);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((page, failure) -> executor.execute(() -> readBack(batch, page, failure)));
    }

    /** A batch was read: its messages join the window, behind it, in the order they arrived (executor). */
    private void readBack(long[] batch, List<StoredEntry> page, Throwable failure) {
        if (deleted) {
            return; // the store keeps them (or shutdown removed them)
        }
        if (failure != null) {
            paged.batchFailed();
            if (pageReadFailures++ == 0) {
                LOG.warn("Queue '{}': reading {} messages back from the store failed: {}; retrying every {} ms "
                        + "(further failures are counted)", name(), batch.length,
                        BrokerException.from(failure).getMessage(), PAGE_RETRY_MILLIS);
            }
            host.schedule(() -> executor.execute(this::dispatch), PAGE_RETRY_MILLIS);
            return;
        }
        for (int i = 0; i < batch.length; i++) {
            ServerMessage message = paged.unpin(batch[i]);
            if (message == null) {
                message = storedMessage(page.get(i));
                if (message == null) {
                    continue;
                }
                message.setReferences(1);
            }
            if (message.metadata().deliverAtMillis() != 0 && message.metadata().isDelayed(host.nowMillis())) {
                schedule.add(message); // recovered before its delivery time: it waits like any delayed message
                armTimer();
            } else {
                appendToWindow(message);
            }
        }
        paged.batchDone();
        dispatch();
    }

    /** A message read back, or null (counted as removed) when the store no longer holds it or it is unreadable. */
    private ServerMessage storedMessage(StoredEntry stored) {
        MessageMetadata metadata = null;
        if (stored.metadata() != null) {
            try {
                metadata = MetadataCodec.decode(stored.metadata());
            } catch (RuntimeException e) {
                metadata = null;
            }
        }
        if (metadata == null) {
            depth.removed(stored.contentSize());
            if (pagedMissing++ == 0) {
                LOG.warn("Queue '{}': message {} kept in the store beyond the heap window is missing or unreadable; "
                        + "it is dropped from the queue (further such messages are counted)", name(),
                        stored.messageId());
            }
            return null;
        }
        ContentBudget budget = host.contentBudget();
        byte[] content = budget == null ? null : stored.content();
        ServerMessage message = new ServerMessage(stored.messageId(), metadata, content, true);
        if (content != null) {
            message.retainWithin(budget); // or read again on delivery, like a published body over the budget
        }
        return message;
    }

    // ---- settlement (executor) ----

    void accepted(QueueEntry entry, QueueConsumer consumer, CompletableFuture<Void> done) {
        assert executor.inExecutor() : executor;
        if (entry.state != QueueEntry.State.ACQUIRED || entry.owner != consumer || deleted) {
            // After shutdown (passivation, broker stop) the store record stays: a redelivery after restart.
            done.complete(null);
            return;
        }
        consumer.unsettled.remove(entry);
        removeEntry(entry).whenComplete((ok, failure) -> {
            if (failure != null && unrecordedRemovals.getAndIncrement() == 0) {
                LOG.warn("Removing accepted message {} from the store of queue '{}' failed: {}; it may be "
                        + "redelivered after a restart (further failures are counted and reported once)",
                        entry.message.id(), name(), failure.toString());
            }
            done.complete(null);
        });
        dispatch();
    }

    void returnEntry(QueueEntry entry, QueueConsumer consumer, boolean deliveryFailed, boolean refuseConsumer) {
        assert executor.inExecutor() : executor;
        if (entry.state != QueueEntry.State.ACQUIRED || entry.owner != consumer) {
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("Queue '{}': message {} back from consumer {} (delivery failed: {})", name(),
                    entry.message.id(), consumer.target, deliveryFailed);
        }
        consumer.unsettled.remove(entry);
        entry.owner = null;
        entry.state = QueueEntry.State.AVAILABLE;
        if (refuseConsumer) {
            entry.refuse(consumer);
        }
        if (deliveryFailed) {
            entry.deliveryCount++;
            int max = config.maxDeliveries();
            if (max > 0 && entry.deliveryCount >= max) {
                deadLetter(entry, "delivered " + entry.deliveryCount + " times (maxDeliveries " + max + ")");
                return;
            }
        }
        putBack(entry);
        if (!deleted) {
            // Behind tasks already queued: a client that returns a message and then detaches (Qpid JMS closing)
            // must not have it handed straight back to the departing link and counted as failed twice.
            executor.execute(this::dispatch);
        }
    }

    /**
     * An acquired entry's content could not be read for its delivery (executor); no transfer was sent, so the
     * consumer's credit is given back. A message the store does not hold can never be delivered: the entry leaves
     * the queue with its record, once, logged as {@code VHT-1012}, instead of staying at the head retried without
     * end. Any other failure (the store not active or failing now) returns the entry after a pause; the first is
     * logged with its cause, later ones only counted, so a failing store cannot flood the log.
     */
    void contentUnreadable(QueueEntry entry, QueueConsumer consumer, Throwable failure) {
        assert executor.inExecutor() : executor;
        if (entry.state != QueueEntry.State.ACQUIRED || entry.owner != consumer) {
            return;
        }
        consumer.credit++;
        BrokerException error = BrokerException.from(failure);
        if (error.kind() == ErrorKind.NOT_FOUND) {
            consumer.unsettled.remove(entry);
            entry.owner = null;
            host.operationalLog().log(LogCode.VHT_1012, name(), entry.message.id(), error.getMessage());
            removeEntry(entry);
            executor.execute(this::dispatch);
            return;
        }
        if (contentReadFailures++ == 0) {
            LOG.error("Queue '{}': could not read message {} from the store; it stays on the queue and is retried "
                    + "every {} ms (further failures of this queue are logged at debug level)", name(),
                    entry.message.id(), PAGE_RETRY_MILLIS, failure);
        } else {
            LOG.debug("Queue '{}': could not read message {} from the store ({} failures): {}", name(),
                    entry.message.id(), contentReadFailures, error.getMessage());
        }
        host.schedule(() -> executor.execute(() -> returnEntry(entry, consumer, false, false)), PAGE_RETRY_MILLIS);
    }

    /** A consumer's explicit modified outcome. */
    void modified(QueueEntry entry, QueueConsumer consumer, boolean deliveryFailed, boolean refuseConsumer) {
        assert executor.inExecutor() : executor;
        if (deliveryFailed && entry.state == QueueEntry.State.ACQUIRED && entry.owner == consumer) {
            entry.explicitlyFailedBy = consumer;
        }
        returnEntry(entry, consumer, deliveryFailed, refuseConsumer);
    }

    void rejected(QueueEntry entry, QueueConsumer consumer) {
        assert executor.inExecutor() : executor;
        if (entry.state != QueueEntry.State.ACQUIRED || entry.owner != consumer) {
            return;
        }
        consumer.unsettled.remove(entry);
        deadLetter(entry, "rejected by consumer");
        dispatch();
    }

    /**
     * Records a transactional acknowledgement. It joins the transaction at once, on the caller's (connection)
     * thread, so that a commit the client sends next includes it; the entry's own change of state runs here on
     * the executor, and the commit waits for it ({@link TransactionParticipant#ready()}).
     */
    CompletableFuture<Void> acceptInTransaction(QueueEntry entry, QueueConsumer consumer, LocalTransaction transaction) {
        TransactionalAcknowledgement acknowledgement = new TransactionalAcknowledgement(this, removal, entry);
        try {
            transaction.enlist(acknowledgement);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        executor.execute(() -> {
            boolean held = entry.state == QueueEntry.State.ACQUIRED && entry.owner == consumer;
            if (held) {
                consumer.unsettled.remove(entry);
                entry.state = QueueEntry.State.IN_TRANSACTION;
            }
            acknowledgement.enlisted.complete(held);
        });
        return acknowledgement.enlisted.thenApply(held -> null);
    }

    /**
     * A transactional acknowledgement committed. When that dropped the message's last reference, its removal
     * follows in a transaction of its own (lost in a crash, it leaves an orphan that the next recovery removes).
     */
    void removeAcknowledged(QueueEntry entry) {
        assert executor.inExecutor() : executor;
        entry.state = QueueEntry.State.REMOVED;
        ServerMessage message = entry.message;
        boolean last = message.dropReference() == 0;
        if (last && message.isStored()) {
            removal.removeMessageRecord(message);
        }
        forgetEntry(entry, last);
    }

    /** A transactional acknowledgement rolled back: the entry is available again, one more delivery counted. */
    void returnUnacknowledged(QueueEntry entry) {
        assert executor.inExecutor() : executor;
        if (entry.state != QueueEntry.State.IN_TRANSACTION) {
            return;
        }
        entry.state = QueueEntry.State.AVAILABLE;
        entry.owner = null;
        entry.deliveryCount++;
        putBack(entry);
        dispatch();
    }

    // ---- last-value replacement (executor) ----

    /**
     * Adds a new entry, or keeps the message in the store only when the window is full (see the class comment); on
     * a last-value queue, the queued entry with the same key goes.
     */
    private void append(ServerMessage message) {
        if (paged != null) {
            int level = entries.levelOf(message);
            boolean pageOut = paged.isEmpty()
                    ? entries.newEntries() >= window && level <= entries.lowestLevel()
                    : level <= paged.maxLevel();
            if (pageOut) {
                // Unshared and stored: the store gives it back by id. Otherwise its object stays (pinned).
                boolean storeOnly = message.isStored() && message.references() == 1;
                paged.add(message, level, !storeOnly);
                if (storeOnly) {
                    message.releaseContent();
                }
                return;
            }
        }
        appendToWindow(message);
    }

    private void appendToWindow(ServerMessage message) {
        QueueEntry entry = entries.add(message, 0);
        QueueEntry replaced = entry.replaced;
        if (replaced != null) {
            entry.replaced = null;
            removeReplaced(replaced);
        }
    }

    /** An entry is available again; on a last-value queue, the older of it and a queued one with its key goes. */
    private void putBack(QueueEntry entry) {
        QueueEntry replaced = dispatcher.putBack(entry);
        if (replaced != null) {
            removeReplaced(replaced);
        }
    }

    /** Removes an entry a newer one replaced, from the store as if it had been consumed (executor). */
    void removeReplaced(QueueEntry replaced) {
        if (deleted) {
            return; // shut down (an entry returned by a departing consumer): the store keeps it, recovery replaces it
        }
        lastValueReplacements.increment();
        if (LOG.isDebugEnabled()) {
            LOG.debug("Queue '{}': message {} replaced by a newer one with the same last-value key", name(),
                    replaced.message.id());
        }
        removeEntry(replaced).whenComplete((ok, failure) -> {
            if (failure != null && unrecordedRemovals.getAndIncrement() == 0) {
                LOG.warn("Removing replaced message {} from the store of queue '{}' failed: {}; it may come back "
                        + "after a restart and be replaced again (further failures are counted and reported once)",
                        replaced.message.id(), name(), failure.toString());
            }
        });
    }

    // ---- removal (executor) ----

    /**
     * Whether this queue shut down leaving the store to the next activation (a passivation, a stop). A publisher
     * asks after handing a committed message over: while false, the message was enqueued ahead of any shutdown (it
     * was on this queue when the activation ended, and the next recovery, which starts after the commit, loads it);
     * once true, the message may have reached only the shut-down queue, so it is in the store but perhaps not on
     * the next activation's queue until a later recovery, and the publisher must not report it delivered.
     */
    public boolean leftStoreToNextActivation() {
        return storeReleased;
    }

    /**
     * A store transaction for this queue's writes; once the queue let go of the store ({@link #storeReleased}), one
     * that writes nothing.
     */
    private StoreTransaction storeTransaction() {
        return storeReleased ? NothingStored.INSTANCE : host.newStoreTransaction();
    }

    /** Removes an entry now: in memory at once, in the store without waiting for durability. */
    CompletableFuture<Void> removeEntry(QueueEntry entry) {
        assert executor.inExecutor() : executor;
        entry.state = QueueEntry.State.REMOVED;
        StoreTransaction storeTransaction = storeTransaction();
        boolean last = removal.append(storeTransaction, entry.message);
        forgetEntry(entry, last);
        return storeTransaction.isEmpty() ? CompletableFuture.completedFuture(null) : storeTransaction.commit();
    }

    private void forgetEntry(QueueEntry entry, boolean lastReference) {
        depth.removed(entry.message.metadata().contentSize());
        entries.forget(entry);
        if (lastReference) {
            entry.message.releaseContent();
        }
    }

    void expire(QueueEntry entry) {
        LOG.debug("Message {} expired on queue '{}'", entry.message.id(), name());
        removeEntry(entry);
    }

    /** Drops expired entries that no consumer has reached (runs on the executor). */
    public void expireEntries() {
        executor.execute(() -> {
            if (!deleted) {
                long now = host.nowMillis();
                entries.takeExpired(now).forEach(this::expire);
                dispatcher.takeExpiredWaiting(now).forEach(this::expire);
                readBackPaged();
            }
        });
    }

    private void deadLetter(QueueEntry entry, String reason) {
        String dlqName = config.deadLetterQueue();
        entry.state = QueueEntry.State.LEAVING;
        if (dlqName == null || dlqName.equals(name())) {
            host.operationalLog().log(LogCode.VHT_1007, name(), entry.message.id(), reason, "(discarded: no dead-letter queue)");
            removeEntry(entry);
            return;
        }
        // A dead-letter queue still loading recovered entries could read the moved message's new entry again.
        host.deadLetterQueue(dlqName).thenCompose(dlq -> dlq.recoveryLoaded().thenApply(loaded -> dlq))
                .whenComplete((dlq, failure) -> executor.execute(() -> {
            if (deleted) {
                return; // shut down meanwhile: the entry stays in the store
            }
            if (failure != null) {
                LOG.error("Dead-letter queue '{}' unavailable for message {} of '{}': {}; the message stays",
                        dlqName, entry.message.id(), name(), failure.toString());
                entry.state = QueueEntry.State.AVAILABLE;
                putBack(entry);
                return;
            }
            moveTo(dlq, entry, reason);
        }));
    }

    private void moveTo(BrokerQueue dlq, QueueEntry entry, String reason) {
        ServerMessage message = entry.message;
        StoreTransaction storeTransaction = storeTransaction();
        message.addReference();
        if (message.isStored() && dlq.isDurable()) {
            storeTransaction.enqueue(dlq.id(), message.id());
        }
        removal.append(storeTransaction, message);
        dlq.depth.reserveUnchecked(message.metadata().contentSize());
        CompletableFuture<Void> durable = storeTransaction.isEmpty()
                ? CompletableFuture.completedFuture(null) : storeTransaction.commit();
        durable.whenComplete((ok, failure) -> executor.execute(() -> {
            if (failure != null) {
                LOG.error("Moving message {} from '{}' to dead-letter queue '{}' failed: {}; it stays",
                        message.id(), name(), dlq.name(), failure.toString());
                dlq.cancelReservation(message.metadata().contentSize());
                entry.state = QueueEntry.State.AVAILABLE;
                putBack(entry);
                return;
            }
            entry.state = QueueEntry.State.REMOVED;
            forgetEntry(entry, false);
            dlq.enqueue(message);
            host.operationalLog().log(LogCode.VHT_1007, name(), message.id(), reason, dlq.name());
        }));
    }

    // ---- life cycle ----

    /**
     * The queue leaves memory (virtual host passivating or stopping, or the queue deleted). Consumers are told;
     * the store is not touched unless {@code removeFromStore}. Ends a recovery's loading: pages that arrive later
     * only drop their references.
     */
    public CompletableFuture<Void> shutdown(String reason, boolean removeFromStore) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!removeFromStore) {
            // Before the shutdown task is queued: a publisher that enqueues and then finds this still false had its
            // message enqueued ahead of the shutdown (see leftStoreToNextActivation).
            storeReleased = true;
        }
        executor.execute(() -> {
            deleted = true;
            long unrecorded = unrecordedRemovals.getAndSet(0);
            if (unrecorded > 1) {
                LOG.warn("Queue '{}': {} accepted messages could not be removed from the store; they may be "
                        + "redelivered after a restart", name(), unrecorded);
            }
            List<QueueEntry> waitingGroupMessages = dispatcher.waitingEntries();
            dispatcher.closeAll(reason);
            if (removeFromStore) {
                List<ServerMessage> all = entries.messages();
                all.addAll(heldWhileLoading);
                all.addAll(schedule.messages());
                waitingGroupMessages.forEach(e -> all.add(e.message));
                if (paged != null) {
                    PagedEntries.Removed beyondWindow = paged.clear();
                    all.addAll(beyondWindow.pinned());
                    removal.removeStoredOnly(beyondWindow.storedOnly());
                }
                removal.removeWithoutEntries(all);
            } else if (paged != null) {
                paged.clear();
            }
            entries.clear();
            schedule.clear();
            heldWhileLoading.clear();
            loading = false;
            recoveryLoaded.complete(null);
            done.complete(null);
        });
        return done;
    }

    @Override
    public String toString() {
        return "queue '" + name() + "'";
    }
}
