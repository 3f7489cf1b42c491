package org.tandembroker.store.bdb;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.CursorConfig;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.store.bdb.backup.StoreLock;

/**
 * What a store holds, per queue: its depth and a digest of its contents, read from a store directory that no
 * broker has open (a stopped node, or a copy of its directory). Two nodes of a replication group that converged
 * report the same lines; this is how {@code bin/store-digest} and the chaos soak compare nodes.
 *
 * <p>A queue's digest is the SHA-256 over its entries in store order (message id order), each as the message id,
 * its content size and metadata (the AMQP header, properties and annotations as stored) and its content, the same
 * bytes whether the content is stored in chunks, inline or inside the entry ({@link RecordCodec#digestedHeader}). A
 * replicated store writes the same records on every node, so the same ids and bytes. An entry whose message is
 * missing (a damaged store) counts in the depth and in {@link QueueContents#missingMessages()}.
 *
 * <p>Opens the environment read-only as a plain JE environment (JE allows that for a replicated environment's
 * files too), so nothing is written, and a broker can start on the directory afterwards.
 *
 * <p><b>Threads.</b> Stateless: {@link #read} runs in the caller's thread.
 */
public final class StoreContents {
    private StoreContents() {
    }

    /**
     * One queue's contents.
     *
     * @param queue           the queue's name
     * @param id              its configuration record's id
     * @param depth           its entries
     * @param missingMessages entries whose message record is missing
     * @param digest          SHA-256 (hex) over the entries, see the class comment
     */
    public record QueueContents(String queue, UUID id, long depth, long missingMessages, String digest) {
        /** {@code name depth digest}, plus the missing count when there are any. */
        public String line() {
            return queue + " " + depth + " " + digest + (missingMessages > 0 ? " missing=" + missingMessages : "");
        }
    }

    /**
     * Reads every queue of the store at {@code storeDirectory}, sorted by name.
     *
     * @throws IllegalArgumentException when the directory holds no JE environment
     * @throws StoreInUseException      when a broker (or any JE writer) has the store open: its files are not final
     * @throws IllegalStateException    when the store is damaged or JE refuses to open it
     */
    public static List<QueueContents> read(Path storeDirectory) {
        if (!hasLogFiles(storeDirectory)) {
            throw new IllegalArgumentException(storeDirectory + " holds no JE store (no *.jdb files)");
        }
        try (StoreLock lock = StoreLock.tryLock(storeDirectory).orElseThrow(() -> new StoreInUseException(
                "the store at " + storeDirectory + " is in use by a running broker"))) {
            return readUnlocked(storeDirectory);
        }
    }

    /** A store a writer has open: what it holds is still changing. */
    public static final class StoreInUseException extends IllegalStateException {
        StoreInUseException(String message) {
            super(message);
        }
    }

    private static List<QueueContents> readUnlocked(Path storeDirectory) {
        EnvironmentConfig config = new EnvironmentConfig().setReadOnly(true).setTransactional(true)
                .setAllowCreate(false);
        config.setConfigParam(EnvironmentConfig.ENV_RUN_CLEANER, "false");
        Environment environment = new Environment(storeDirectory.toFile(), config);
        try {
            return read(environment);
        } finally {
            environment.close();
        }
    }

