package org.tandembroker.amqp;

import java.util.Date;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.vhost.AddressKind;

/**
 * Builds the core's {@link MessageMetadata} from an encoded AMQP message: header.durable, priority and ttl, and
 * properties.to, subject and absolute-expiry-time. The content itself stays the client's original bytes.
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
        return new Decoded(new MessageMetadata(to, subject, persistent, priority, expiresAt, nowMillis, content.length),
                TerminusCapabilities.kindOf(leading.messageAnnotations()));
    }
}
