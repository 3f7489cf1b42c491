package org.tandembroker.core.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.exec.SerialExecutor;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.txn.LocalTransaction;
import org.tandembroker.core.txn.TransactionParticipant;

/**
 * A FIFO queue with competing consumers and at-least-once delivery.
 *
 * <p><b>Threads.</b> Entries, consumers and credit are owned by {@link #executor()}, a {@link SerialExecutor}:
 * every change runs there, so nothing on the delivery path takes a lock. The depth counters are atomics because
 * publishers reserve space from their own threads before the message is stored (so a full queue refuses the
 * publish instead of growing).
 *
 * <p><b>Order.</b> New entries are delivered in arrival order; an entry that comes back (released, or its
 * consumer went away) goes back to its original place, ahead of newer entries.
 *
 * <p><b>Store.</b> A queue writes only removals (relaxed durability); adding an entry is written by whoever
 * published it, in the same store transaction as the message.
 *
 * <p><b>Recovery.</b> A durable queue recovered by a new master {@linkplain #expectRecoveredEntries() expects} its
 * stored entries, which its virtual host loads in pages, oldest first, while the queue already serves
 * ({@link #addRecovered}, on the executor like everything else). Consumers take what is loaded; a message
 * published meanwhile is held back and joins the queue behind the last recovered entry, so that every message
 * that was on the queue before the failover is delivered before any published after it. While loading:
 * <ul>
 *   <li>depth figures count the loaded entries and new publishes only (they lag, never go negative), and the depth
 *       limits are checked against them;</li>
 *   <li>dead-lettering onto this queue waits until it has loaded ({@link #recoveryLoaded()}): otherwise the moved
 *       message's new store entry could be read again by the loading;</li>
 *   <li>a recovered message is shared by every queue that holds it, and its removal from the store is decided
 *       by its reference count: the virtual host keeps one extra reference on every recovered message until all
 *       queues have loaded, so that consuming it from one queue never removes it while another queue's entry is
 *       still unloaded.</li>
 * </ul>
 * {@link #shutdown} ends the loading: pages that arrive later only drop their references.
 */