    private static boolean hasLogFiles(Path directory) {
        try (var files = Files.list(directory)) {
            return files.anyMatch(p -> p.getFileName().toString().endsWith(".jdb"));
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** Reads every queue of the open {@code environment}, sorted by name. */
    public static List<QueueContents> read(Environment environment) {
        DatabaseConfig readOnly = new DatabaseConfig().setReadOnly(true).setTransactional(true);
        List<String> names = environment.getDatabaseNames();
        if (!names.contains(StoreDatabases.CONFIG_DB)) {
            return List.of();
        }
        try (Database config = environment.openDatabase(null, StoreDatabases.CONFIG_DB, readOnly);
             Database metadata = environment.openDatabase(null, StoreDatabases.METADATA_DB, readOnly);
             Database content = environment.openDatabase(null, StoreDatabases.CONTENT_DB, readOnly);
             Database entries = environment.openDatabase(null, StoreDatabases.ENTRIES_DB, readOnly)) {
            Map<UUID, String> queues = new LinkedHashMap<>();
            DatabaseEntry key = new DatabaseEntry();
            DatabaseEntry value = new DatabaseEntry();
            try (Cursor cursor = config.openCursor(null, CursorConfig.READ_COMMITTED)) {
                while (cursor.getNext(key, value, null) == OperationStatus.SUCCESS) {
                    ConfigRecord record = RecordCodec.configRecord(key.getData(), value.getData());
                    if (record.type().equals(ConfigRecord.QUEUE)) {
                        queues.put(record.id(), record.attributes().getOrDefault("name", record.id().toString()));
                    }
                }
            }
            TreeMap<String, QueueContents> byName = new TreeMap<>();
            for (Map.Entry<UUID, String> queue : queues.entrySet()) {
                QueueContents contents = queue(queue.getKey(), queue.getValue(), metadata, content, entries);
                byName.put(contents.queue() + "\u0000" + contents.id(), contents);
            }
            return new ArrayList<>(byName.values());
        }
    }

    private static QueueContents queue(UUID id, String name, Database metadata, Database content, Database entries) {
        MessageDigest digest = sha256();
        long depth = 0;
        long missing = 0;
        DatabaseEntry key = new DatabaseEntry(RecordCodec.entryKey(id, 0));
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        DatabaseEntry value = new DatabaseEntry();
        try (Cursor cursor = entries.openCursor(null, CursorConfig.READ_COMMITTED)) {
            OperationStatus status = cursor.getSearchKeyRange(key, noData, null);
            while (status == OperationStatus.SUCCESS && RecordCodec.entryQueue(key.getData()).equals(id)) {
                long messageId = RecordCodec.entryMessageId(key.getData());
                depth++;
                digest.update(ByteBuffer.allocate(Long.BYTES).putLong(messageId).array());
                if (RecordCodec.holdsMessage(key.getData())
                        && cursor.getCurrent(key, value, null) == OperationStatus.SUCCESS) {
                    digest.update(RecordCodec.digestedHeader(value.getData()));
                    digest.update(RecordCodec.inlineContent(value.getData()));
                } else if (metadata.get(null, new DatabaseEntry(RecordCodec.messageKey(messageId)), value,
                        LockMode.READ_COMMITTED) == OperationStatus.SUCCESS) {
                    byte[] stored = value.getData();
                    digest.update(RecordCodec.digestedHeader(stored));
                    if (RecordCodec.hasInlineContent(stored)) {
                        digest.update(RecordCodec.inlineContent(stored));
                    } else {
                        digestChunks(messageId, RecordCodec.contentSize(stored), content, digest);
                    }
                } else {
                    missing++;
                    digest.update((byte) 0);
                }
                status = cursor.getNext(key, noData, null);
            }
        }
        return new QueueContents(name, id, depth, missing, HexFormat.of().formatHex(digest.digest()));
    }

    private static void digestChunks(long messageId, int size, Database content, MessageDigest digest) {
        DatabaseEntry chunk = new DatabaseEntry();
        int read = 0;
        for (int index = 0; read < size; index++) {
            if (content.get(null, new DatabaseEntry(RecordCodec.chunkKey(messageId, index)), chunk,
                    LockMode.READ_COMMITTED) != OperationStatus.SUCCESS || chunk.getSize() == 0) {
                throw new IllegalStateException("content of message " + messageId + " is damaged: " + read + " of "
                        + size + " bytes readable");
            }
            digest.update(chunk.getData(), chunk.getOffset(), chunk.getSize());
            read += chunk.getSize();
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
