package org.tandembroker.store.bdb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
 * message metadata key: long id (8)               value, content in chunks: int contentSize, metadata bytes (the rest)
 *                                                 value, content inline:    int (contentSize | INLINE), int metadata
 *                                                                           length, metadata bytes, content bytes
 * message content  key: long id, int chunk (12)   value: chunk bytes (all chunks but the last are full)
 * queue entries    key: uuid queue, long id (24)  value: int contentSize, byte priority (5): the entry's summary
 *                                                 (version 2), or empty (version 1, or a message stored in another
 *                                                 transaction)
 *                  key: uuid queue, long id,      value: empty, or when the key says so, the message itself as an
 *                       int (contentSize | HELD),        inline metadata value (version 3)
 *                       byte priority (29)
 * string = int length, UTF-8 bytes
 * </pre>
 *
 * <p>Version 2 added inline content: a body of at most {@link StoreDatabases#INLINE_CONTENT_LIMIT} bytes is kept in
 * its message's metadata record (one record per message instead of two). Version 1 stores hold every body in
 * chunks; they read the same, since a version 1 value never has the {@code INLINE} bit (sizes are below 2 GiB).
 * Version 2 also keeps an entry's summary in its value, small enough for JE to keep inside its B-tree node, so that
 * recovery reads the entries beyond a queue's heap window without reading their messages.
 *
 * <p>Version 3 moves an entry's summary into its key (still in enqueue order: ids are unique within a queue) and lets
 * an entry hold its message: a message stored with a body of at most the inline limit and enqueued on one queue in
 * the same transaction is that entry's value, one record per message instead of two. Such an entry is its message's
 * only record. Keys of 24 bytes (versions 1 and 2, or a message moved from another record) and of 29 bytes sort
 * together by queue and id.
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

    static final int SUMMARY_KEY_SIZE = 24 + Integer.BYTES + 1;

    /** The high bit of a summary key's size: the entry's value is its message (an inline metadata value). */
    private static final int HELD = 0x8000_0000;

    /** An entry's key with its message's summary (schema version 3); {@code holdsMessage}: its value is the message. */
    static byte[] entryKey(UUID queueId, long messageId, int contentSize, int priority, boolean holdsMessage) {
        return ByteBuffer.allocate(SUMMARY_KEY_SIZE).putLong(queueId.getMostSignificantBits())
                .putLong(queueId.getLeastSignificantBits()).putLong(messageId)
                .putInt(holdsMessage ? contentSize | HELD : contentSize).put((byte) priority).array();
    }

    static boolean hasKeySummary(byte[] entryKey) {
        return entryKey.length == SUMMARY_KEY_SIZE;
    }

    /** Whether the entry of this key holds its message in its value (schema version 3). */
    static boolean holdsMessage(byte[] entryKey) {
        return hasKeySummary(entryKey) && (ByteBuffer.wrap(entryKey).getInt(24) & HELD) != 0;
    }

    static int keyContentSize(byte[] entryKey) {
        return ByteBuffer.wrap(entryKey).getInt(24) & ~HELD;
    }

    static int keyPriority(byte[] entryKey) {
        return entryKey[28];
    }

    static byte[] entryValue() {
        return EMPTY;
    }

    static final int ENTRY_SUMMARY_SIZE = Integer.BYTES + 1;

    /** An entry's value with its message's summary (schema version 2). */
    static byte[] entryValue(int contentSize, int priority) {
        return ByteBuffer.allocate(ENTRY_SUMMARY_SIZE).putInt(contentSize).put((byte) priority).array();
    }

    static boolean hasEntrySummary(byte[] entryValue) {
        return entryValue.length == ENTRY_SUMMARY_SIZE;
    }

    static int entryContentSize(byte[] entryValue) {
        return ByteBuffer.wrap(entryValue).getInt();
    }

    static int entryPriority(byte[] entryValue) {
        return entryValue[Integer.BYTES];
    }

    /** The high bit of a metadata value's first int: the content follows the metadata in the same value. */
    private static final int INLINE = 0x8000_0000;

    /** A metadata value of a message whose content is stored in chunks. */
    static byte[] metadataValue(int contentSize, byte[] metadata) {
        return ByteBuffer.allocate(Integer.BYTES + metadata.length).putInt(contentSize).put(metadata).array();
    }

    /** A metadata value that holds the content too (schema version 2). */
    static byte[] inlineMessageValue(byte[] metadata, byte[] content) {
        return ByteBuffer.allocate(2 * Integer.BYTES + metadata.length + content.length)
                .putInt(content.length | INLINE).putInt(metadata.length).put(metadata).put(content).array();
    }

    static int contentSize(byte[] metadataValue) {
        return ByteBuffer.wrap(metadataValue).getInt() & ~INLINE;
    }

    static boolean hasInlineContent(byte[] metadataValue) {
        return (ByteBuffer.wrap(metadataValue).getInt() & INLINE) != 0;
    }

    static byte[] metadata(byte[] metadataValue) {
        ByteBuffer value = ByteBuffer.wrap(metadataValue);
        boolean inline = (value.getInt() & INLINE) != 0;
        int offset = inline ? 2 * Integer.BYTES : Integer.BYTES;
        int length = inline ? value.getInt() : metadataValue.length - Integer.BYTES;
        return Arrays.copyOfRange(metadataValue, offset, offset + length);
    }

    /** The content of a value with {@link #hasInlineContent}: its last {@link #contentSize} bytes. */
    static byte[] inlineContent(byte[] metadataValue) {
        return Arrays.copyOfRange(metadataValue, metadataValue.length - contentSize(metadataValue),
                metadataValue.length);
    }

    /**
     * The bytes a store digest covers for a message, whatever the schema version stored it with: its content size,
     * then its metadata (a version 1 value exactly); the content follows in {@link #inlineContent} or the chunks.
     */
    static byte[] digestedHeader(byte[] metadataValue) {
        byte[] metadata = metadata(metadataValue);
        return ByteBuffer.allocate(Integer.BYTES + metadata.length).putInt(contentSize(metadataValue)).put(metadata)
                .array();
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
