package org.tandembroker.store.bdb;

import com.sleepycat.je.CacheMode;
import com.sleepycat.je.Cursor;
import com.sleepycat.je.CursorConfig;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.Put;
import com.sleepycat.je.Transaction;
import com.sleepycat.je.TransactionConfig;
import com.sleepycat.je.WriteOptions;
import com.sleepycat.je.txn.Txn;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.store.EntrySummary;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoredEntry;

/**
 * The store's JE databases and everything that reads or writes them: the only class that sees JE's
 * {@code Database}, {@code Cursor} and {@code Transaction}. Layout and encoding: {@link RecordCodec}.
 *
 * <p><b>Threads.</b> No mutable state after {@link #open}: the handles are thread-safe. Writes
 * ({@link #apply}) run on the committer thread(s); {@link #readContent}, {@link #readEntries},
 * {@link #readEntrySummaries}, {@link #readMessages} and {@link #readMessageIds} on the reader thread;
 * {@link #recoverConfiguration} on the virtual host's activation thread. {@link #close()} runs after all of them
 * stopped.
 *
 * <p><b>Locking.</b> Several committer threads may apply transactions at once (the replicated store), and JE
 * keeps a transaction's write locks until its replica acknowledgements arrived. So the range scans of a removal
 * and the reads of content never lock the record after their own range (the next message's first chunk, the
 * next queue's first entry), which may belong to a neighbour still waiting for its acknowledgements: scans read
 * uncommitted and lock only what they delete, content is read by exact chunk keys.
 */
public final class StoreDatabases implements AutoCloseable {

    /**
     * Version of the layout in {@link RecordCodec}. A version 1 store (every body in chunks) is read as it is and
     * marked version 2 when a master or standalone broker opens it, before it writes anything, so that an older
     * broker refuses it; any other version is refused.
     */
    public static final int SCHEMA_VERSION = 2;

    /** The schema version this broker reads and upgrades: every body in chunks, nothing inline. */
    static final int CHUNKED_ONLY_SCHEMA_VERSION = 1;

    /**
     * Bodies up to this size are stored inside their message's metadata record: one record to log, replicate, replay
     * and delete per message instead of two. Larger bodies go to the content database in chunks.
     */
    public static final int INLINE_CONTENT_LIMIT = 8 * 1024;

    /** Bodies are read at most once (on delivery, when not on the heap): a record that holds one leaves JE's cache. */
    private static final WriteOptions LEAVES_THE_CACHE = new WriteOptions().setCacheMode(CacheMode.EVICT_LN);

    /** Content is stored in chunks of this size so that a large message is not one large JE record. */
    public static final int CHUNK_SIZE = 256 * 1024;

    static final String SCHEMA_DB = "tandem_schema";
    static final String CONFIG_DB = "tandem_config";
    static final String METADATA_DB = "tandem_message_metadata";
    static final String CONTENT_DB = "tandem_message_content";
    static final String ENTRIES_DB = "tandem_queue_entries";
    private static final List<String> ALL = List.of(SCHEMA_DB, CONFIG_DB, METADATA_DB, CONTENT_DB, ENTRIES_DB);
    private static final byte[] SCHEMA_KEY = RecordCodec.utf8("version");
    private static final VarHandle LONG_BIG_ENDIAN =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final Environment environment;
    private final Database schema;
    private final Database config;
    private final Database metadata;
    private final Database content;
    private final Database entries;

    private StoreDatabases(Environment environment, Database schema, Database config, Database metadata,
                           Database content, Database entries) {
        this.environment = environment;
        this.schema = schema;
        this.config = config;
        this.metadata = metadata;
        this.content = content;
        this.entries = entries;
    }

    /**
     * Opens (creating if needed) the store's databases in {@code environment} and checks the schema version.
     *
     * @throws IllegalStateException when the environment holds another schema version or foreign databases
     */
    public static StoreDatabases open(Environment environment) {
        return open(environment, Set.of());
    }

