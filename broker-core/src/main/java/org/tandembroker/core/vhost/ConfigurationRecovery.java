package org.tandembroker.core.vhost;

import java.util.ArrayList;
import java.util.HashMap;
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
import org.tandembroker.core.store.RecoveryHandler;

/**
 * Turns the store's configuration records back into exchanges, queues and bindings of the topology, the built-in
 * exchanges first. One per activation; runs on the life-cycle thread (the store calls it from there).
 */
final class ConfigurationRecovery implements RecoveryHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigurationRecovery.class);
    private static final List<ExchangeConfig> BUILT_IN_EXCHANGES = List.of(
            new ExchangeConfig("amq.direct", ExchangeType.DIRECT, true),
            new ExchangeConfig("amq.topic", ExchangeType.TOPIC, true),
            new ExchangeConfig("amq.fanout", ExchangeType.FANOUT, true));

    private final Topology topology;
    private final List<ConfigRecord> bindingRecords = new ArrayList<>();
    private final Map<UUID, BrokerQueue> queuesById = new HashMap<>();
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
                QueueConfig qc = withDeclaredChanges(record, ConfigRecords.toQueueConfig(record));
                BrokerQueue queue = topology.newQueue(record.id(), qc, false);
                queue.expectRecoveredEntries();
                ConfigRecords.toSubscriptionTerms(record).ifPresent(terms -> {
                    topology.addSubscription(qc.name(), terms);
                    queue.admitOnly(TopicSubscriptions.admission(terms, null));
                });
                topology.add(queue);
                queuesById.put(record.id(), queue);
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
            BrokerQueue queue = queuesById.get(UUID.fromString(record.attributes().get("queue")));
            Exchange exchange = topology.exchange(exchangeName);
            if (queue == null || exchange == null) {
                LOG.warn("Ignoring binding {} to missing exchange '{}' or queue", record.id(), exchangeName);
                continue;
            }
            exchange.bind(new Binding(record.id(), exchangeName, queue, record.attributes().get("key")));
        }
    }

    /** The recovered durable queues, each expecting its stored entries. */
    List<BrokerQueue> durableQueues() {
        return List.copyOf(queuesById.values());
    }
}
