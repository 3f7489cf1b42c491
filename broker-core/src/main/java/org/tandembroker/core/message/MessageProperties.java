package org.tandembroker.core.message;

import java.util.Map;

/**
 * What selectors, message groups and last-value queues read from a message besides {@link MessageMetadata}'s
 * routing fields: the headers JMS exposes (JMSMessageID, JMSCorrelationID, JMSTimestamp, JMSXUserID, JMSXGroupID,
 * JMSXGroupSeq) and the application properties. Stored with the message, so it holds after a restart or failover
 * even when the body is not on the heap. Immutable.
 *
 * @param messageId      the message id in its JMS form ({@code ID:...}), or null
 * @param correlationId  the correlation id (a string as sent; other types in their JMS form), or null
 * @param userId         the user id as UTF-8 text, or null
 * @param groupId        the message group (AMQP group-id, JMSXGroupID), or null
 * @param groupSequence  the position in its group (JMSXGroupSeq), or null
 * @param creationTime   when the sender created it (epoch millis, JMSTimestamp), 0 for unknown
 * @param application    the application properties with values String, Boolean, Byte, Short, Integer, Long, Float
 *                       or Double (others are not kept); never null
 */
public record MessageProperties(String messageId, String correlationId, String userId, String groupId,
                                Long groupSequence, long creationTime, Map<String, Object> application) {
    /** A message with none of these. */
    public static final MessageProperties NONE = new MessageProperties(null, null, null, null, null, 0, Map.of());

    public MessageProperties {
        application = application == null ? Map.of() : application;
    }

    public boolean isEmpty() {
        return messageId == null && correlationId == null && userId == null && groupId == null
                && groupSequence == null && creationTime == 0 && application.isEmpty();
    }
}
