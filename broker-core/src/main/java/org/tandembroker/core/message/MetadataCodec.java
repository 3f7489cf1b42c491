package org.tandembroker.core.message;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The store's encoding of {@link MessageMetadata}: a version byte, then fixed fields, then optional strings. */
public final class MetadataCodec {
    private static final byte VERSION = 1;
    private static final int HAS_TO = 1;
    private static final int HAS_SUBJECT = 2;
    private static final int PERSISTENT = 4;

    private MetadataCodec() {
    }

    public static byte[] encode(MessageMetadata m) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(48);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static MessageMetadata decode(byte[] encoded) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown message metadata version " + version);
            }
            int flags = in.readByte();
            int priority = in.readByte();
            long expiresAt = in.readLong();
            long arrival = in.readLong();
            int size = in.readInt();
            String to = (flags & HAS_TO) != 0 ? in.readUTF() : null;
            String subject = (flags & HAS_SUBJECT) != 0 ? in.readUTF() : null;
            return new MessageMetadata(to, subject, (flags & PERSISTENT) != 0, priority, expiresAt, arrival, size);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
