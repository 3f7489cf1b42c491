package org.tandembroker.core.queue;

import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.selector.SelectorContext;

/**
 * A message as a JMS selector sees it: the JMS header names mapped onto AMQP's fields as Qpid JMS maps them
 * (JMSType is the subject, JMSTimestamp the creation time, JMSXGroupID the group-id, ...), every other identifier an
 * application property. Created per evaluation, on the evaluating thread.
 */
final class MessageSelectorContext implements SelectorContext {
    private final MessageMetadata metadata;
    private final int deliveryCount;

    MessageSelectorContext(MessageMetadata metadata, int deliveryCount) {
        this.metadata = metadata;
        this.deliveryCount = deliveryCount;
    }

    @Override
    public Object value(String identifier) {
        MessageProperties properties = metadata.properties();
        if (identifier.startsWith("JMS")) {
            switch (identifier) {
                case "JMSMessageID":
                    return properties.messageId();
                case "JMSCorrelationID":
                    return properties.correlationId();
                case "JMSPriority":
                    return metadata.priority();
                case "JMSDeliveryMode":
                    return metadata.persistent() ? "PERSISTENT" : "NON_PERSISTENT";
                case "JMSTimestamp":
                    return properties.creationTime() == 0 ? null : properties.creationTime();
                case "JMSExpiration":
                    return metadata.expiresAtMillis();
                case "JMSType":
                    return metadata.subject();
                case "JMSRedelivered":
                    return deliveryCount > 0;
                case "JMSXDeliveryCount":
                    return deliveryCount + 1;
                case "JMSXGroupID":
                    return properties.groupId();
                case "JMSXGroupSeq":
                    return properties.groupSequence();
                case "JMSXUserID":
                    return properties.userId();
                default:
                    break;
            }
        }
        return properties.application().get(identifier);
    }
}
