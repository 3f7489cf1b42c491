package org.tandembroker.core.vhost;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exchange.Binding;
import org.tandembroker.core.exchange.Exchange;
import org.tandembroker.core.exec.SerialExecutor;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.QueueHost;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntry;

/**
 * A virtual host's exchanges and queues by name, and the declaring and deleting of queues (a durable queue is
 * stored before it becomes visible). Concurrent maps: read by network threads, changed by declarations from any
 * thread, filled by recovery and emptied by {@link #clear} on the life-cycle thread. Each queue's own state is
 * owned by its {@link SerialExecutor}.
 */
final class Topology {
    private final VirtualHostConfig config;
    private final CurrentStore store;
    private final OperationalLog operationalLog;
    private final Executor queuePool;
    private final int queueWindow;
    /** The timer for delayed deliveries (the broker's housekeeping thread). */
    private final ScheduledExecutorService timer;
    private final QueueHost queueHost = new HostForQueues();
    private final Map<String, BrokerQueue> queues = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<BrokerQueue>> queueDeclarations = new ConcurrentHashMap<>();
    /**
     * The record id of each durable queue whose declaration failed: its record may be stored all the same (a
     * replicated commit that is in doubt), so the next declaration of the name stores the same id again rather
     * than a second record of the name. Bounded; a name left out costs a duplicate record, which the next
     * recovery merges ({@link ConfigurationRecovery}).
     */
    private final Map<String, UUID> unconfirmedQueueIds = new ConcurrentHashMap<>();
    private static final int MAX_UNCONFIRMED_QUEUE_IDS = 10_000;
    private final Map<String, Exchange> exchanges = new ConcurrentHashMap<>();
    /** The terms of each named subscription's queue, by queue name (a queue without an entry is no subscription). */
    private final Map<String, SubscriptionTerms> subscriptions = new ConcurrentHashMap<>();
    private final ContentBudget contentBudget;

    Topology(VirtualHostConfig config, CurrentStore store, OperationalLog operationalLog, int queueWindow,
             ContentBudget contentBudget, Executor queuePool, ScheduledExecutorService timer) {
        this.config = config;
        this.contentBudget = contentBudget;
        this.queueWindow = queueWindow;
        this.store = store;
        this.operationalLog = operationalLog;
        this.queuePool = queuePool;
        this.timer = timer;
    }

    /** The queue of that name, or null. */
    BrokerQueue queue(String name) {
        return queues.get(name);
    }

    Map<String, BrokerQueue> queuesSnapshot() {
        return Map.copyOf(queues);
    }

    /** The exchange of that name, or null. */
    Exchange exchange(String name) {
        return exchanges.get(name);
    }

    Map<String, Exchange> exchangesSnapshot() {
        return Map.copyOf(exchanges);
    }

    /** A queue of this host, not yet visible: {@link #add(BrokerQueue)} or {@link #declareQueue} shows it. */
    BrokerQueue newQueue(UUID id, QueueConfig qc, boolean autoDelete) {
        return new BrokerQueue(id, qc, autoDelete, new SerialExecutor("queue-" + qc.name(), queuePool), queueHost);
    }

    /** Makes a recovered or configured queue visible (life-cycle thread). */
    void add(BrokerQueue queue) {
        queues.put(queue.name(), queue);
    }

    /** Makes a recovered, built-in or configured exchange visible (life-cycle thread). */
    void add(Exchange exchange) {
        exchanges.put(exchange.name(), exchange);
    }

    /** The terms of the named subscription whose queue this is, or null for a queue that is no subscription. */
    SubscriptionTerms subscriptionTerms(String queueName) {
        return subscriptions.get(queueName);
    }

    /** Records a recovered queue's subscription terms (life-cycle thread, with {@link #add(BrokerQueue)}). */
    void addSubscription(String queueName, SubscriptionTerms terms) {
        subscriptions.put(queueName, terms);
    }

