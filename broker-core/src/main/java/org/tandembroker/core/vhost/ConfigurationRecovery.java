package org.tandembroker.core.vhost;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.config.ExchangeConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.exchange.Binding;
import org.tandembroker.core.exchange.Exchange;
import org.tandembroker.core.exchange.ExchangeType;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;

/**
 * Turns the store's configuration records back into exchanges, queues and bindings of the topology, the built-in
 * exchanges first. One per activation; runs on the life-cycle thread (the store calls it from there).
 *
 * <p><b>Two records of one queue name.</b> Before the fix of {@code Topology.declareQueue}'s race, two clients
 * auto-creating a queue at the same moment could store two queue records of the same name, each with its own id,
 * while the broker served one queue; its messages were stored under that one's id. The next recovery then made
 * both queues but could show only one by name, hiding the other's messages (found by the failover-under-load
 * benchmark). Now the first record of a name makes the queue and a later one is a duplicate:
 * {@link #mergeDuplicateQueues} moves its stored entries and bindings to the kept queue and removes its record,
 * before any entry is loaded ({@code VHT-1011}).
 */
final class ConfigurationRecovery implements RecoveryHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigurationRecovery.class);
    private static final List<ExchangeConfig> BUILT_IN_EXCHANGES = List.of(
            new ExchangeConfig("amq.direct", ExchangeType.DIRECT, true),
            new ExchangeConfig("amq.topic", ExchangeType.TOPIC, true),
            new ExchangeConfig("amq.fanout", ExchangeType.FANOUT, true));

    /** Entries moved per transaction when a duplicate queue record is merged. */
    static final int ENTRIES_PER_MOVE = 1024;

    private final Topology topology;
    private final List<ConfigRecord> bindingRecords = new ArrayList<>();
    private final Map<UUID, BrokerQueue> queuesById = new HashMap<>();
    private final Map<String, BrokerQueue> queuesByName = new HashMap<>();
    /** Queue records repeating an earlier record's name, by record id: the queue their entries move to. */
    private final Map<UUID, BrokerQueue> duplicates = new LinkedHashMap<>();
    /** Binding records of a duplicate: rewritten to the kept queue, or removed when it has the same binding. */
    private final List<ConfigRecord> bindingsMoved = new ArrayList<>();
    private final List<UUID> bindingsDropped = new ArrayList<>();
    private final Map<String, QueueConfig> declaredQueues = new HashMap<>();
    private final OperationalLog operationalLog;
    private final List<ConfigRecord> changedRecords = new ArrayList<>();

    /**
     * @param declaredQueues the queues the virtual host file declares: a stored queue of the same name takes the
     *                       file's changed limits ({@link DeclaredQueueChanges})
     */
    ConfigurationRecovery(Topology topology, List<QueueConfig> declaredQueues, OperationalLog operationalLog) {
        this.topology = topology;
        this.operationalLog = operationalLog;
        for (QueueConfig declared : declaredQueues) {
            this.declaredQueues.put(declared.name(), declared);
        }
    }

    /** Adds amq.direct, amq.topic and amq.fanout, with ids that are the same on every node and every start. */
    void declareBuiltInExchanges() {
        for (ExchangeConfig builtIn : BUILT_IN_EXCHANGES) {
            topology.add(new Exchange(UUID.nameUUIDFromBytes(builtIn.name().getBytes()), builtIn.name(),
                    builtIn.type(), true));
        }
    }

    @Override
    public void configRecord(ConfigRecord record) {
        switch (record.type()) {
            case ConfigRecord.QUEUE -> {
                BrokerQueue sameName = queuesByName.get(ConfigRecords.toQueueConfig(record).name());
                if (sameName != null) {
                    duplicates.put(record.id(), sameName);
                    return;
                }
                QueueConfig qc = withDeclaredChanges(record, ConfigRecords.toQueueConfig(record));
                BrokerQueue queue = topology.newQueue(record.id(), qc, false);
                queue.expectRecoveredEntries();
                ConfigRecords.toSubscriptionTerms(record).ifPresent(terms -> {
                    topology.addSubscription(qc.name(), terms);
                    queue.admitOnly(TopicSubscriptions.admission(terms, null));
                });
                topology.add(queue);
                queuesById.put(record.id(), queue);
                queuesByName.put(qc.name(), queue);
            }
            case ConfigRecord.EXCHANGE -> {
                ExchangeConfig ec = ConfigRecords.toExchangeConfig(record);
                topology.add(new Exchange(record.id(), ec.name(), ec.type(), true));
            }
            case ConfigRecord.BINDING -> bindingRecords.add(record);
            default -> LOG.warn("Ignoring unknown configuration record type '{}' ({})", record.type(), record.id());
        }
    }

    /**
     * The stored queue's settings with the changes the virtual host file makes to it: applied ones logged
     * (VHT-1009) and stored again ({@link #changedRecords}), kept ones logged as a warning (VHT-1010), one line
     * each per queue.
     */
    private QueueConfig withDeclaredChanges(ConfigRecord record, QueueConfig stored) {
        QueueConfig declared = declaredQueues.get(stored.name());
        if (declared == null || ConfigRecords.toSubscriptionTerms(record).isPresent()) {
            return stored;
        }
        DeclaredQueueChanges changes = DeclaredQueueChanges.compare(stored, declared);
        if (!changes.applied().isEmpty()) {
            operationalLog.log(LogCode.VHT_1009, stored.name(), String.join(", ", changes.applied()));
            changedRecords.add(ConfigRecords.queueRecord(record.id(), changes.queue()));
        }
        if (!changes.kept().isEmpty()) {
            operationalLog.log(LogCode.VHT_1010, stored.name(), String.join(", ", changes.kept()));
        }
        return changes.queue();
    }

    /** The queue records to store again because the file changed their limits. */
    List<ConfigRecord> changedRecords() {
        return List.copyOf(changedRecords);
    }

    /** Binds the recovered bindings, once every record is in (a binding may come before its queue). */
    void bind() {
        for (ConfigRecord record : bindingRecords) {
            String exchangeName = record.attributes().get("exchange");
            UUID queueId = UUID.fromString(record.attributes().get("queue"));
            BrokerQueue duplicateOf = duplicates.get(queueId);
            BrokerQueue queue = duplicateOf != null ? duplicateOf : queuesById.get(queueId);
            Exchange exchange = topology.exchange(exchangeName);
            if (queue == null || exchange == null) {
                LOG.warn("Ignoring binding {} to missing exchange '{}' or queue", record.id(), exchangeName);
                continue;
            }
            String key = record.attributes().get("key");
            if (duplicateOf != null) {
                if (exchange.find(queue, key).isPresent()) {
                    bindingsDropped.add(record.id());
                    continue;
                }
                Map<String, String> attributes = new HashMap<>(record.attributes());
                attributes.put("queue", queue.id().toString());
                bindingsMoved.add(new ConfigRecord(record.id(), ConfigRecord.BINDING, attributes));
            }
            exchange.bind(new Binding(record.id(), exchangeName, queue, key));
        }
    }

    /**
     * Moves the stored entries of every duplicate queue record (see the class comment) to the queue kept under its
     * name, in transactions of {@link #ENTRIES_PER_MOVE}, then stores the moved bindings and removes the
     * duplicate's record; logs {@code VHT-1011} per duplicate. Runs before any entry is loaded, so the loader finds
     * every message under the kept queue (and none looks like an orphan). Waits for each commit: a failure fails
     * the activation, which is retried as any recovery failure, and nothing is lost (an entry is added under the
     * kept queue in the same transaction that removes it from the duplicate).
     */
    void mergeDuplicateQueues(MessageStore store, StoredEntries stored) {
        for (Map.Entry<UUID, BrokerQueue> duplicate : duplicates.entrySet()) {
            UUID duplicateId = duplicate.getKey();
            BrokerQueue kept = duplicate.getValue();
            long moved = 0;
            long after = 0;
            while (true) {
                List<StoredEntry> page = stored.entries(duplicateId, after, ENTRIES_PER_MOVE).join();
                if (page.isEmpty()) {
                    break;
                }
                StoreTransaction txn = store.newTransaction();
                for (StoredEntry entry : page) {
                    txn.enqueue(kept.id(), entry.messageId());
                    txn.dequeue(duplicateId, entry.messageId());
                    after = entry.messageId();
                }
                txn.commit().join();
                moved += page.size();
            }
            StoreTransaction txn = store.newTransaction();
            for (ConfigRecord binding : bindingsMoved) {
                if (binding.attributes().get("queue").equals(kept.id().toString())) {
                    txn.putConfig(binding);
                }
            }
            txn.removeConfig(duplicateId);
            txn.commit().join();
            operationalLog.log(LogCode.VHT_1011, kept.name(), moved, duplicateId, kept.id());
        }
        if (!bindingsDropped.isEmpty()) {
            StoreTransaction txn = store.newTransaction();
            bindingsDropped.forEach(txn::removeConfig);
            txn.commit().join();
        }
    }

    /** The recovered durable queues, each expecting its stored entries. */
    List<BrokerQueue> durableQueues() {
        return List.copyOf(queuesById.values());
    }
}
