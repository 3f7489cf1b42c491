package org.tandembroker.core.config;

import java.nio.file.Path;
import java.util.List;

/**
 * One virtual host file, validated and sealed.
 *
 * @param sourceFile        the file it came from
 * @param name              the virtual host's name (what clients put in open.hostname)
 * @param store             the store element, validated later by the store factory of its type
 * @param autoCreateQueues  whether attaching to an unknown address creates a queue of that name
 * @param queueDefaults     settings for auto-created queues (its name is ignored)
 * @param queues            queues declared in the file
 * @param exchanges         exchanges declared in the file (amq.direct, amq.topic, amq.fanout always exist)
 * @param bindings          bindings declared in the file
 */
public record VirtualHostConfig(Path sourceFile,
                                String name,
                                StoreSettings store,
                                boolean autoCreateQueues,
                                QueueConfig queueDefaults,
                                List<QueueConfig> queues,
                                List<ExchangeConfig> exchanges,
                                List<BindingConfig> bindings) {
    public VirtualHostConfig {
        queues = List.copyOf(queues);
        exchanges = List.copyOf(exchanges);
        bindings = List.copyOf(bindings);
    }
}
