package org.tandembroker.core.queue;

import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.selector.SelectorContext;

/** A message as a JMS selector sees it; created per evaluation, on the evaluating thread. */
final class MessageSelectorContext implements SelectorContext {
    private final MessageMetadata metadata;
    private final int deliveryCount;

    MessageSelectorContext(MessageMetadata metadata, int deliveryCount) {
        this.metadata = metadata;
        this.deliveryCount = deliveryCount;
    }

    @Override
    public Object value(String identifier) {
        return null;
    }
}