    /**
     * Like {@link #open(Environment)}, in an environment that may also hold {@code otherDatabases} (e.g. the
     * replicated store's heartbeat database).
     */
    public static StoreDatabases open(Environment environment, Set<String> otherDatabases) {
        List<String> foreign = new ArrayList<>(environment.getDatabaseNames());
        foreign.removeAll(ALL);
        foreign.removeAll(otherDatabases);
        if (!foreign.isEmpty()) {
            throw new IllegalStateException("the environment at " + environment.getHome()
                    + " is not a Tandem store: it holds databases " + foreign);
        }
        DatabaseConfig databaseConfig = new DatabaseConfig().setTransactional(true).setAllowCreate(true);
        List<Database> opened = new ArrayList<>();
        // One transaction that waits for no replica: a new master opens its handles (and recovers) while its
        // replicas or arbiter are still connecting to it; an autocommit open would wait for them at its begin
        // (je.rep.insufficientReplicasTimeout). Opening existing databases writes nothing; a first open creates
        // them, and the schema record below is committed with SYNC and a majority, which covers that creation.
        Transaction opening = environment.beginTransaction(null, new TransactionConfig().setDurability(OPENING));
        try {
            Database schema = open(environment, opening, SCHEMA_DB, databaseConfig, opened);
            StoreDatabases databases = new StoreDatabases(environment, schema,
                    open(environment, opening, CONFIG_DB, databaseConfig, opened),
                    open(environment, opening, METADATA_DB, databaseConfig, opened),
                    // Bodies are read at most once (on delivery, when not on the heap): keep them out of JE's cache.
                    open(environment, opening, CONTENT_DB, contentConfig(databaseConfig), opened),
                    open(environment, opening, ENTRIES_DB, databaseConfig, opened));
            opening.commit();
            opening = null;
            checkSchema(environment, schema);
            return databases;
        } catch (RuntimeException e) {
            if (opening != null) {
                abortIfOpen(opening);
            }
            for (Database database : opened) {
                closeQuietly(database, e);
            }
            throw e;
        }
    }

    /** The schema upgrade's durability: fsynced here, no acknowledgement (see {@link #checkSchema}). */
    private static final Durability UPGRADING = new Durability(Durability.SyncPolicy.SYNC,
            Durability.SyncPolicy.NO_SYNC, Durability.ReplicaAckPolicy.NONE);

    /** The opening transaction's durability: no fsync, no acknowledgement (see {@link #open(Environment, Set)}). */
    private static final Durability OPENING = new Durability(Durability.SyncPolicy.NO_SYNC,
            Durability.SyncPolicy.NO_SYNC, Durability.ReplicaAckPolicy.NONE);

    private static DatabaseConfig contentConfig(DatabaseConfig base) {
        return base.clone().setCacheMode(CacheMode.EVICT_LN);
    }

    private static Database open(Environment environment, Transaction opening, String name,
                                 DatabaseConfig databaseConfig, List<Database> opened) {
        Database database = environment.openDatabase(opening, name, databaseConfig);
        opened.add(database);
        return database;
    }

    private static void checkSchema(Environment environment, Database schema) {
        DatabaseEntry value = new DatabaseEntry();
        Durability durability = Durability.COMMIT_SYNC;
        if (schema.get(null, new DatabaseEntry(SCHEMA_KEY), value, LockMode.READ_COMMITTED)
                == OperationStatus.SUCCESS) {
            int version = RecordCodec.intValue(value.getData());
            if (version == SCHEMA_VERSION) {
                return;
            }
            if (version != CHUNKED_ONLY_SCHEMA_VERSION) {
                throw new IllegalStateException("the store at " + environment.getHome() + " has schema version "
                        + version + "; this broker reads versions " + CHUNKED_ONLY_SCHEMA_VERSION + " and "
                        + SCHEMA_VERSION);
            }
            // The upgrade waits for no replica: the record precedes every inline record in the log, so a node that
            // holds one holds the new version too (a master that dies first leaves the upgrade to the next).
            durability = UPGRADING;
        }
        Transaction txn = environment.beginTransaction(null, new TransactionConfig().setDurability(durability));
        try {
            schema.put(txn, new DatabaseEntry(SCHEMA_KEY), new DatabaseEntry(RecordCodec.intValue(SCHEMA_VERSION)));
            txn.commit();
        } finally {
            abortIfOpen(txn);
        }
    }

