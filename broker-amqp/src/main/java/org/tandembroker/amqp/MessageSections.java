package org.tandembroker.amqp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecodeException;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.codec.WritableBuffer;

/**
 * Reads the leading sections of an encoded AMQP message (header, delivery and message annotations, properties,
 * application properties)
 * with Proton's decoder and stops at the first other section, so a large body is never decoded or copied.
 *
 * <p>Thread: one instance per connection, used only on that connection's event loop (Proton's decoder and
 * encoder keep state between calls).
 */
final class MessageSections {
    private static final long HEADER = 0x70L;
    private static final long DELIVERY_ANNOTATIONS = 0x71L;
    private static final long MESSAGE_ANNOTATIONS = 0x72L;
    private static final long PROPERTIES = 0x73L;
    private static final long APPLICATION_PROPERTIES = 0x74L;
    private static final long NOT_A_LEADING_SECTION = -1L;

    private final DecoderImpl decoder = new DecoderImpl();
    private final EncoderImpl encoder = new EncoderImpl(decoder);

    MessageSections() {
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
    }

    /**
     * What the leading sections say.
     *
     * @param header     the header section, or null
     * @param properties the properties section, or null
     * @param headerEnd  the offset just past a leading header section (0 without one)
     * @param messageAnnotations the message annotations, or null
     * @param applicationProperties the application properties, or null
     */
    record Leading(Header header, Properties properties, int headerEnd, Map<Symbol, Object> messageAnnotations,
                   Map<String, Object> applicationProperties) {
    }

    /** @throws DecodeException when the bytes do not start like an AMQP message or a section is malformed */
    Leading read(byte[] content) {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        if (!buffer.hasRemaining() || buffer.get(0) != 0x00) {
            throw new DecodeException("not an AMQP message: it must start with a described section");
        }
        decoder.setByteBuffer(buffer);
        Header header = null;
        Properties properties = null;
        Map<Symbol, Object> annotations = null;
        Map<String, Object> applicationProperties = null;
        int headerEnd = 0;
        try {
            while (buffer.hasRemaining()) {
                long code = leadingSectionCode(buffer);
                if (code == NOT_A_LEADING_SECTION) {
                    break;
                }
                int start = buffer.position();
                Object section = decoder.readObject();
                if (code == HEADER && section instanceof Header h) {
                    header = h;
                    if (start == 0) {
                        headerEnd = buffer.position();
                    }
                } else if (code == MESSAGE_ANNOTATIONS && section instanceof MessageAnnotations a) {
                    annotations = a.getValue();
                } else if (code == PROPERTIES && section instanceof Properties p) {
                    properties = p;
                } else if (code == APPLICATION_PROPERTIES && section instanceof ApplicationProperties a) {
                    applicationProperties = a.getValue();
                    break;
                }
            }
        } catch (DecodeException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DecodeException("malformed message section: " + e, e);
        } finally {
            decoder.setBuffer(null);
        }
        return new Leading(header, properties, headerEnd, annotations, applicationProperties);
    }

    /** Encodes a header section. */
    byte[] encode(Header header) {
        ByteBuffer buffer = ByteBuffer.allocate(64);
        encoder.setByteBuffer(buffer);
        try {
            encoder.writeObject(header);
        } finally {
            encoder.setByteBuffer((WritableBuffer) null);
        }
        byte[] bytes = new byte[buffer.position()];
        buffer.flip().get(bytes);
        return bytes;
    }

    /** The section code at the buffer's position for a header, annotations or (application) properties; else -1. */
    private static long leadingSectionCode(ByteBuffer buffer) {
        int p = buffer.position();
        if (buffer.remaining() < 3 || buffer.get(p) != 0x00) {
            return NOT_A_LEADING_SECTION;
        }
        long code = switch (buffer.get(p + 1) & 0xff) {
            case 0x53 -> buffer.get(p + 2) & 0xffL;
            case 0x80 -> buffer.remaining() >= 10 ? buffer.getLong(p + 2) : NOT_A_LEADING_SECTION;
            case 0xa3 -> symbolCode(buffer, p + 3, buffer.get(p + 2) & 0xff);
            case 0xb3 -> buffer.remaining() >= 6 ? symbolCode(buffer, p + 6, buffer.getInt(p + 2)) : NOT_A_LEADING_SECTION;
            default -> NOT_A_LEADING_SECTION;
        };
        return code >= HEADER && code <= APPLICATION_PROPERTIES ? code : NOT_A_LEADING_SECTION;
    }

    private static long symbolCode(ByteBuffer buffer, int offset, int length) {
        if (length < 0 || length > 64 || offset + length > buffer.limit()) {
            return NOT_A_LEADING_SECTION;
        }
        byte[] name = new byte[length];
        buffer.get(offset, name);
        return switch (new String(name, StandardCharsets.US_ASCII)) {
            case "amqp:header:list" -> HEADER;
            case "amqp:delivery-annotations:map" -> DELIVERY_ANNOTATIONS;
            case "amqp:message-annotations:map" -> MESSAGE_ANNOTATIONS;
            case "amqp:properties:list" -> PROPERTIES;
            case "amqp:application-properties:map" -> APPLICATION_PROPERTIES;
            default -> NOT_A_LEADING_SECTION;
        };
    }
}