    /** Finds or creates a queue; durable queues are stored before they become visible. Any thread. */
    CompletableFuture<BrokerQueue> declareQueue(QueueConfig queueConfig, boolean autoDelete) {
        return declareQueue(queueConfig, autoDelete, null);
    }

    /**
     * Finds or creates a queue that holds a named subscription's messages, its terms stored with it (a durable
     * one: in the same record). Any thread.
     */
    CompletableFuture<BrokerQueue> declareSubscriptionQueue(QueueConfig queueConfig, boolean autoDelete,
                                                            SubscriptionTerms terms) {
        return declareQueue(queueConfig, autoDelete, terms);
    }

    private CompletableFuture<BrokerQueue> declareQueue(QueueConfig queueConfig, boolean autoDelete,
                                                        SubscriptionTerms terms) {
        BrokerQueue existing = queues.get(queueConfig.name());
        if (existing != null) {
            return CompletableFuture.completedFuture(existing);
        }
        String queueName = queueConfig.name();
        CompletableFuture<BrokerQueue> declared = new CompletableFuture<>();
        CompletableFuture<BrokerQueue> inProgress = queueDeclarations.putIfAbsent(queueName, declared);
        if (inProgress != null) {
            return inProgress;
        }
        // A declaration of the same name may have finished between the first look and taking its place: it made
        // its queue visible before it gave up the place, so it shows here. Without this look a second record of
        // the name would be stored, and the next recovery would hide one of the two queues' messages.
        existing = queues.get(queueName);
        if (existing != null) {
            queueDeclarations.remove(queueName, declared);
            declared.complete(existing);
            return declared;
        }
        UUID unconfirmed = unconfirmedQueueIds.get(queueName);
        BrokerQueue queue = newQueue(unconfirmed != null ? unconfirmed : UUID.randomUUID(), queueConfig, autoDelete);
        CompletableFuture<Void> stored;
        try {
            if (queueConfig.durable()) {
                StoreTransaction txn = store.require().newTransaction();
                txn.putConfig(terms == null ? ConfigRecords.queueRecord(queue.id(), queueConfig)
                        : ConfigRecords.subscriptionQueueRecord(queue.id(), queueConfig, terms));
                stored = txn.commit();
            } else {
                stored = CompletableFuture.completedFuture(null);
            }
        } catch (BrokerException e) {
            stored = CompletableFuture.failedFuture(e);
        }
        stored.whenComplete((ok, failure) -> {
            if (failure != null) {
                if (queueConfig.durable() && unconfirmedQueueIds.size() < MAX_UNCONFIRMED_QUEUE_IDS) {
                    unconfirmedQueueIds.put(queueName, queue.id());
                }
                queueDeclarations.remove(queueName, declared);
                declared.completeExceptionally(BrokerException.from(failure));
                return;
            }
            // Visible first, then the place given up (see above): a declaration that starts in between finds it.
            unconfirmedQueueIds.remove(queueName, queue.id());
            BrokerQueue winner = queues.putIfAbsent(queueName, queue);
            if (winner == null && terms != null) {
                subscriptions.put(queueName, terms);
            }
            queueDeclarations.remove(queueName, declared);
            if (winner == null) {
                operationalLog.log(LogCode.VHT_1005, queueName, queueConfig.durable());
                declared.complete(queue);
            } else {
                declared.complete(winner);
            }
        });
        return declared;
    }