    /**
     * Applies {@code changes} as one JE transaction committed with {@code durability}. Throws JE's exception
     * when the transaction could not commit (it is then aborted: none of its changes is visible).
     */
    public void apply(ChangeSet changes, Durability durability) {
        apply(List.of(changes), durability);
    }

    /**
     * Commits several change sets, applied in list order, as one transaction with {@code durability}: all of them
     * or none (a group commit of independent clients' change sets).
     */
    public void apply(List<ChangeSet> batch, Durability durability) {
        applyAt(batch, durability);
    }

    /**
     * Like {@link #apply(List, Durability)}, and returns where the commit record is in the log
     * ({@link JeLogPosition#commitPosition}), so that a group commit can tell whether a flush covered it.
     */
    public long applyAt(List<ChangeSet> batch, Durability durability) {
        Transaction txn = environment.beginTransaction(null, new TransactionConfig().setDurability(durability));
        Txn internal = JeLogPosition.internal(txn);
        try {
            for (ChangeSet changes : batch) {
                MessagesStored stored = MessagesStored.in(changes);
                for (ChangeSet.Operation operation : changes.operations()) {
                    apply(txn, operation, stored);
                }
            }
            txn.commit();
            return JeLogPosition.commitPosition(internal);
        } finally {
            abortIfOpen(txn);
        }
    }

    /** The position of the last record written to the log so far ({@link JeLogPosition#end}). */
    public long logEnd() {
        return JeLogPosition.end(environment);
    }

    private void apply(Transaction txn, ChangeSet.Operation operation, MessagesStored stored) {
        if (operation instanceof ChangeSet.StoreMessage m) {
            storeMessage(txn, m);
        } else if (operation instanceof ChangeSet.Enqueue e) {
            entries.put(txn, new DatabaseEntry(RecordCodec.entryKey(e.queueId(), e.messageId())),
                    new DatabaseEntry(entryValue(stored.find(e.messageId()))));
        } else if (operation instanceof ChangeSet.Dequeue d) {
            entries.delete(txn, new DatabaseEntry(RecordCodec.entryKey(d.queueId(), d.messageId())));
        } else if (operation instanceof ChangeSet.RemoveMessage r) {
            removeMessage(txn, r.messageId());
        } else if (operation instanceof ChangeSet.PutConfig p) {
            config.put(txn, new DatabaseEntry(RecordCodec.uuidKey(p.record().id())),
                    new DatabaseEntry(RecordCodec.configValue(p.record())));
        } else if (operation instanceof ChangeSet.RemoveConfig r) {
            config.delete(txn, new DatabaseEntry(RecordCodec.uuidKey(r.id())));
            removeEntriesOf(txn, r.id());
        } else {
            throw new IllegalArgumentException("unknown operation " + operation);
        }
    }

    /**
     * An entry's value: its message's summary when the message is stored in the same change set (as a publish
     * stores it), else empty (a message moved to another queue later), which recovery reads from the message.
     */
    private static byte[] entryValue(ChangeSet.StoreMessage storedWithIt) {
        if (storedWithIt == null) {
            return RecordCodec.entryValue();
        }
        try {
            return RecordCodec.entryValue(storedWithIt.content().length,
                    MetadataCodec.priority(storedWithIt.metadata()));
        } catch (IllegalArgumentException notMetadata) {
            return RecordCodec.entryValue();
        }
    }

