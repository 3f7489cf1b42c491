package org.tandembroker.core.queue;

import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.selector.Selector;

/**
 * Which messages a consumer takes: those its JMS selector selects and, with no-local, none published on the
 * consumer's own connection. Immutable; evaluated on the queue's executor (and on publishers' threads for a
 * subscription queue's admission).
 *
 * @param selector          the consumer's selector, or null for every message
 * @param noLocalConnection the consumer's connection when it asked for no-local (messages published on it are
 *                          skipped), or null
 */
public record MessageFilter(Selector selector, String noLocalConnection) {
    /** Every message. */
    public static final MessageFilter ALL = new MessageFilter(null, null);

    /** Whether this filter lets every message through. */
    public boolean isAll() {
        return selector == null && noLocalConnection == null;
    }

    /**
     * Whether the consumer takes the message.
     *
     * @param publisherConnection the connection that published it (null when unknown: after a restart)
     * @param deliveryCount       failed deliveries so far (JMSRedelivered, JMSXDeliveryCount)
     */
    public boolean accepts(MessageMetadata metadata, String publisherConnection, int deliveryCount) {
        if (noLocalConnection != null && noLocalConnection.equals(publisherConnection)) {
            return false;
        }
        return selector == null || selector.matches(new MessageSelectorContext(metadata, deliveryCount));
    }
}
