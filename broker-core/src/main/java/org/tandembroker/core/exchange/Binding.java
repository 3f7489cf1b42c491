package org.tandembroker.core.exchange;

import java.util.UUID;
import org.tandembroker.core.queue.BrokerQueue;

/** A queue bound to an exchange with a binding key. Immutable. */
public record Binding(UUID id, String exchangeName, BrokerQueue queue, String bindingKey, TopicPattern pattern) {

    public Binding(UUID id, String exchangeName, BrokerQueue queue, String bindingKey) {
        this(id, exchangeName, queue, bindingKey, new TopicPattern(bindingKey));
    }
}
