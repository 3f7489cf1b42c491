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
import java.util.HashSet;
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
     * Version of the layout in {@link RecordCodec}. A version 1 store (every body in chunks) or version 2 store
     * (every message in a record of its own) is read as it is and marked version 3 when a master or standalone broker
     * opens it, before it writes anything, so that an older broker refuses it; any other version is refused.
     */
    public static final int SCHEMA_VERSION = 3;

    /** A schema version this broker reads and upgrades: every body in chunks, nothing inline. */
    static final int CHUNKED_ONLY_SCHEMA_VERSION = 1;

    /** A schema version this broker reads and upgrades: bodies inline, every message in a record of its own. */
    static final int MESSAGE_RECORDS_ONLY_SCHEMA_VERSION = 2;

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
            if (version != CHUNKED_ONLY_SCHEMA_VERSION && version != MESSAGE_RECORDS_ONLY_SCHEMA_VERSION) {
                throw new IllegalStateException("the store at " + environment.getHome() + " has schema version "
                        + version + "; this broker reads versions " + CHUNKED_ONLY_SCHEMA_VERSION + ", "
                        + MESSAGE_RECORDS_ONLY_SCHEMA_VERSION + " and " + SCHEMA_VERSION);
            }
            // The upgrade waits for no replica: the record precedes every record of the new layout in the log, so a
            // node that holds one holds the new version too (a master that dies first leaves the upgrade to the next).
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
                ChangeSetIndex index = ChangeSetIndex.of(changes);
                for (ChangeSet.Operation operation : changes.operations()) {
                    apply(txn, operation, index);
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

    private void apply(Transaction txn, ChangeSet.Operation operation, ChangeSetIndex index) {
        if (operation instanceof ChangeSet.StoreMessage m) {
            if (!index.heldByItsEntry(m)) {
                storeMessage(txn, m);
            }
        } else if (operation instanceof ChangeSet.Enqueue e) {
            enqueue(txn, e, index);
        } else if (operation instanceof ChangeSet.Dequeue d) {
            dequeue(txn, d, index);
        } else if (operation instanceof ChangeSet.RemoveMessage r) {
            if (!index.wentWithItsEntry(r.messageId())) {
                removeMessage(txn, r.messageId());
            }
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
     * An entry. For a message stored in the same change set (as a publish stores it) the key carries the message's
     * summary, and when this entry is the message's only holder it holds the message itself
     * ({@link ChangeSetIndex#heldByItsEntry}); a message stored earlier gets a plain entry (see
     * {@link #enqueueStoredEarlier}).
     */
    private void enqueue(Transaction txn, ChangeSet.Enqueue enqueue, ChangeSetIndex index) {
        ChangeSet.StoreMessage message = index.find(enqueue.messageId());
        if (message == null) {
            enqueueStoredEarlier(txn, enqueue.queueId(), enqueue.messageId(), index);
            return;
        }
        int priority = priorityOf(message.metadata());
        if (priority < 0) {
            entries.put(txn, new DatabaseEntry(RecordCodec.entryKey(enqueue.queueId(), enqueue.messageId())),
                    new DatabaseEntry(RecordCodec.entryValue()));
        } else if (index.heldByItsEntry(message)) {
            entries.put(txn, new DatabaseEntry(RecordCodec.entryKey(enqueue.queueId(), enqueue.messageId(),
                            message.content().length, priority, true)),
                    new DatabaseEntry(RecordCodec.inlineMessageValue(message.metadata(), message.content())),
                    Put.OVERWRITE, LEAVES_THE_CACHE);
        } else {
            entries.put(txn, new DatabaseEntry(RecordCodec.entryKey(enqueue.queueId(), enqueue.messageId(),
                    message.content().length, priority, false)), new DatabaseEntry(RecordCodec.entryValue()));
        }
    }

    /**
     * An entry for a message stored by an earlier transaction (a message moved to another queue). When another
     * queue's entry holds the message, the message moves into this entry if this change set dequeues it there (the
     * later dequeue then only deletes the old entry); otherwise the old entry lets go of it first, into a record of
     * its own, so that a held message never has a second holder.
     */
    private void enqueueStoredEarlier(Transaction txn, UUID queueId, long messageId, ChangeSetIndex index) {
        if (!hasMessageRecord(txn, messageId)) {
            UUID dequeuedFrom = index.dequeuedFrom(messageId);
            HeldEntry holder = findHolder(txn, dequeuedFrom, messageId, true);
            if (holder != null && holder.queueId().equals(dequeuedFrom)) {
                entries.put(txn, new DatabaseEntry(RecordCodec.entryKey(queueId, messageId, holder.contentSize(),
                                holder.priority(), true)), new DatabaseEntry(holder.value()),
                        Put.OVERWRITE, LEAVES_THE_CACHE);
                index.movedFrom(dequeuedFrom, messageId);
                return;
            }
            if (holder != null) {
                metadata.put(txn, new DatabaseEntry(RecordCodec.messageKey(messageId)),
                        new DatabaseEntry(holder.value()), Put.OVERWRITE, LEAVES_THE_CACHE);
                entries.delete(txn, new DatabaseEntry(holder.key()));
                entries.put(txn, new DatabaseEntry(RecordCodec.entryKey(holder.queueId(), messageId,
                        holder.contentSize(), holder.priority(), false)), new DatabaseEntry(RecordCodec.entryValue()));
            }
        }
        entries.put(txn, new DatabaseEntry(RecordCodec.entryKey(queueId, messageId)),
                new DatabaseEntry(RecordCodec.entryValue()));
    }

    /** Whether the message has a record of its own (without reading it). */
    private boolean hasMessageRecord(Transaction txn, long messageId) {
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        return metadata.get(txn, new DatabaseEntry(RecordCodec.messageKey(messageId)), noData,
                LockMode.READ_COMMITTED) == OperationStatus.SUCCESS;
    }

    /**
     * Deletes an entry without reading its value. An entry that holds its message takes the message along when this
     * change set removes the message too (a consumer's acknowledgement: one deletion instead of two) or moved it to
     * another entry; otherwise the message outlives the entry (another holder still has it in memory, or its removal
     * follows in a later transaction) and gets a record of its own.
     */
    private void dequeue(Transaction txn, ChangeSet.Dequeue dequeue, ChangeSetIndex index) {
        long messageId = dequeue.messageId();
        DatabaseEntry key = new DatabaseEntry(RecordCodec.entryKey(dequeue.queueId(), messageId));
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        try (Cursor cursor = entries.openCursor(txn, null)) {
            if (cursor.getSearchKeyRange(key, noData, LockMode.READ_UNCOMMITTED) != OperationStatus.SUCCESS
                    || !isEntryOf(key.getData(), dequeue.queueId(), messageId)) {
                return;
            }
            if (RecordCodec.holdsMessage(key.getData())) {
                if (index.removes(messageId)) {
                    index.markWentWithItsEntry(messageId);
                } else if (!index.wasMovedFrom(dequeue.queueId(), messageId)) {
                    DatabaseEntry held = new DatabaseEntry();
                    if (cursor.getCurrent(key, held, LockMode.RMW) == OperationStatus.SUCCESS) {
                        metadata.put(txn, new DatabaseEntry(RecordCodec.messageKey(messageId)), held,
                                Put.OVERWRITE, LEAVES_THE_CACHE);
                    }
                }
            }
            cursor.delete();
        }
    }

    private static boolean isEntryOf(byte[] entryKey, UUID queueId, long messageId) {
        return longAt(entryKey, 16) == messageId && longAt(entryKey, 0) == queueId.getMostSignificantBits()
                && longAt(entryKey, 8) == queueId.getLeastSignificantBits();
    }

    /** An entry that holds its message: its key and its value (the message as an inline metadata value). */
    private record HeldEntry(byte[] key, byte[] value) {
        UUID queueId() {
            return RecordCodec.entryQueue(key);
        }

        int contentSize() {
            return RecordCodec.keyContentSize(key);
        }

        int priority() {
            return RecordCodec.keyPriority(key);
        }

        StoredEntry message(long messageId, boolean withContent) {
            return new StoredEntry(messageId, RecordCodec.metadata(value), RecordCodec.contentSize(value),
                    withContent ? RecordCodec.inlineContent(value) : null);
        }
    }

    /**
     * The entry that holds message {@code messageId}, looked for in queue {@code likelyQueue} first (may be null),
     * then in every queue (one search per queue holding entries); null when no entry holds it. Positions with
     * uncommitted reads (see the class comment) and reads the value found for an update in {@code txn}
     * ({@code forUpdate}) or read committed.
     */
    private HeldEntry findHolder(Transaction txn, UUID likelyQueue, long messageId, boolean forUpdate) {
        LockMode lock = forUpdate ? LockMode.RMW : LockMode.DEFAULT;
        try (Cursor cursor = entries.openCursor(txn, forUpdate ? null : CursorConfig.READ_COMMITTED)) {
            HeldEntry held = likelyQueue == null ? null : heldEntry(cursor, likelyQueue, messageId, lock);
            if (held != null) {
                return held;
            }
            DatabaseEntry key = new DatabaseEntry();
            DatabaseEntry noData = new DatabaseEntry();
            noData.setPartial(0, 0, true);
            OperationStatus status = cursor.getFirst(key, noData, LockMode.READ_UNCOMMITTED);
            while (status == OperationStatus.SUCCESS) {
                UUID queue = RecordCodec.entryQueue(key.getData());
                held = queue.equals(likelyQueue) ? null : heldEntry(cursor, queue, messageId, lock);
                if (held != null) {
                    return held;
                }
                // Past the queue's last possible key (id 0xff..ff, unsigned): the next queue's first entry, if any.
                key.setData(RecordCodec.entryKey(queue, -1L));
                status = cursor.getSearchKeyRange(key, noData, LockMode.READ_UNCOMMITTED);
            }
            return null;
        }
    }

    /**
     * The entry of {@code messageId} in queue {@code queueId} if it holds its message, else null; its value read with
     * {@code lock} (a cursor's lock mode: read committed comes from the cursor's configuration).
     */
    private static HeldEntry heldEntry(Cursor cursor, UUID queueId, long messageId, LockMode lock) {
        DatabaseEntry key = new DatabaseEntry(RecordCodec.entryKey(queueId, messageId));
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        if (cursor.getSearchKeyRange(key, noData, LockMode.READ_UNCOMMITTED) != OperationStatus.SUCCESS
                || !isEntryOf(key.getData(), queueId, messageId) || !RecordCodec.holdsMessage(key.getData())) {
            return null;
        }
        DatabaseEntry value = new DatabaseEntry();
        return cursor.getCurrent(key, value, lock) == OperationStatus.SUCCESS
                ? new HeldEntry(key.getData(), value.getData()) : null;
    }

    /** A message's priority from its metadata, or -1 when the bytes are not Tandem metadata (tests store any). */
    private static int priorityOf(byte[] metadata) {
        try {
            return MetadataCodec.priority(metadata);
        } catch (IllegalArgumentException notMetadata) {
            return -1;
        }
    }

    /**
     * One change set as its operations are applied: its messages by id and what else it does to them, by scanning
     * the set when it is as small as a publish's or an acknowledgement's (no map built on the hot path), through
     * indexes built once when it is larger (a client transaction of n messages would otherwise scan its set once per
     * entry, n² steps); and what applying it did so far to entries that hold their messages.
     */
    private record EntryId(UUID queueId, long messageId) {
    }

    private static final class ChangeSetIndex {
        /** Up to this many operations a scan is cheaper than an index. */
        private static final int SCANNED_UP_TO = 16;

        private final ChangeSet changes;
        /** For a large set: its messages by id (the first of an id wins, as a scan finds it), else null. */
        private final Map<Long, ChangeSet.StoreMessage> byId;
        /** For a large set: how many entries it adds per message id. */
        private final Map<Long, Integer> enqueues;
        /** For a large set: the message ids it removes. */
        private final Set<Long> removals;
        /** For a large set: the queue of each message id it dequeues (the first of an id). */
        private final Map<Long, UUID> dequeues;
        /** Ids whose holding entry a dequeue deleted with the message (their removal has nothing left to do). */
        private Set<Long> wentWithTheirEntries;
        /** Entries whose message an enqueue of this set moved into another entry. */
        private Set<EntryId> movedOut;

        private ChangeSetIndex(ChangeSet changes, Map<Long, ChangeSet.StoreMessage> byId,
                               Map<Long, Integer> enqueues, Set<Long> removals, Map<Long, UUID> dequeues) {
            this.changes = changes;
            this.byId = byId;
            this.enqueues = enqueues;
            this.removals = removals;
            this.dequeues = dequeues;
        }

        static ChangeSetIndex of(ChangeSet changes) {
            if (changes.operations().size() <= SCANNED_UP_TO) {
                return new ChangeSetIndex(changes, null, null, null, null);
            }
            Map<Long, ChangeSet.StoreMessage> byId = new HashMap<>();
            Map<Long, Integer> enqueues = new HashMap<>();
            Set<Long> removals = new HashSet<>();
            Map<Long, UUID> dequeues = new HashMap<>();
            for (ChangeSet.Operation operation : changes.operations()) {
                if (operation instanceof ChangeSet.StoreMessage m) {
                    byId.putIfAbsent(m.messageId(), m);
                } else if (operation instanceof ChangeSet.Enqueue e) {
                    enqueues.merge(e.messageId(), 1, Integer::sum);
                } else if (operation instanceof ChangeSet.RemoveMessage r) {
                    removals.add(r.messageId());
                } else if (operation instanceof ChangeSet.Dequeue d) {
                    dequeues.putIfAbsent(d.messageId(), d.queueId());
                }
            }
            return new ChangeSetIndex(changes, byId, enqueues, removals, dequeues);
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

        /**
         * Whether the message's one entry holds it instead of a record of its own: its body is inline-sized, this
         * set adds exactly one entry for it, no queue holds it in memory only, and its metadata give the entry's
         * summary.
         */
        boolean heldByItsEntry(ChangeSet.StoreMessage message) {
            return message.content().length <= INLINE_CONTENT_LIMIT && !message.alsoOnNonDurableQueues()
                    && enqueues(message.messageId()) == 1 && priorityOf(message.metadata()) >= 0;
        }

        private int enqueues(long messageId) {
            if (enqueues != null) {
                return enqueues.getOrDefault(messageId, 0);
            }
            int count = 0;
            for (ChangeSet.Operation operation : changes.operations()) {
                if (operation instanceof ChangeSet.Enqueue e && e.messageId() == messageId) {
                    count++;
                }
            }
            return count;
        }

        boolean removes(long messageId) {
            if (removals != null) {
                return removals.contains(messageId);
            }
            for (ChangeSet.Operation operation : changes.operations()) {
                if (operation instanceof ChangeSet.RemoveMessage r && r.messageId() == messageId) {
                    return true;
                }
            }
            return false;
        }

        /** The queue this set dequeues the message from, or null. */
        UUID dequeuedFrom(long messageId) {
            if (dequeues != null) {
                return dequeues.get(messageId);
            }
            for (ChangeSet.Operation operation : changes.operations()) {
                if (operation instanceof ChangeSet.Dequeue d && d.messageId() == messageId) {
                    return d.queueId();
                }
            }
            return null;
        }

        void markWentWithItsEntry(long messageId) {
            if (wentWithTheirEntries == null) {
                wentWithTheirEntries = new HashSet<>();
            }
            wentWithTheirEntries.add(messageId);
        }

        boolean wentWithItsEntry(long messageId) {
            return wentWithTheirEntries != null && wentWithTheirEntries.contains(messageId);
        }

        void movedFrom(UUID queueId, long messageId) {
            if (movedOut == null) {
                movedOut = new HashSet<>();
            }
            movedOut.add(new EntryId(queueId, messageId));
        }

        boolean wasMovedFrom(UUID queueId, long messageId) {
            return movedOut != null && movedOut.contains(new EntryId(queueId, messageId));
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
        return new RecoveryStart(configRecords, highestMessageId());
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
     * {@code horizon}], ascending, each with its message's metadata (null when the message is missing), read from the
     * entry when it holds its message.
     *
     * <p>The entry scan reads uncommitted and locks nothing (see the class comment): no one adds entries in that
     * range while recovery reads it, and the first key after the range may belong to a commit that is still waiting
     * for replica acknowledgements. The metadata are read committed: nothing writes them while they are recovered.
     */
    public List<StoredEntry> readEntries(UUID queueId, long afterMessageId, long horizon, int max) {
        DatabaseEntry value = new DatabaseEntry();
        return scanEntries(queueId, afterMessageId, horizon, max, (messageId, entryKey, atEntry) -> {
            if (RecordCodec.holdsMessage(entryKey)) {
                byte[] held = currentValue(atEntry);
                return held == null ? new StoredEntry(messageId, null, 0)
                        : new HeldEntry(entryKey, held).message(messageId, false);
            }
            return withMetadata(messageId, value);
        });
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
     * {@code horizon}], ascending: from the entries' keys where they hold one (schema version 3), from their values
     * where those hold one (version 2: small enough for JE to keep inside its B-tree node), else from the message's
     * metadata. Never reads a message an entry holds. Reads like {@link #readEntries}.
     */
    public List<EntrySummary> readEntrySummaries(UUID queueId, long afterMessageId, long horizon, int max) {
        DatabaseEntry value = new DatabaseEntry();
        return scanEntries(queueId, afterMessageId, horizon, max, (messageId, entryKey, atEntry) -> {
            if (RecordCodec.hasKeySummary(entryKey)) {
                return new EntrySummary(messageId, true, RecordCodec.keyPriority(entryKey),
                        RecordCodec.keyContentSize(entryKey));
            }
            byte[] entryValue = currentValue(atEntry);
            if (entryValue != null && RecordCodec.hasEntrySummary(entryValue)) {
                return new EntrySummary(messageId, true, RecordCodec.entryPriority(entryValue),
                        RecordCodec.entryContentSize(entryValue));
            }
            return EntrySummary.of(withMetadata(messageId, value));
        });
    }

    /** The value of the record at the cursor, read uncommitted as the scans read; null when it is gone. */
    private static byte[] currentValue(Cursor atEntry) {
        DatabaseEntry value = new DatabaseEntry();
        return atEntry.getCurrent(new DatabaseEntry(), value, LockMode.READ_UNCOMMITTED) == OperationStatus.SUCCESS
                ? value.getData() : null;
    }

    /** What a scan of a queue's entries makes of each: from its message id, its key and the cursor at it. */
    private interface EntryReader<T> {
        T read(long messageId, byte[] entryKey, Cursor atEntry);
    }

    /**
     * Reads up to {@code max} entries of queue {@code queueId} with message ids in ({@code afterMessageId},
     * {@code horizon}], ascending, through {@code reader}, keys only (the reader fetches a value if it needs it).
     * Reads uncommitted and locks nothing (see {@link #readEntries}).
     */
    private <T> List<T> scanEntries(UUID queueId, long afterMessageId, long horizon, int max, EntryReader<T> reader) {
        List<T> page = new ArrayList<>(Math.min(max, 1024));
        if (afterMessageId >= horizon || max <= 0) {
            return page;
        }
        long queueHigh = queueId.getMostSignificantBits();
        long queueLow = queueId.getLeastSignificantBits();
        DatabaseEntry key = new DatabaseEntry(RecordCodec.entryKey(queueId, afterMessageId + 1));
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        try (Cursor cursor = entries.openCursor(null, null)) {
            OperationStatus status = cursor.getSearchKeyRange(key, noData, LockMode.READ_UNCOMMITTED);
            while (status == OperationStatus.SUCCESS && page.size() < max) {
                byte[] entryKey = key.getData();
                if (longAt(entryKey, 0) != queueHigh || longAt(entryKey, 8) != queueLow) {
                    break;
                }
                long messageId = longAt(entryKey, 16);
                if (messageId > horizon) {
                    break;
                }
                page.add(reader.read(messageId, entryKey, cursor));
                status = cursor.getNext(key, noData, LockMode.READ_UNCOMMITTED);
            }
        }
        return page;
    }

    /** Like {@link #readMessages(UUID, long[])} without knowing a queue that holds the messages. */
    public List<StoredEntry> readMessages(long[] ids) {
        return readMessages(null, ids);
    }

    /**
     * Reads the metadata of the messages {@code ids}, in that order (null metadata for a message the store does not
     * hold), with the content of those whose content is inline: it was read anyway, and the queue reading its
     * messages back delivers them next. A message is looked for in its entry in {@code likelyHolder} (may be null)
     * first, then in its own record, then in every queue's entries. Read committed: a queue reads back only messages
     * whose commit completed before it paged them out.
     */
    public List<StoredEntry> readMessages(UUID likelyHolder, long[] ids) {
        List<StoredEntry> page = new ArrayList<>(ids.length);
        DatabaseEntry value = new DatabaseEntry();
        // One cursor over the holder's entries for the whole page (a null resource is not closed).
        try (Cursor holderEntries = likelyHolder == null ? null
                : entries.openCursor(null, CursorConfig.READ_COMMITTED)) {
            for (long messageId : ids) {
                HeldEntry held = holderEntries == null ? null
                        : heldEntry(holderEntries, likelyHolder, messageId, LockMode.DEFAULT);
                if (held != null) {
                    page.add(held.message(messageId, true));
                } else if (metadata.get(null, new DatabaseEntry(RecordCodec.messageKey(messageId)), value,
                        LockMode.READ_COMMITTED) == OperationStatus.SUCCESS) {
                    byte[] stored = value.getData();
                    page.add(new StoredEntry(messageId, RecordCodec.metadata(stored), RecordCodec.contentSize(stored),
                            RecordCodec.hasInlineContent(stored) ? RecordCodec.inlineContent(stored) : null));
                } else {
                    held = findHolder(null, null, messageId, false);
                    page.add(held != null ? held.message(messageId, true) : new StoredEntry(messageId, null, 0));
                }
            }
        }
        return page;
    }

    /** The entry of {@code messageId} in queue {@code queueId} if it holds its message (read committed), else null. */
    private HeldEntry heldEntryCommitted(UUID queueId, long messageId) {
        try (Cursor cursor = entries.openCursor(null, CursorConfig.READ_COMMITTED)) {
            return heldEntry(cursor, queueId, messageId, LockMode.DEFAULT);
        }
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

    /** The highest id of a stored message or queue entry (an entry may hold its message), 0 when there is none. */
    public long highestMessageId() {
        return Math.max(highestMessageRecordId(), highestEntryMessageId());
    }

    /** The highest id of a message with a record of its own, 0 when there is none. */
    private long highestMessageRecordId() {
        DatabaseEntry key = new DatabaseEntry();
        DatabaseEntry noData = new DatabaseEntry();
        noData.setPartial(0, 0, true);
        try (Cursor cursor = metadata.openCursor(null, CursorConfig.READ_COMMITTED)) {
            return cursor.getLast(key, noData, null) == OperationStatus.SUCCESS
                    ? RecordCodec.messageId(key.getData()) : 0;
        }
    }

    /** Like {@link #readContent(UUID, long)} without knowing a queue that holds the message. */
    public Optional<byte[]> readContent(long messageId) {
        return readContent(null, messageId);
    }

    /**
     * Reads a message's content, empty when the message is not stored. Looks for it like
     * {@link #readMessages(UUID, long[])}.
     *
     * @throws IllegalStateException when chunks are missing (a damaged store)
     */
    public Optional<byte[]> readContent(UUID likelyHolder, long messageId) {
        HeldEntry held = likelyHolder == null ? null : heldEntryCommitted(likelyHolder, messageId);
        if (held != null) {
            return Optional.of(RecordCodec.inlineContent(held.value()));
        }
        DatabaseEntry value = new DatabaseEntry();
        if (metadata.get(null, new DatabaseEntry(RecordCodec.messageKey(messageId)), value,
                LockMode.READ_COMMITTED) != OperationStatus.SUCCESS) {
            held = findHolder(null, null, messageId, false);
            return held == null ? Optional.empty() : Optional.of(RecordCodec.inlineContent(held.value()));
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