    /**
     * The messages a change set stores, found by id: by scanning the set when it is as small as a publish's (no
     * map built on the hot path), through an index built once when it is larger (a client transaction of n
     * messages would otherwise scan its set once per entry, n² steps). The first message of an id wins, as a scan
     * finds it.
     */
    private static final class MessagesStored {
        /** Up to this many operations a scan is cheaper than an index. */
        private static final int SCANNED_UP_TO = 16;

        private final ChangeSet changes;
        private final Map<Long, ChangeSet.StoreMessage> byId;

        private MessagesStored(ChangeSet changes, Map<Long, ChangeSet.StoreMessage> byId) {
            this.changes = changes;
            this.byId = byId;
        }

        static MessagesStored in(ChangeSet changes) {
            if (changes.operations().size() <= SCANNED_UP_TO) {
                return new MessagesStored(changes, null);
            }
            Map<Long, ChangeSet.StoreMessage> byId = new HashMap<>();
            for (ChangeSet.Operation operation : changes.operations()) {
                if (operation instanceof ChangeSet.StoreMessage m) {
                    byId.putIfAbsent(m.messageId(), m);
                }
            }
            return new MessagesStored(changes, byId);
        }

        /** The change set's message of this id, or null when it stores none. */
        ChangeSet.StoreMessage find(long messageId) {
            if (byId != null) {
                return byId.get(messageId);
            }
            for (ChangeSet.Operation operation : changes.operations()) {
                if (operation instanceof ChangeSet.StoreMessage m && m.messageId() == messageId) {
                    return m;
                }
            }
            return null;
        }
    }

    private void storeMessage(Transaction txn, ChangeSet.StoreMessage message) {
        byte[] body = message.content();
        DatabaseEntry key = new DatabaseEntry(RecordCodec.messageKey(message.messageId()));
        if (body.length <= INLINE_CONTENT_LIMIT) {
            metadata.put(txn, key, new DatabaseEntry(RecordCodec.inlineMessageValue(message.metadata(), body)),
                    Put.OVERWRITE, LEAVES_THE_CACHE);
            return;
        }
        metadata.put(txn, key, new DatabaseEntry(RecordCodec.metadataValue(body.length, message.metadata())));
        for (int offset = 0, chunk = 0; offset < body.length; offset += CHUNK_SIZE, chunk++) {
            content.put(txn, new DatabaseEntry(RecordCodec.chunkKey(message.messageId(), chunk)),
                    new DatabaseEntry(body, offset, Math.min(CHUNK_SIZE, body.length - offset)));
        }
    }

    /**
     * Deletes the metadata record without reading it (JE deletes a record without fetching it), then any chunks: for
     * a message with inline content the chunk scan finds none and writes nothing.
     */
    private void removeMessage(Transaction txn, long messageId) {
        metadata.delete(txn, new DatabaseEntry(RecordCodec.messageKey(messageId)));
        DatabaseEntry key = new DatabaseEntry(RecordCodec.chunkKey(messageId, 0));
        DatabaseEntry data = new DatabaseEntry();
        data.setPartial(0, 0, true);
        try (Cursor cursor = content.openCursor(txn, null)) {
            OperationStatus status = cursor.getSearchKeyRange(key, data, LockMode.READ_UNCOMMITTED);
            while (status == OperationStatus.SUCCESS && RecordCodec.chunkMessageId(key.getData()) == messageId) {
                cursor.delete();
                status = cursor.getNext(key, data, LockMode.READ_UNCOMMITTED);
            }
        }
    }

    /** Removes every entry of queue {@code queueId} (none unless the removed record was a queue's). */
    private void removeEntriesOf(Transaction txn, UUID queueId) {
        DatabaseEntry key = new DatabaseEntry(RecordCodec.entryKey(queueId, 0));
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        try (Cursor cursor = entries.openCursor(txn, null)) {
            OperationStatus status = cursor.getSearchKeyRange(key, noData, LockMode.READ_UNCOMMITTED);
            while (status == OperationStatus.SUCCESS && RecordCodec.entryQueue(key.getData()).equals(queueId)) {
                cursor.delete();
                status = cursor.getNext(key, noData, LockMode.READ_UNCOMMITTED);
            }
        }
    }