    /** Binds {@code queue} to {@code exchange} with {@code key} unless so bound; the binding is stored with a durable queue. */
    CompletableFuture<Void> bindIfAbsent(Exchange exchange, BrokerQueue queue, String key) {
        if (exchange.find(queue, key).isEmpty()) {
            Binding binding = new Binding(UUID.randomUUID(), exchange.name(), queue, key);
            // Stored only by the caller that added it: two subscribers binding at once store one record.
            if (exchange.bind(binding) && queue.isDurable()) {
                StoreTransaction txn = store.require().newTransaction();
                txn.putConfig(ConfigRecords.bindingRecord(binding));
                return txn.commit();
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Deletes a queue, its bindings and its messages (subscription and temporary queues). Completes once the
     * queue has shut down and, for a durable queue, its deletion is stored.
     */
    CompletableFuture<Void> deleteQueue(BrokerQueue queue, String reason) {
        if (!queues.remove(queue.name(), queue)) {
            return CompletableFuture.completedFuture(null);
        }
        subscriptions.remove(queue.name());
        StoreTransaction txn = queue.isDurable() ? store.require().newTransaction() : null;
        for (Exchange exchange : exchanges.values()) {
            for (Binding removed : exchange.unbindAll(queue)) {
                if (txn != null) {
                    txn.removeConfig(removed.id());
                }
            }
        }
        CompletableFuture<Void> stored = CompletableFuture.completedFuture(null);
        if (txn != null) {
            txn.removeConfig(queue.id());
            stored = txn.commit();
        }
        operationalLog.log(LogCode.VHT_1006, queue.name());
        CompletableFuture<Void> shutDown = queue.shutdown("queue '" + queue.name() + "' deleted: " + reason, true);
        return CompletableFuture.allOf(stored, shutDown);
    }

    /**
     * Removes the in-memory bindings of a queue that is no longer in the topology (a binding added just after its
     * deletion unbound it: a subscriber attaching as the queue went).
     */
    void unbindIfDeleted(BrokerQueue queue) {
        if (queues.get(queue.name()) != queue) {
            exchanges.values().forEach(exchange -> exchange.unbindAll(queue));
        }
    }

    /** Asks every queue to drop its expired entries. */
    void expireEntries() {
        queues.values().forEach(BrokerQueue::expireEntries);
    }

    /**
     * Shuts every queue down (the store is not touched) and forgets queues and exchanges: the host left ACTIVE.
     * Waits for the queues (life-cycle thread).
     */
    void clear(String reason) {
        List<CompletableFuture<Void>> shutdowns = new ArrayList<>();
        for (BrokerQueue queue : queues.values()) {
            shutdowns.add(queue.shutdown(reason, false));
        }
        CompletableFuture.allOf(shutdowns.toArray(CompletableFuture[]::new)).join();
        queues.clear();
        queueDeclarations.clear();
        subscriptions.clear();
        exchanges.clear();
    }

    /** What queues ask of their host. */
    private final class HostForQueues implements QueueHost {
        @Override
        public StoreTransaction newStoreTransaction() {
            return store.require().newTransaction();
        }

        @Override
        public CompletableFuture<byte[]> loadContent(long messageId) {
            return store.require().loadContent(messageId);
        }

        @Override
        public CompletableFuture<byte[]> loadContent(UUID holder, long messageId) {
            return store.require().loadContent(holder, messageId);
        }

        @Override
        public CompletableFuture<BrokerQueue> deadLetterQueue(String queueName) {
            return declareQueue(config.queueDefaults().asDeadLetterQueue(queueName), false);
        }

        @Override
        public void autoDelete(BrokerQueue queue) {
            deleteQueue(queue, "its last consumer left");
        }

        @Override
        public OperationalLog operationalLog() {
            return operationalLog;
        }

        @Override
        public int queueWindow() {
            return store.get().map(MessageStore::readsMessagesById).orElse(false) ? queueWindow : 0;
        }

        @Override
        public ContentBudget contentBudget() {
            return contentBudget;
        }

        @Override
        public CompletableFuture<List<StoredEntry>> readMessages(long[] ids) {
            return store.require().readMessages(ids);
        }

        @Override
        public CompletableFuture<List<StoredEntry>> readMessages(UUID holder, long[] ids) {
            return store.require().readMessages(holder, ids);
        }

        @Override
        public long nowMillis() {
            return System.currentTimeMillis();
        }

        @Override
        public void schedule(Runnable task, long delayMillis) {
            try {
                timer.schedule(task, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopping) {
                // The broker is stopping: its queues leave memory, and delayed messages stay in the store.
            }
        }
    }
}
