package org.tandembroker.core.vhost;

import java.util.List;
import java.util.UUID;
import org.tandembroker.core.config.BindingConfig;
import org.tandembroker.core.config.ExchangeConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exchange.Binding;
import org.tandembroker.core.exchange.Exchange;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreTransaction;

/**
 * Declares the exchanges, queues and bindings of the virtual host's configuration file that recovery did not
 * bring back, and stores the file's changed limits of the queues it did, the durable part in one transaction. Runs
 * on the life-cycle thread during activation, after recovery; stateless.
 */
final class ConfigurationDeclaration {
    private final VirtualHostConfig config;
    private final Topology topology;
    private final OperationalLog operationalLog;

    ConfigurationDeclaration(VirtualHostConfig config, Topology topology, OperationalLog operationalLog) {
        this.config = config;
        this.topology = topology;
        this.operationalLog = operationalLog;
    }

    /**
     * Declares what is missing, stores {@code changedQueues} (recovered queues whose limits the file changed,
     * {@link ConfigurationRecovery#changedRecords}) and waits until the durable part is stored.
     */
    void declareMissing(MessageStore store, List<ConfigRecord> changedQueues) {
        StoreTransaction declarations = store.newTransaction();
        for (ConfigRecord changed : changedQueues) {
            declarations.putConfig(changed);
        }
        for (ExchangeConfig ec : config.exchanges()) {
            if (topology.exchange(ec.name()) == null) {
                UUID id = UUID.randomUUID();
                topology.add(new Exchange(id, ec.name(), ec.type(), ec.durable()));
                if (ec.durable()) {
                    declarations.putConfig(ConfigRecords.exchangeRecord(id, ec));
                }
            }
        }
        for (QueueConfig qc : config.queues()) {
            if (topology.queue(qc.name()) == null) {
                BrokerQueue queue = topology.newQueue(UUID.randomUUID(), qc, false);
                topology.add(queue);
                if (qc.durable()) {
                    declarations.putConfig(ConfigRecords.queueRecord(queue.id(), qc));
                }
                operationalLog.log(LogCode.VHT_1005, qc.name(), qc.durable());
            }
        }
        for (BindingConfig bc : config.bindings()) {
            Exchange exchange = topology.exchange(bc.exchange());
            BrokerQueue queue = topology.queue(bc.queue());
            if (exchange.find(queue, bc.bindingKey()).isEmpty()) {
                Binding binding = new Binding(UUID.randomUUID(), exchange.name(), queue, bc.bindingKey());
                exchange.bind(binding);
                if (queue.isDurable()) {
                    declarations.putConfig(ConfigRecords.bindingRecord(binding));
                }
            }
        }
        if (!declarations.isEmpty()) {
            declarations.commit().join();
        }
    }
}
