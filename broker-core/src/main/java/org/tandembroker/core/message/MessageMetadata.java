package org.tandembroker.core.message;

/**
 * What the core needs to know about a message; the content itself (the protocol's encoded message) is opaque
 * to the core.
 *
 * @param to              the message's own destination address (AMQP properties.to), may be null
 * @param subject         the message's subject (AMQP properties.subject): the routing key when the link's
 *                        address names an exchange without a key; may be null
 * @param persistent      whether the message must survive a broker restart (AMQP header.durable)
 * @param priority        0-9, default 4
 * @param expiresAtMillis absolute expiry (epoch millis), 0 = never
 * @param arrivalMillis   when the broker received it (epoch millis)
 * @param contentSize     size of the content in bytes
 * @param properties      headers and application properties (selectors, groups, last-value keys); never null
 */
public record MessageMetadata(String to, String subject, boolean persistent, int priority, long expiresAtMillis,
                              long arrivalMillis, int contentSize, MessageProperties properties) {

    public MessageMetadata {
        properties = properties == null ? MessageProperties.NONE : properties;
    }

    /** Metadata without headers or application properties. */
    public MessageMetadata(String to, String subject, boolean persistent, int priority, long expiresAtMillis,
                           long arrivalMillis, int contentSize) {
        this(to, subject, persistent, priority, expiresAtMillis, arrivalMillis, contentSize, MessageProperties.NONE);
    }

    public boolean isExpired(long nowMillis) {
        return expiresAtMillis != 0 && nowMillis >= expiresAtMillis;
    }

    public MessageMetadata withArrival(long newArrivalMillis) {
        return new MessageMetadata(to, subject, persistent, priority, expiresAtMillis, newArrivalMillis, contentSize,
                properties);
    }

    public MessageMetadata withTo(String newTo) {
        return new MessageMetadata(newTo, subject, persistent, priority, expiresAtMillis, arrivalMillis, contentSize,
                properties);
    }

    public MessageMetadata withExpiry(long newExpiresAtMillis) {
        return new MessageMetadata(to, subject, persistent, priority, newExpiresAtMillis, arrivalMillis, contentSize,
                properties);
    }
}