    /** Makes everything committed so far durable with one fsync. */
    public void flushLog() {
        environment.flushLog(true);
    }

    /**
     * What {@link #recoverConfiguration} found.
     *
     * @param configRecords how many configuration records were replayed
     * @param horizon       the highest message id of any stored message or queue entry, 0 for none
     */
    public record RecoveryStart(int configRecords, long horizon) {
    }

    /**
     * Replays every configuration record into {@code handler} and finds the horizon: the highest id of a stored
     * message or queue entry (an entry may outlive its message in a damaged store, and its id must not be reused).
     * Costs one step per configuration record and per queue holding entries, none per message.
     */
    public RecoveryStart recoverConfiguration(RecoveryHandler handler) {
        DatabaseEntry key = new DatabaseEntry();
        DatabaseEntry value = new DatabaseEntry();
        int configRecords = 0;
        try (Cursor cursor = config.openCursor(null, CursorConfig.READ_COMMITTED)) {
            while (cursor.getNext(key, value, null) == OperationStatus.SUCCESS) {
                handler.configRecord(RecordCodec.configRecord(key.getData(), value.getData()));
                configRecords++;
            }
        }
        return new RecoveryStart(configRecords, Math.max(highestMessageId(), highestEntryMessageId()));
    }

    /** The highest message id of any queue's entries: the last entry of each queue, jumping from queue to queue. */
    private long highestEntryMessageId() {
        long highest = 0;
        DatabaseEntry key = new DatabaseEntry();
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        try (Cursor cursor = entries.openCursor(null, CursorConfig.READ_COMMITTED)) {
            OperationStatus status = cursor.getFirst(key, noData, null);
            while (status == OperationStatus.SUCCESS) {
                UUID queue = RecordCodec.entryQueue(key.getData());
                // Past the queue's last possible key (id 0xff..ff, unsigned): the next queue's first entry, if any.
                DatabaseEntry beyond = new DatabaseEntry(RecordCodec.entryKey(queue, -1L));
                status = cursor.getSearchKeyRange(beyond, noData, null);
                OperationStatus last = status == OperationStatus.SUCCESS ? cursor.getPrev(key, noData, null)
                        : cursor.getLast(key, noData, null);
                if (last == OperationStatus.SUCCESS) {
                    highest = Math.max(highest, RecordCodec.entryMessageId(key.getData()));
                }
                if (status == OperationStatus.SUCCESS) {
                    status = cursor.getNext(key, noData, null);
                }
            }
        }
        return highest;
    }

    /**
     * Reads up to {@code max} entries of queue {@code queueId} with message ids in ({@code afterMessageId},
     * {@code horizon}], ascending, each with its message's metadata (null when the message is missing).
     *
     * <p>The entry scan reads uncommitted and locks nothing (see the class comment): no one adds entries in that
     * range while recovery reads it, and the first key after the range may belong to a commit that is still waiting
     * for replica acknowledgements. The metadata are read committed: nothing writes them while they are recovered.
     */
    public List<StoredEntry> readEntries(UUID queueId, long afterMessageId, long horizon, int max) {
        DatabaseEntry value = new DatabaseEntry();
        return scanEntries(queueId, afterMessageId, horizon, max, false,
                (messageId, entryValue) -> withMetadata(messageId, value));
    }

    /** The entry of {@code messageId} with its message's metadata, read committed into {@code value}. */
    private StoredEntry withMetadata(long messageId, DatabaseEntry value) {
        if (metadata.get(null, new DatabaseEntry(RecordCodec.messageKey(messageId)), value,
                LockMode.READ_COMMITTED) == OperationStatus.SUCCESS) {
            byte[] stored = value.getData();
            return new StoredEntry(messageId, RecordCodec.metadata(stored), RecordCodec.contentSize(stored));
        }
        return new StoredEntry(messageId, null, 0);
    }

