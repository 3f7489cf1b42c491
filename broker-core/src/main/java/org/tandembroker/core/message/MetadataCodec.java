package org.tandembroker.core.message;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The store's encoding of {@link MessageMetadata}: a version byte, then fixed fields, then optional strings.
 *
 * <p>Version 1 (every store written before message properties) is still read, and still written for a message
 * without {@link MessageProperties}; version 2 appends the properties: a presence byte, the headers present, then the
 * application properties as (name, type tag, value). Strings of the properties are length-prefixed UTF-8 (a
 * property may be longer than {@code writeUTF}'s 64 KiB). Version 3, written only for a message with a delivery
 * time, is version 2 followed by that time (a long, epoch millis); a message without one is written as before, so
 * a store written by this version is read by the previous one unless it holds delayed messages.
 */
public final class MetadataCodec {
    private static final byte VERSION_1 = 1;
    private static final byte VERSION_2 = 2;
    private static final byte VERSION_3 = 3;
    private static final int HAS_TO = 1;
    private static final int HAS_SUBJECT = 2;
    private static final int PERSISTENT = 4;

    private static final int HAS_MESSAGE_ID = 1;
    private static final int HAS_CORRELATION_ID = 2;
    private static final int HAS_USER_ID = 4;
    private static final int HAS_GROUP_ID = 8;
    private static final int HAS_GROUP_SEQUENCE = 16;
    private static final int HAS_CREATION_TIME = 32;

    private static final byte STRING = 1;
    private static final byte BOOLEAN = 2;
    private static final byte BYTE = 3;
    private static final byte SHORT = 4;
    private static final byte INT = 5;
    private static final byte LONG = 6;
    private static final byte FLOAT = 7;
    private static final byte DOUBLE = 8;

    private MetadataCodec() {
    }

    /** The priority of encoded metadata, without decoding the rest (every version keeps it at the same place). */
    public static int priority(byte[] encoded) {
        if (encoded.length < 3 || encoded[0] < VERSION_1 || encoded[0] > VERSION_3) {
            throw new IllegalArgumentException("not encoded metadata (version " + (encoded.length == 0 ? "none"
                    : encoded[0]) + ", " + encoded.length + " bytes)");
        }
        return encoded[2];
    }

    public static byte[] encode(MessageMetadata m) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(48);
        boolean withDeliveryTime = m.deliverAtMillis() != 0;
        boolean withProperties = withDeliveryTime || !m.properties().isEmpty();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(withDeliveryTime ? VERSION_3 : withProperties ? VERSION_2 : VERSION_1);
            int flags = (m.to() != null ? HAS_TO : 0) | (m.subject() != null ? HAS_SUBJECT : 0)
                    | (m.persistent() ? PERSISTENT : 0);
            out.writeByte(flags);
            out.writeByte(m.priority());
            out.writeLong(m.expiresAtMillis());
            out.writeLong(m.arrivalMillis());
            out.writeInt(m.contentSize());
            if (m.to() != null) {
                out.writeUTF(m.to());
            }
            if (m.subject() != null) {
                out.writeUTF(m.subject());
            }
            if (withProperties) {
                writeProperties(out, m.properties());
            }
            if (withDeliveryTime) {
                out.writeLong(m.deliverAtMillis());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static MessageMetadata decode(byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            byte version = in.readByte();
            if (version != VERSION_1 && version != VERSION_2 && version != VERSION_3) {
                throw new IllegalArgumentException("unknown message metadata version " + version);
            }
            int flags = in.readByte();
            int priority = in.readByte();
            long expiresAt = in.readLong();
            long arrival = in.readLong();
            int size = in.readInt();
            String to = (flags & HAS_TO) != 0 ? in.readUTF() : null;
            String subject = (flags & HAS_SUBJECT) != 0 ? in.readUTF() : null;
            MessageProperties properties = version >= VERSION_2 ? readProperties(in) : MessageProperties.NONE;
            long deliverAt = version == VERSION_3 ? in.readLong() : 0;
            return new MessageMetadata(to, subject, (flags & PERSISTENT) != 0, priority, expiresAt, arrival, size,
                    properties, deliverAt);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeProperties(DataOutputStream out, MessageProperties p) throws IOException {
        int present = (p.messageId() != null ? HAS_MESSAGE_ID : 0)
                | (p.correlationId() != null ? HAS_CORRELATION_ID : 0)
                | (p.userId() != null ? HAS_USER_ID : 0)
                | (p.groupId() != null ? HAS_GROUP_ID : 0)
                | (p.groupSequence() != null ? HAS_GROUP_SEQUENCE : 0)
                | (p.creationTime() != 0 ? HAS_CREATION_TIME : 0);
        out.writeByte(present);
        writeString(out, p.messageId());
        writeString(out, p.correlationId());
        writeString(out, p.userId());
        writeString(out, p.groupId());
        if (p.groupSequence() != null) {
            out.writeLong(p.groupSequence());
        }
        if (p.creationTime() != 0) {
            out.writeLong(p.creationTime());
        }
        out.writeInt(p.application().size());
        for (Map.Entry<String, Object> property : p.application().entrySet()) {
            writeString(out, property.getKey());
            Object value = property.getValue();
            if (value instanceof String s) {
                out.writeByte(STRING);
                writeString(out, s);
            } else if (value instanceof Boolean b) {
                out.writeByte(BOOLEAN);
                out.writeBoolean(b);
            } else if (value instanceof Byte b) {
                out.writeByte(BYTE);
                out.writeByte(b);
            } else if (value instanceof Short s) {
                out.writeByte(SHORT);
                out.writeShort(s);
            } else if (value instanceof Integer i) {
                out.writeByte(INT);
                out.writeInt(i);
            } else if (value instanceof Long l) {
                out.writeByte(LONG);
                out.writeLong(l);
            } else if (value instanceof Float f) {
                out.writeByte(FLOAT);
                out.writeFloat(f);
            } else if (value instanceof Double d) {
                out.writeByte(DOUBLE);
                out.writeDouble(d);
            } else {
                throw new IllegalArgumentException("property '" + property.getKey() + "' has a value of type "
                        + value.getClass().getName() + ", which message metadata does not hold");
            }
        }
    }

    private static MessageProperties readProperties(DataInputStream in) throws IOException {
        int present = in.readByte();
        String messageId = (present & HAS_MESSAGE_ID) != 0 ? readString(in) : null;
        String correlationId = (present & HAS_CORRELATION_ID) != 0 ? readString(in) : null;
        String userId = (present & HAS_USER_ID) != 0 ? readString(in) : null;
        String groupId = (present & HAS_GROUP_ID) != 0 ? readString(in) : null;
        Long groupSequence = (present & HAS_GROUP_SEQUENCE) != 0 ? in.readLong() : null;
        long creationTime = (present & HAS_CREATION_TIME) != 0 ? in.readLong() : 0;
        int count = in.readInt();
        Map<String, Object> application = count == 0 ? Map.of() : new LinkedHashMap<>(count * 2);
        for (int i = 0; i < count; i++) {
            String name = readString(in);
            byte type = in.readByte();
            Object value = switch (type) {
                case STRING -> readString(in);
                case BOOLEAN -> in.readBoolean();
                case BYTE -> in.readByte();
                case SHORT -> in.readShort();
                case INT -> in.readInt();
                case LONG -> in.readLong();
                case FLOAT -> in.readFloat();
                case DOUBLE -> in.readDouble();
                default -> throw new IllegalArgumentException("unknown property type " + type + " of '" + name + "'");
            };
            application.put(name, value);
        }
        return new MessageProperties(messageId, correlationId, userId, groupId, groupSequence, creationTime,
                count == 0 ? application : Collections.unmodifiableMap(application));
    }

    /** Writes {@code s} when not null (the presence byte says whether it is there). */
    private static void writeString(DataOutputStream out, String s) throws IOException {
        if (s != null) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            out.writeInt(utf8.length);
            out.write(utf8);
        }
    }

    private static String readString(DataInputStream in) throws IOException {
        byte[] utf8 = new byte[in.readInt()];
        in.readFully(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }
}
