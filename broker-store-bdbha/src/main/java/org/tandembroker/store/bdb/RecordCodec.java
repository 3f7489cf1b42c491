package org.tandembroker.store.bdb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.tandembroker.core.store.ConfigRecord;

/**
 * The on-disk encoding of keys and values (schema version {@link StoreDatabases#SCHEMA_VERSION}). Keys are
 * big-endian so that JE's default unsigned byte-wise key order is numeric order: message ids ascend, a message's
 * content chunks are contiguous and in order, and a queue's entries are contiguous and in id (= enqueue) order.
 * Stateless.
 *
 * <pre>
 * config           key: uuid (16)                 value: string type, int n, n x (string name, string value)
 * message metadata key: long id (8)               value: int contentSize, metadata bytes (rest of the value)
 * message content  key: long id, int chunk (12)   value: chunk bytes (all chunks but the last are full)
 * queue entries    key: uuid queue, long id (24)  value: empty
 * string = int length, UTF-8 bytes
 * </pre>
 */
final class RecordCodec {
    private static final byte[] EMPTY = new byte[0];

    private RecordCodec() {
    }

    static byte[] messageKey(long messageId) {
        return ByteBuffer.allocate(Long.BYTES).putLong(messageId).array();
    }

    static long messageId(byte[] messageKey) {
        return ByteBuffer.wrap(messageKey).getLong();
    }

    static byte[] chunkKey(long messageId, int chunkIndex) {
        return ByteBuffer.allocate(Long.BYTES + Integer.BYTES).putLong(messageId).putInt(chunkIndex).array();
    }

    static long chunkMessageId(byte[] chunkKey) {
        return ByteBuffer.wrap(chunkKey).getLong();
    }

    static int chunkIndex(byte[] chunkKey) {
        return ByteBuffer.wrap(chunkKey).getInt(Long.BYTES);
    }

    static byte[] uuidKey(UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits())
                .array();
    }

    static UUID uuid(byte[] key) {
        ByteBuffer buffer = ByteBuffer.wrap(key);
        return new UUID(buffer.getLong(), buffer.getLong());
    }

    static byte[] entryKey(UUID queueId, long messageId) {
        return ByteBuffer.allocate(24).putLong(queueId.getMostSignificantBits())
                .putLong(queueId.getLeastSignificantBits()).putLong(messageId).array();
    }

    static UUID entryQueue(byte[] entryKey) {
        return uuid(entryKey);
    }

    static long entryMessageId(byte[] entryKey) {
        return ByteBuffer.wrap(entryKey).getLong(16);
    }

    static byte[] entryValue() {
        return EMPTY;
    }

    static byte[] metadataValue(int contentSize, byte[] metadata) {
        return ByteBuffer.allocate(Integer.BYTES + metadata.length).putInt(contentSize).put(metadata).array();
    }

    static int contentSize(byte[] metadataValue) {
        return ByteBuffer.wrap(metadataValue).getInt();
    }

    static byte[] metadata(byte[] metadataValue) {
        byte[] metadata = new byte[metadataValue.length - Integer.BYTES];
        System.arraycopy(metadataValue, Integer.BYTES, metadata, 0, metadata.length);
        return metadata;
    }

    static byte[] configValue(ConfigRecord record) {
        Map<String, String> sorted = new TreeMap<>(record.attributes());
        byte[] type = utf8(record.type());
        int size = Integer.BYTES + type.length + Integer.BYTES;
        byte[][] parts = new byte[sorted.size() * 2][];
        int i = 0;
        for (Map.Entry<String, String> attribute : sorted.entrySet()) {
            parts[i] = utf8(attribute.getKey());
            parts[i + 1] = utf8(attribute.getValue());
            size += 2 * Integer.BYTES + parts[i].length + parts[i + 1].length;
            i += 2;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.putInt(type.length).put(type).putInt(sorted.size());
        for (byte[] part : parts) {
            buffer.putInt(part.length).put(part);
        }
        return buffer.array();
    }

    static ConfigRecord configRecord(byte[] key, byte[] value) {
        ByteBuffer buffer = ByteBuffer.wrap(value);
        String type = string(buffer);
        int count = buffer.getInt();
        Map<String, String> attributes = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            attributes.put(string(buffer), string(buffer));
        }
        return new ConfigRecord(uuid(key), type, attributes);
    }

    static byte[] intValue(int value) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(value).array();
    }

    static int intValue(byte[] value) {
        return ByteBuffer.wrap(value).getInt();
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.getInt()];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