    /**
     * Reads up to {@code max} summaries of queue {@code queueId}'s entries with message ids in ({@code afterMessageId},
     * {@code horizon}], ascending: from the entries themselves where they hold one (schema version 2), else from
     * the message's metadata. Reads like {@link #readEntries}.
     */
    public List<EntrySummary> readEntrySummaries(UUID queueId, long afterMessageId, long horizon, int max) {
        DatabaseEntry value = new DatabaseEntry();
        return scanEntries(queueId, afterMessageId, horizon, max, true, (messageId, entryValue) -> {
            if (entryValue != null && RecordCodec.hasEntrySummary(entryValue)) {
                return new EntrySummary(messageId, true, RecordCodec.entryPriority(entryValue),
                        RecordCodec.entryContentSize(entryValue));
            }
            return EntrySummary.of(withMetadata(messageId, value));
        });
    }

    /** What a scan of a queue's entries makes of each: its message id and, if asked for, the entry's value. */
    private interface EntryReader<T> {
        T read(long messageId, byte[] entryValue);
    }

    /**
     * Reads up to {@code max} entries of queue {@code queueId} with message ids in ({@code afterMessageId},
     * {@code horizon}], ascending, through {@code reader}; the entry values only {@code withValues}. Reads
     * uncommitted and locks nothing (see {@link #readEntries}).
     */
    private <T> List<T> scanEntries(UUID queueId, long afterMessageId, long horizon, int max, boolean withValues,
                                    EntryReader<T> reader) {
        List<T> page = new ArrayList<>(Math.min(max, 1024));
        if (afterMessageId >= horizon || max <= 0) {
            return page;
        }
        long queueHigh = queueId.getMostSignificantBits();
        long queueLow = queueId.getLeastSignificantBits();
        DatabaseEntry key = new DatabaseEntry(RecordCodec.entryKey(queueId, afterMessageId + 1));
        DatabaseEntry entryValue = new DatabaseEntry();
        if (!withValues) {
            entryValue.setPartial(0, 0, true);
        }
        try (Cursor cursor = entries.openCursor(null, null)) {
            OperationStatus status = cursor.getSearchKeyRange(key, entryValue, LockMode.READ_UNCOMMITTED);
            while (status == OperationStatus.SUCCESS && page.size() < max) {
                byte[] entryKey = key.getData();
                if (longAt(entryKey, 0) != queueHigh || longAt(entryKey, 8) != queueLow) {
                    break;
                }
                long messageId = longAt(entryKey, 16);
                if (messageId > horizon) {
                    break;
                }
                page.add(reader.read(messageId, withValues ? entryValue.getData() : null));
                status = cursor.getNext(key, entryValue, LockMode.READ_UNCOMMITTED);
            }
        }
        return page;
    }

    /**
     * Reads the metadata of the messages {@code ids}, in that order (null metadata for a message the store does not
     * hold), with the content of those whose content is inline: it was read anyway, and the queue reading its
     * messages back delivers them next. Read committed: a queue reads back only messages whose commit completed
     * before it paged them out.
     */
    public List<StoredEntry> readMessages(long[] ids) {
        List<StoredEntry> page = new ArrayList<>(ids.length);
        DatabaseEntry value = new DatabaseEntry();
        for (long messageId : ids) {
            if (metadata.get(null, new DatabaseEntry(RecordCodec.messageKey(messageId)), value,
                    LockMode.READ_COMMITTED) == OperationStatus.SUCCESS) {
                byte[] stored = value.getData();
                page.add(new StoredEntry(messageId, RecordCodec.metadata(stored), RecordCodec.contentSize(stored),
                        RecordCodec.hasInlineContent(stored) ? RecordCodec.inlineContent(stored) : null));
            } else {
                page.add(new StoredEntry(messageId, null, 0));
            }
        }
        return page;
    }