public final class BrokerQueue {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerQueue.class);

    private final UUID id;
    private final QueueConfig config;
    private final boolean autoDelete;
    private final SerialExecutor executor;
    private final QueueHost host;
    private final AtomicLong depthMessages = new AtomicLong();
    private final AtomicLong depthBytes = new AtomicLong();
    private final AtomicLong enqueuedTotal = new AtomicLong();
    private final AtomicLong dequeuedTotal = new AtomicLong();
    private final AtomicLong enqueuedBytes = new AtomicLong();
    private final AtomicLong dequeuedBytes = new AtomicLong();
    private final AtomicLong unrecordedRemovals = new AtomicLong();

    // Owned by executor.
    private final ArrayDeque<QueueEntry> fresh = new ArrayDeque<>();
    private final TreeMap<Long, QueueEntry> returned = new TreeMap<>();
    private final List<QueueConsumer> consumers = new ArrayList<>();
    private int nextConsumer;
    private long nextSequence;
    private int entriesWithExpiry;
    private boolean deleted;
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
        return depthMessages.get();
    }

    public long depthBytes() {
        return depthBytes.get();
    }

    public long enqueuedTotal() {
        return enqueuedTotal.get();
    }

    public long dequeuedTotal() {
        return dequeuedTotal.get();
    }

    /** Content bytes of the messages enqueued (since the queue was created or recovered on this node). */
    public long enqueuedBytes() {
        return enqueuedBytes.get();
    }

    /** Content bytes of the messages removed. */
    public long dequeuedBytes() {
        return dequeuedBytes.get();
    }

    // ---- publishing (any thread) ----

    /**
     * Reserves room for one message of {@code bytes}, or fails with RESOURCE_LIMIT_EXCEEDED when the queue is
     * full. Every successful reservation ends in {@link #enqueue} or {@link #cancelReservation}.
     */
    public void reserve(int bytes) {
        long maxMessages = config.maxDepthMessages();
        while (true) {
            long current = depthMessages.get();
            if (maxMessages > 0 && current >= maxMessages) {
                throw full("holds " + current + " messages (maxDepthMessages " + maxMessages + ")");
            }
            if (depthMessages.compareAndSet(current, current + 1)) {
                break;
            }
        }
        long maxBytes = config.maxDepthBytes();
        long newBytes = depthBytes.addAndGet(bytes);
        if (maxBytes > 0 && newBytes > maxBytes) {
            cancelReservation(bytes);
            throw full("holds " + (newBytes - bytes) + " bytes (maxDepthBytes " + maxBytes + ")");
        }
    }

    public void cancelReservation(int bytes) {
        depthMessages.decrementAndGet();
        depthBytes.addAndGet(-bytes);
    }

    private BrokerException full(String why) {
        String text = "queue '" + name() + "' is full: it " + why + "; publishes are refused until consumers drain it";
        host.operationalLog().log(LogCode.VHT_1008, name(), why);
        return new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED, text);
    }

    /**
     * Adds a message whose room was reserved (and which is stored, if it had to be). While recovered entries are
     * loading, the message waits behind them. The message counts as enqueued at once, as its reservation already
     * counts in the depth: once a publish completes, the in-counters include it.
     */
    public void enqueue(ServerMessage message) {
        countEnqueued(message);
        executor.execute(() -> {
            if (deleted) {
                cancelReservation(message.metadata().contentSize());
                forgetMessage(message);
                return;
            }
            if (loading) {
                heldWhileLoading.addLast(message);
                return;
            }
            addEntry(message, 0);
            dispatch();
        });
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
     * this queue's entry. Completes on the executor with false when the queue had shut down (the page's
     * references are then dropped, and nothing is added).
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
                depthMessages.incrementAndGet();
                depthBytes.addAndGet(message.metadata().contentSize());
                countEnqueued(message);
                addEntry(message, 0);
            }
            if (last) {
                loading = false;
                for (ServerMessage held : heldWhileLoading) {
                    addEntry(held, 0);
                }
                heldWhileLoading.clear();
                recoveryLoaded.complete(null);
            }
            dispatch();
            added.complete(true);
        });
        return added;
    }

    /** Whether recovered entries are still being loaded (read from any thread; approximate). */
    public boolean isLoadingRecoveredEntries() {
        return !recoveryLoaded.isDone();
    }

    private void addEntry(ServerMessage message, int deliveryCount) {
        long expiresAt = message.metadata().expiresAtMillis();
        if (config.messageTtlMillis() > 0) {
            long queueExpiry = message.metadata().arrivalMillis() + config.messageTtlMillis();
            expiresAt = expiresAt == 0 ? queueExpiry : Math.min(expiresAt, queueExpiry);
        }
        QueueEntry entry = new QueueEntry(nextSequence++, message, expiresAt);
        entry.deliveryCount = deliveryCount;
        if (expiresAt != 0) {
            entriesWithExpiry++;
        }
        fresh.addLast(entry);
    }

    private void countEnqueued(ServerMessage message) {
        enqueuedTotal.incrementAndGet();
        enqueuedBytes.addAndGet(message.metadata().contentSize());
    }

    // ---- consumers (executor) ----

    /** Attaches a consumer; completes on the queue's executor. */
    public CompletableFuture<Subscription> subscribe(ConsumerTarget target, boolean preSettled) {
        CompletableFuture<Subscription> result = new CompletableFuture<>();
        executor.execute(() -> {
            if (deleted) {
                result.completeExceptionally(new BrokerException(ErrorKind.NOT_FOUND,
                        "queue '" + name() + "' was deleted"));
                return;
            }
            QueueConsumer consumer = new QueueConsumer(this, target, preSettled);
            consumers.add(consumer);
            result.complete(consumer);
        });
        return result;
    }

    /** Number of attached consumers (read from any thread; approximate). */
    public int consumerCount() {
        return consumers.size();
    }

    void removeConsumer(QueueConsumer consumer) {
        if (consumer.closed) {
            return;
        }
        consumer.closed = true;
        consumers.remove(consumer);
        for (QueueConsumer.Outgoing pending : consumer.outbox) {
            returnEntry(pending.entry(), consumer, false, false);
        }
        consumer.outbox.clear();
        for (QueueEntry entry : List.copyOf(consumer.unsettled)) {
            // Leaving without settling counts as a failed delivery, unless this consumer already reported this
            // message as failed: then the copy handed back to it while it was closing was never seen by the
            // application (Qpid JMS sends modified(delivery-failed), then detaches) and one failure is enough.
            returnEntry(entry, consumer, entry.explicitlyFailedBy != consumer, false);
        }
        consumer.unsettled.clear();
        if (autoDelete && consumers.isEmpty()) {
            host.autoDelete(this);
        } else {
            dispatch();
        }
    }

    /** Hands available entries to consumers with credit, round robin. Runs on the executor. */
    void dispatch() {
        if (deleted || consumers.isEmpty()) {
            return;
        }
        long now = host.nowMillis();
        int size = consumers.size();
        int withoutWork = 0;
        while (withoutWork < size) {
            QueueConsumer consumer = consumers.get(nextConsumer++ % size);
            if (nextConsumer >= size) {
                nextConsumer = 0;
            }
            if (consumer.credit <= 0) {
                withoutWork++;
                continue;
            }
            QueueEntry entry = nextAvailable(consumer, now);
            if (entry == null) {
                withoutWork++;
                continue;
            }
            withoutWork = 0;
            handOver(entry, consumer);
        }
        for (QueueConsumer consumer : consumers) { // completeDrainIfDone never changes the list
            completeDrainIfDone(consumer);
        }
    }

    private QueueEntry nextAvailable(QueueConsumer consumer, long now) {
        while (true) {
            QueueEntry candidate = null;
            Iterator<QueueEntry> returnedEntries = returned.values().iterator();
            while (returnedEntries.hasNext()) {
                QueueEntry e = returnedEntries.next();
                if (!e.refusedBy(consumer)) {
                    candidate = e;
                    break;
                }
            }
            QueueEntry head = fresh.peekFirst();
            boolean fromFresh = head != null && (candidate == null || head.sequence < candidate.sequence);
            if (fromFresh) {
                candidate = fresh.pollFirst();
            } else if (candidate != null) {
                returned.remove(candidate.sequence);
            } else {
                return null;
            }
            if (candidate.isExpired(now)) {
                expire(candidate);
                continue;
            }
            return candidate;
        }
    }

    private void handOver(QueueEntry entry, QueueConsumer consumer) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("Queue '{}': message {} to consumer {} (failed deliveries so far {})", name(),
                    entry.message.id(), consumer.target, entry.deliveryCount);
        }
        consumer.credit--;
        entry.state = QueueEntry.State.ACQUIRED;
        entry.owner = consumer;
        CompletableFuture<byte[]> content = entry.message.content(host::loadContent);
        consumer.unsettled.add(entry);
        consumer.outbox.addLast(new QueueConsumer.Outgoing(entry, content));
        if (content.isDone()) {
            flushOutbox(consumer);
        } else {
            content.whenComplete((bytes, failure) -> executor.execute(() -> flushOutbox(consumer)));
        }
    }

    private void flushOutbox(QueueConsumer consumer) {
        while (!consumer.closed && !consumer.outbox.isEmpty() && consumer.outbox.peekFirst().content().isDone()) {
            QueueConsumer.Outgoing next = consumer.outbox.pollFirst();
            QueueEntry entry = next.entry();
            byte[] bytes;
            try {
                bytes = next.content().join();
            } catch (RuntimeException e) {
                LOG.error("Could not read message {} of queue '{}' from the store; it stays on the queue",
                        entry.message.id(), name(), e);
                returnEntry(entry, consumer, false, false);
                continue;
            }
            if (consumer.preSettled) {
                consumer.unsettled.remove(entry);
                removeEntry(entry);
            }
            consumer.target.deliver(new EntryDelivery(this, entry, consumer, bytes, entry.deliveryCount));
        }
        completeDrainIfDone(consumer);
    }

    private void completeDrainIfDone(QueueConsumer consumer) {
        if (consumer.drainRequested && consumer.outbox.isEmpty()) {
            consumer.drainRequested = false;
            consumer.credit = 0;
            consumer.target.drained();
        }
    }

    // ---- settlement (executor) ----

    void accepted(QueueEntry entry, QueueConsumer consumer, CompletableFuture<Void> done) {
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
        returned.put(entry.sequence, entry);
        if (!deleted) {
            // Behind tasks already queued: a client that returns a message and then detaches (Qpid JMS closing)
            // must not have it handed straight back to the departing link and counted as failed twice.
            executor.execute(this::dispatch);
        }
    }

    /** A consumer's explicit modified outcome. */
    void modified(QueueEntry entry, QueueConsumer consumer, boolean deliveryFailed, boolean refuseConsumer) {
        if (deliveryFailed && entry.state == QueueEntry.State.ACQUIRED && entry.owner == consumer) {
            entry.explicitlyFailedBy = consumer;
        }
        returnEntry(entry, consumer, deliveryFailed, refuseConsumer);
    }

    void rejected(QueueEntry entry, QueueConsumer consumer) {
        if (entry.state != QueueEntry.State.ACQUIRED || entry.owner != consumer) {
            return;
        }
        consumer.unsettled.remove(entry);
        deadLetter(entry, "rejected by consumer");
        dispatch();
    }

    /**
     * Records a transactional acknowledgement. The acknowledgement joins the transaction at once, on the caller's
     * (connection) thread, so that a commit the client sends next includes it; the entry's own change of state
     * runs here on the executor, and the commit waits for it ({@link TransactionParticipant#ready()}).
     */
    CompletableFuture<Void> acceptInTransaction(QueueEntry entry, QueueConsumer consumer, LocalTransaction transaction) {
        TransactionalAcknowledgement acknowledgement = new TransactionalAcknowledgement(entry);
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
     * A transactional acknowledgement of one entry (see {@link TransactionParticipant}). {@code enlisted} tells
     * whether the entry was still this consumer's when the acknowledgement reached the queue; if not, the
     * acknowledgement does nothing.
     *
     * <p>The entry's reference on its message is dropped only once the transaction committed: dropped at prepare,
     * a rollback would give it back after another holder (a fanout copy, or the recovery's own reference) had seen
     * the count reach zero and removed the message from the store. When the commit drops the last reference, the
     * message's removal follows in a transaction of its own (lost in a crash, it leaves an orphan that the next
     * recovery removes).
     */
    private final class TransactionalAcknowledgement implements TransactionParticipant {
        private final QueueEntry entry;
        private final CompletableFuture<Boolean> enlisted = new CompletableFuture<>();

        TransactionalAcknowledgement(QueueEntry entry) {
            this.entry = entry;
        }

        @Override
        public CompletableFuture<Void> ready() {
            return enlisted.thenApply(held -> null);
        }

        private boolean held() {
            return enlisted.getNow(false);
        }

        @Override
        public void prepare(StoreTransaction storeTransaction) {
            if (held()) {
                appendDequeue(storeTransaction, entry.message);
            }
        }

        @Override
        public void committed() {
            if (!held()) {
                return;
            }
            executor.execute(() -> {
                entry.state = QueueEntry.State.REMOVED;
                ServerMessage message = entry.message;
                boolean last = message.dropReference() == 0;
                if (last && message.isStored()) {
                    removeMessageRecord(message);
                }
                forgetEntry(entry, last);
            });
        }

        @Override
        public void rolledBack() {
            // Queued after the enlisting task (same executor), so the entry's state is settled by then.
            executor.execute(() -> {
                if (entry.state != QueueEntry.State.IN_TRANSACTION) {
                    return;
                }
                entry.state = QueueEntry.State.AVAILABLE;
                entry.owner = null;
                entry.deliveryCount++;
                returned.put(entry.sequence, entry);
                dispatch();
            });
        }
    }

    // ---- removal (executor) ----

    /** Removes an entry now: in memory at once, in the store without waiting for durability. */
    private CompletableFuture<Void> removeEntry(QueueEntry entry) {
        entry.state = QueueEntry.State.REMOVED;
        StoreTransaction storeTransaction = host.newStoreTransaction();
        boolean last = appendRemoval(storeTransaction, entry.message);
        forgetEntry(entry, last);
        return storeTransaction.isEmpty() ? CompletableFuture.completedFuture(null) : storeTransaction.commit();
    }

    /**
     * Adds the store records that take {@code message} off this queue; returns whether this was the message's last
     * reference (its content can go). Thread-safe: touches only the message's atomic counter.
     */
    private boolean appendRemoval(StoreTransaction storeTransaction, ServerMessage message) {
        appendDequeue(storeTransaction, message);
        boolean last = message.dropReference() == 0;
        if (last && message.isStored()) {
            storeTransaction.removeMessage(message.id());
        }
        return last;
    }

    private void appendDequeue(StoreTransaction storeTransaction, ServerMessage message) {
        if (message.isStored() && isDurable()) {
            storeTransaction.dequeue(id, message.id());
        }
    }

    /** Removes a message whose last reference went, in a store transaction of its own (relaxed durability). */
    private void removeMessageRecord(ServerMessage message) {
        try {
            StoreTransaction removal = host.newStoreTransaction();
            removal.removeMessage(message.id());
            removal.commit();
        } catch (BrokerException e) {
            // No store (the host is passivating): the record stays, an orphan that the next recovery removes.
        }
    }

    private void forgetEntry(QueueEntry entry, boolean lastReference) {
        depthMessages.decrementAndGet();
        depthBytes.addAndGet(-entry.message.metadata().contentSize());
        dequeuedTotal.incrementAndGet();
        dequeuedBytes.addAndGet(entry.message.metadata().contentSize());
        if (entry.expiresAtMillis != 0) {
            entriesWithExpiry--;
        }
        if (lastReference) {
            entry.message.releaseContent();
        }
    }

    private void forgetMessage(ServerMessage message) {
        StoreTransaction storeTransaction = host.newStoreTransaction();
        if (appendRemoval(storeTransaction, message)) {
            message.releaseContent();
        }
        if (!storeTransaction.isEmpty()) {
            storeTransaction.commit();
        }
    }

    private void expire(QueueEntry entry) {
        LOG.debug("Message {} expired on queue '{}'", entry.message.id(), name());
        removeEntry(entry);
    }

    /** Drops expired entries that no consumer has reached (runs on the executor). */
    public void expireEntries() {
        executor.execute(() -> {
            if (entriesWithExpiry == 0 || deleted) {
                return;
            }
            long now = host.nowMillis();
            Iterator<QueueEntry> it = fresh.iterator();
            while (it.hasNext()) {
                QueueEntry e = it.next();
                if (e.isExpired(now)) {
                    it.remove();
                    expire(e);
                }
            }
            Iterator<Map.Entry<Long, QueueEntry>> back = returned.entrySet().iterator();
            while (back.hasNext()) {
                QueueEntry e = back.next().getValue();
                if (e.isExpired(now)) {
                    back.remove();
                    expire(e);
                }
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
                returned.put(entry.sequence, entry);
                return;
            }
            moveTo(dlq, entry, reason);
        }));
    }

    private void moveTo(BrokerQueue dlq, QueueEntry entry, String reason) {
        ServerMessage message = entry.message;
        StoreTransaction storeTransaction = host.newStoreTransaction();
        message.addReference();
        if (message.isStored() && dlq.isDurable()) {
            storeTransaction.enqueue(dlq.id(), message.id());
        }
        appendRemoval(storeTransaction, message);
        dlq.depthMessages.incrementAndGet();
        dlq.depthBytes.addAndGet(message.metadata().contentSize());
        CompletableFuture<Void> durable = storeTransaction.isEmpty()
                ? CompletableFuture.completedFuture(null) : storeTransaction.commit();
        durable.whenComplete((ok, failure) -> executor.execute(() -> {
            if (failure != null) {
                LOG.error("Moving message {} from '{}' to dead-letter queue '{}' failed: {}; it stays",
                        message.id(), name(), dlq.name(), failure.toString());
                dlq.cancelReservation(message.metadata().contentSize());
                entry.state = QueueEntry.State.AVAILABLE;
                returned.put(entry.sequence, entry);
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
     * the store is not touched unless {@code removeFromStore}.
     */
    public CompletableFuture<Void> shutdown(String reason, boolean removeFromStore) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        executor.execute(() -> {
            deleted = true;
            long unrecorded = unrecordedRemovals.getAndSet(0);
            if (unrecorded > 1) {
                LOG.warn("Queue '{}': {} accepted messages could not be removed from the store; they may be "
                        + "redelivered after a restart", name(), unrecorded);
            }
            for (QueueConsumer consumer : List.copyOf(consumers)) {
                consumer.closed = true;
                consumer.target.closedByBroker(reason);
            }
            consumers.clear();
            if (removeFromStore) {
                StoreTransaction storeTransaction = host.newStoreTransaction();
                List<ServerMessage> all = new ArrayList<>(fresh.size() + returned.size() + heldWhileLoading.size());
                fresh.forEach(e -> all.add(e.message));
                returned.values().forEach(e -> all.add(e.message));
                all.addAll(heldWhileLoading);
                for (ServerMessage message : all) {
                    if (appendRemoval(storeTransaction, message)) {
                        message.releaseContent();
                    }
                }
                if (!storeTransaction.isEmpty()) {
                    storeTransaction.commit();
                }
            }
            fresh.clear();
            returned.clear();
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
