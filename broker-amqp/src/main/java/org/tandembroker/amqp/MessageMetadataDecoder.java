package org.tandembroker.amqp;

import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.UnsignedShort;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.vhost.AddressKind;

/**
 * Builds the core's {@link MessageMetadata} from an encoded AMQP message: header.durable, priority and ttl;
 * properties.to, subject, absolute-expiry-time, and what selectors and groups read (message-id and correlation-id
 * in their JMS form, user-id, group-id, group-sequence, creation-time); and the application properties whose values
 * JMS can select on. The content itself stays the client's original bytes.
 *
 * <p>Thread: one instance per connection, used only on its event loop.
 */
final class MessageMetadataDecoder {
    private static final int DEFAULT_PRIORITY = 4;
    private static final int MAX_PRIORITY = 9;

    private final MessageSections sections;

    MessageMetadataDecoder(MessageSections sections) {
        this.sections = sections;
    }

    /**
     * A decoded message: the core's metadata, and what kind of address its {@code to} is (for the anonymous relay).
     */
    record Decoded(MessageMetadata metadata, AddressKind toKind) {
    }

    /** @throws org.apache.qpid.proton.codec.DecodeException for bytes that are not a well-formed AMQP message */
    MessageMetadata decode(byte[] content, long nowMillis) {
        return read(content, nowMillis).metadata();
    }

    /** @throws org.apache.qpid.proton.codec.DecodeException for bytes that are not a well-formed AMQP message */
    Decoded read(byte[] content, long nowMillis) {
        MessageSections.Leading leading = sections.read(content);
        Header header = leading.header();
        Properties properties = leading.properties();

        boolean persistent = header != null && Boolean.TRUE.equals(header.getDurable());
        int priority = header == null || header.getPriority() == null
                ? DEFAULT_PRIORITY
                : Math.min(MAX_PRIORITY, header.getPriority().intValue());
        long expiresAt = 0;
        if (header != null && header.getTtl() != null && header.getTtl().longValue() > 0) {
            expiresAt = nowMillis + header.getTtl().longValue();
        }
        String to = null;
        String subject = null;
        if (properties != null) {
            to = properties.getTo();
            subject = properties.getSubject();
            Date absoluteExpiry = properties.getAbsoluteExpiryTime();
            if (absoluteExpiry != null && absoluteExpiry.getTime() > 0
                    && (expiresAt == 0 || absoluteExpiry.getTime() < expiresAt)) {
                expiresAt = absoluteExpiry.getTime();
            }
        }
        MessageProperties selectable = selectable(properties, leading.applicationProperties());
        return new Decoded(new MessageMetadata(to, subject, persistent, priority, expiresAt, nowMillis,
                content.length, selectable), TerminusCapabilities.kindOf(leading.messageAnnotations()));
    }

    private static MessageProperties selectable(Properties p, Map<String, Object> applicationProperties) {
        Map<String, Object> application = Map.of();
        if (applicationProperties != null && !applicationProperties.isEmpty()) {
            application = new LinkedHashMap<>(applicationProperties.size() * 2);
            for (Map.Entry<String, Object> property : applicationProperties.entrySet()) {
                Object value = selectableValue(property.getValue());
                if (property.getKey() != null && value != null) {
                    application.put(property.getKey(), value);
                }
            }
        }
        if (p == null) {
            return application.isEmpty() ? MessageProperties.NONE
                    : new MessageProperties(null, null, null, null, null, 0, application);
        }
        Binary userId = p.getUserId();
        return new MessageProperties(jmsId(p.getMessageId(), true), jmsId(p.getCorrelationId(), false),
                userId == null ? null : new String(userId.getArray(), userId.getArrayOffset(), userId.getLength(),
                        StandardCharsets.UTF_8),
                p.getGroupId(), p.getGroupSequence() == null ? null : p.getGroupSequence().longValue(),
                p.getCreationTime() == null ? 0 : p.getCreationTime().getTime(), application);
    }

    /** An application property as JMS sees it: its primitive types and strings; null for what JMS has no type for. */
    private static Object selectableValue(Object value) {
        if (value instanceof String || value instanceof Boolean || value instanceof Byte || value instanceof Short
                || value instanceof Integer || value instanceof Long || value instanceof Float
                || value instanceof Double) {
            return value;
        }
        if (value instanceof UnsignedByte || value instanceof UnsignedShort || value instanceof UnsignedInteger) {
            return ((Number) value).longValue();
        }
        if (value instanceof UnsignedLong u) {
            return u.longValue() >= 0 ? u.longValue() : null;
        }
        if (value instanceof Symbol || value instanceof Character) {
            return value.toString();
        }
        if (value instanceof Date d) {
            return d.getTime();
        }
        return null;
    }

    /**
     * A message or correlation id as Qpid JMS shows it: a string id starting with {@code ID:} as is, other types
     * with Qpid JMS's type prefixes; a correlation id that is a string is the application's own text.
     */
    private static String jmsId(Object id, boolean messageId) {
        if (id == null) {
            return null;
        }
        if (id instanceof String s) {
            return !messageId || s.startsWith("ID:") ? s : "ID:AMQP_NO_PREFIX:" + s;
        }
        if (id instanceof UUID uuid) {
            return "ID:AMQP_UUID:" + uuid;
        }
        if (id instanceof UnsignedLong ulong) {
            return "ID:AMQP_ULONG:" + ulong;
        }
        if (id instanceof Binary binary) {
            return "ID:AMQP_BINARY:" + HexFormat.of().withUpperCase().formatHex(binary.getArray(),
                    binary.getArrayOffset(), binary.getArrayOffset() + binary.getLength());
        }
        return id.toString();
    }
}