    /**
     * Reads up to {@code max} stored message ids in ({@code afterMessageId}, {@code horizon}], ascending, keys only.
     * Reads uncommitted: a message being removed may be missed (it is going anyway), and nothing is added in range.
     */
    public long[] readMessageIds(long afterMessageId, long horizon, int max) {
        long[] ids = new long[Math.max(0, max)];
        int count = 0;
        if (afterMessageId < horizon) {
            DatabaseEntry key = new DatabaseEntry(RecordCodec.messageKey(afterMessageId + 1));
            DatabaseEntry noData = new DatabaseEntry();
            noData.setPartial(0, 0, true);
            try (Cursor cursor = metadata.openCursor(null, null)) {
                OperationStatus status = cursor.getSearchKeyRange(key, noData, LockMode.READ_UNCOMMITTED);
                while (status == OperationStatus.SUCCESS && count < max) {
                    long messageId = longAt(key.getData(), 0);
                    if (messageId > horizon) {
                        break;
                    }
                    ids[count++] = messageId;
                    status = cursor.getNext(key, noData, LockMode.READ_UNCOMMITTED);
                }
            }
        }
        return count == ids.length ? ids : Arrays.copyOf(ids, count);
    }

    /** A big-endian long inside a key, without allocating (scans read hundreds of thousands of keys). */
    private static long longAt(byte[] bytes, int offset) {
        return (long) LONG_BIG_ENDIAN.get(bytes, offset);
    }

    /** The highest stored message id, 0 when there is none. */
    public long highestMessageId() {
        DatabaseEntry key = new DatabaseEntry();
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        try (Cursor cursor = metadata.openCursor(null, CursorConfig.READ_COMMITTED)) {
            return cursor.getLast(key, noData, null) == OperationStatus.SUCCESS
                    ? RecordCodec.messageId(key.getData()) : 0;
        }
    }

    /**
     * Reads a message's content, empty when the message is not stored.
     *
     * @throws IllegalStateException when chunks are missing (a damaged store)
     */
    public Optional<byte[]> readContent(long messageId) {
        DatabaseEntry value = new DatabaseEntry();
        if (metadata.get(null, new DatabaseEntry(RecordCodec.messageKey(messageId)), value,
                LockMode.READ_COMMITTED) != OperationStatus.SUCCESS) {
            return Optional.empty();
        }
        if (RecordCodec.hasInlineContent(value.getData())) {
            return Optional.of(RecordCodec.inlineContent(value.getData()));
        }
        byte[] body = new byte[RecordCodec.contentSize(value.getData())];
        int filled = 0;
        DatabaseEntry chunk = new DatabaseEntry();
        for (int index = 0; filled < body.length; index++) {
            if (content.get(null, new DatabaseEntry(RecordCodec.chunkKey(messageId, index)), chunk,
                    LockMode.READ_COMMITTED) != OperationStatus.SUCCESS
                    || filled + chunk.getSize() > body.length || chunk.getSize() == 0) {
                break;
            }
            System.arraycopy(chunk.getData(), chunk.getOffset(), body, filled, chunk.getSize());
            filled += chunk.getSize();
        }
        if (filled != body.length) {
            throw new IllegalStateException("content of message " + messageId + " is damaged: " + filled + " of "
                    + body.length + " bytes readable");
        }
        return Optional.of(body);
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (Database database : List.of(entries, content, metadata, config, schema)) {
            try {
                database.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static void closeQuietly(Database database, RuntimeException cause) {
        try {
            database.close();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private static void abortIfOpen(Transaction txn) {
        Transaction.State state = txn.getState();
        if (state == Transaction.State.OPEN || state == Transaction.State.MUST_ABORT) {
            try {
                txn.abort();
            } catch (RuntimeException e) {
                // The original failure is what matters; an abort failure adds nothing for the caller.
            }
        }
    }
}
