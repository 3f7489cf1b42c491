package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The on-disk layout, checked directly in JE. */
class StoreDatabasesTest {
    @TempDir
    Path dir;

    private Environment environment() {
        return new Environment(dir.toFile(), new EnvironmentConfig().setAllowCreate(true).setTransactional(true));
    }

    @Test
    void largeContentIsStoredInChunksOfAtMost256KiBAndReadBackByteExact() {
        byte[] content = new byte[5 * 1024 * 1024 + 7];
        new Random(42).nextBytes(content);
        try (Environment env = environment(); StoreDatabases databases = StoreDatabases.open(env)) {
            databases.apply(new ChangeSet(List.of(new ChangeSet.StoreMessage(7, new byte[] {1}, content))),
                    Durability.COMMIT_NO_SYNC);

            try (Database chunks = env.openDatabase(null, StoreDatabases.CONTENT_DB, new DatabaseConfig()
                    .setTransactional(true))) {
                assertThat(chunks.count()).isEqualTo(21);
                DatabaseEntry chunk = new DatabaseEntry();
                chunks.get(null, new DatabaseEntry(RecordCodec.chunkKey(7, 0)), chunk, null);
                assertThat(chunk.getSize()).isEqualTo(StoreDatabases.CHUNK_SIZE);
            }
            assertThat(databases.readContent(7)).hasValueSatisfying(read -> assertThat(read).isEqualTo(content));

            databases.apply(new ChangeSet(List.of(new ChangeSet.RemoveMessage(7))), Durability.COMMIT_NO_SYNC);
            try (Database chunks = env.openDatabase(null, StoreDatabases.CONTENT_DB, new DatabaseConfig()
                    .setTransactional(true))) {
                assertThat(chunks.count()).isZero();
            }
            assertThat(databases.readContent(7)).isEmpty();
        }
    }

    @Test
    void aBodyUpToTheInlineLimitIsStoredInItsMetadataRecordAndNothingInTheContentDatabase() {
        byte[] content = new byte[StoreDatabases.INLINE_CONTENT_LIMIT];
        new Random(7).nextBytes(content);
        byte[] metadata = {1, 2, 3};
        try (Environment env = environment(); StoreDatabases databases = StoreDatabases.open(env)) {
            databases.apply(new ChangeSet(List.of(new ChangeSet.StoreMessage(9, metadata, content),
                    new ChangeSet.StoreMessage(10, metadata, new byte[0]))), Durability.COMMIT_NO_SYNC);

            assertThat(recordsIn(env, StoreDatabases.CONTENT_DB)).isZero();
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isEqualTo(2);
            assertThat(databases.readContent(9)).hasValueSatisfying(read -> assertThat(read).isEqualTo(content));
            assertThat(databases.readContent(10)).hasValueSatisfying(read -> assertThat(read).isEmpty());
            assertThat(databases.readMessages(new long[] {9, 10})).satisfiesExactly(
                    nine -> {
                        assertThat(nine.metadata()).isEqualTo(metadata);
                        assertThat(nine.contentSize()).isEqualTo(content.length);
                        assertThat(nine.content()).as("read with the metadata").isEqualTo(content);
                    },
                    ten -> {
                        assertThat(ten.metadata()).isEqualTo(metadata);
                        assertThat(ten.contentSize()).isZero();
                        assertThat(ten.content()).isEmpty();
                    });

            databases.apply(new ChangeSet(List.of(new ChangeSet.RemoveMessage(9))), Durability.COMMIT_NO_SYNC);
            assertThat(databases.readContent(9)).isEmpty();
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isEqualTo(1);
        }
    }

    @Test
    void aBodyOneByteOverTheInlineLimitGoesToTheContentDatabase() {
        byte[] content = new byte[StoreDatabases.INLINE_CONTENT_LIMIT + 1];
        new Random(8).nextBytes(content);
        try (Environment env = environment(); StoreDatabases databases = StoreDatabases.open(env)) {
            databases.apply(new ChangeSet(List.of(new ChangeSet.StoreMessage(4, new byte[] {5}, content))),
                    Durability.COMMIT_NO_SYNC);

            assertThat(recordsIn(env, StoreDatabases.CONTENT_DB)).isEqualTo(1);
            assertThat(databases.readContent(4)).hasValueSatisfying(read -> assertThat(read).isEqualTo(content));
            assertThat(databases.readMessages(new long[] {4})).singleElement().satisfies(entry -> {
                assertThat(entry.metadata()).containsExactly(5);
                assertThat(entry.content()).as("read on delivery").isNull();
            });
        }
    }

    @Test
    void aVersion1StoreIsReadAsItIsAndMarkedVersion3BeforeAnythingInlineIsWritten() {
        UUID queue = UUID.randomUUID();
        byte[] oldBody = {10, 20, 30};
        try (Environment env = environment()) {
            writeVersion1Store(env, queue, 3, new byte[] {7}, oldBody);

            try (StoreDatabases databases = StoreDatabases.open(env)) {
                assertThat(schemaVersion(env)).isEqualTo(StoreDatabases.SCHEMA_VERSION);
                assertThat(databases.readContent(3)).hasValueSatisfying(read -> assertThat(read).isEqualTo(oldBody));
                assertThat(databases.readEntries(queue, 0, 3, 10)).singleElement().satisfies(entry -> {
                    assertThat(entry.messageId()).isEqualTo(3);
                    assertThat(entry.metadata()).containsExactly(7);
                    assertThat(entry.contentSize()).isEqualTo(3);
                });

                databases.apply(new ChangeSet(List.of(new ChangeSet.Dequeue(queue, 3),
                        new ChangeSet.RemoveMessage(3))), Durability.COMMIT_NO_SYNC);
                assertThat(recordsIn(env, StoreDatabases.CONTENT_DB)).isZero();
                assertThat(databases.readContent(3)).isEmpty();
            }
        }
    }

    @Test
    void aStoreDigestIsTheSameWhetherABodyIsStoredInChunksOrInline() {
        UUID queue = UUID.randomUUID();
        byte[] metadata = {4, 4};
        byte[] body = "the same message".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        List<StoreContents.QueueContents> chunked;
        try (Environment env = environment()) {
            writeVersion1Store(env, queue, 11, metadata, body);
            chunked = StoreContents.read(env);
        }
        Path inlineStore = dir.resolve("inline");
        inlineStore.toFile().mkdirs();
        List<StoreContents.QueueContents> inline;
        try (Environment env = new Environment(inlineStore.toFile(),
                new EnvironmentConfig().setAllowCreate(true).setTransactional(true));
             StoreDatabases databases = StoreDatabases.open(env)) {
            databases.apply(new ChangeSet(List.of(new ChangeSet.PutConfig(queueRecord(queue)),
                    new ChangeSet.StoreMessage(11, metadata, body), new ChangeSet.Enqueue(queue, 11))),
                    Durability.COMMIT_NO_SYNC);
            assertThat(recordsIn(env, StoreDatabases.CONTENT_DB)).isZero();
            inline = StoreContents.read(env);
        }

        assertThat(inline).singleElement().satisfies(contents -> assertThat(contents.depth()).isEqualTo(1));
        assertThat(inline).isEqualTo(chunked);
    }

    @Test
    void anEntryStoredWithItsMessageIsSummarisedFromTheEntryAloneAndAnOlderEntryFromItsMessage() {
        UUID queue = UUID.randomUUID();
        byte[] priority7 = org.tandembroker.core.message.MetadataCodec.encode(
                new org.tandembroker.core.message.MessageMetadata(null, null, true, 7, 0, 1, 5));
        byte[] priority2 = org.tandembroker.core.message.MetadataCodec.encode(
                new org.tandembroker.core.message.MessageMetadata(null, null, true, 2, 0, 1, 3));
        try (Environment env = environment(); StoreDatabases databases = StoreDatabases.open(env)) {
            databases.apply(new ChangeSet(List.of(new ChangeSet.StoreMessage(1, priority7, new byte[5]),
                    new ChangeSet.Enqueue(queue, 1))), Durability.COMMIT_NO_SYNC);
            // stored first, enqueued by a later transaction (as a message moved to another queue): no summary
            databases.apply(new ChangeSet(List.of(new ChangeSet.StoreMessage(2, priority2, new byte[3]))),
                    Durability.COMMIT_NO_SYNC);
            databases.apply(new ChangeSet(List.of(new ChangeSet.Enqueue(queue, 2), new ChangeSet.Enqueue(queue, 3))),
                    Durability.COMMIT_NO_SYNC);
            try (Database metadata = env.openDatabase(null, StoreDatabases.METADATA_DB,
                    new DatabaseConfig().setTransactional(true))) {
                metadata.delete(null, new DatabaseEntry(RecordCodec.messageKey(1)));
            }

            assertThat(databases.readEntrySummaries(queue, 0, 3, 10)).containsExactly(
                    new org.tandembroker.core.store.EntrySummary(1, true, 7, 5), // its message is not read at all
                    new org.tandembroker.core.store.EntrySummary(2, true, 2, 3),
                    new org.tandembroker.core.store.EntrySummary(3, false, 0, 0));
            assertThat(databases.readEntrySummaries(queue, 1, 2, 10)).extracting(
                    org.tandembroker.core.store.EntrySummary::messageId).containsExactly(2L);
        }
    }

    @Test
    void aTransactionOfManyMessagesSummarisesEachEntryFromItsOwnMessage() {
        // A client transaction: 1,000 messages, each stored and enqueued on two queues, and one entry whose message
        // was stored by an earlier transaction (no summary). Large sets find their messages through an index.
        UUID orders = UUID.randomUUID();
        UUID audit = UUID.randomUUID();
        List<ChangeSet.Operation> operations = new java.util.ArrayList<>();
        for (int i = 1; i <= 1000; i++) {
            byte[] metadata = org.tandembroker.core.message.MetadataCodec.encode(
                    new org.tandembroker.core.message.MessageMetadata(null, null, true, i % 10, 0, 1, i));
            operations.add(new ChangeSet.StoreMessage(i, metadata, new byte[i]));
        }
        for (int i = 1; i <= 1000; i++) {
            operations.add(new ChangeSet.Enqueue(orders, i));
            operations.add(new ChangeSet.Enqueue(audit, i));
        }
        operations.add(new ChangeSet.Enqueue(audit, 5000));
        try (Environment env = environment(); StoreDatabases databases = StoreDatabases.open(env)) {
            databases.apply(new ChangeSet(List.of(new ChangeSet.StoreMessage(5000,
                    org.tandembroker.core.message.MetadataCodec.encode(new org.tandembroker.core.message
                            .MessageMetadata(null, null, true, 4, 0, 1, 9)), new byte[9]))), Durability.COMMIT_NO_SYNC);
            databases.apply(new ChangeSet(operations), Durability.COMMIT_NO_SYNC);
            try (Database metadata = env.openDatabase(null, StoreDatabases.METADATA_DB,
                    new DatabaseConfig().setTransactional(true))) {
                // without their messages, the summaries can only come from the entries themselves
                for (long id : java.util.stream.LongStream.concat(java.util.stream.LongStream.rangeClosed(1, 1000),
                        java.util.stream.LongStream.of(5000)).toArray()) {
                    metadata.delete(null, new DatabaseEntry(RecordCodec.messageKey(id)));
                }
            }

            for (UUID queue : List.of(orders, audit)) {
                List<org.tandembroker.core.store.EntrySummary> summaries = databases.readEntrySummaries(queue, 0,
                        5000, 2000);
                assertThat(summaries.stream().filter(s -> s.messageId() <= 1000)).hasSize(1000).allSatisfy(s ->
                        assertThat(s).isEqualTo(new org.tandembroker.core.store.EntrySummary(s.messageId(), true,
                                (int) (s.messageId() % 10), (int) s.messageId())));
            }
            // not stored with its entry, and its message gone: nothing to summarise it from
            assertThat(databases.readEntrySummaries(audit, 4999, 5000, 10)).containsExactly(
                    new org.tandembroker.core.store.EntrySummary(5000, false, 0, 0));
        }
    }

    /** A store as brokers before schema version 2 wrote it: one queue holding one message whose body is a chunk. */
    private static void writeVersion1Store(Environment env, UUID queue, long messageId, byte[] metadata,
                                           byte[] body) {
        DatabaseConfig create = new DatabaseConfig().setTransactional(true).setAllowCreate(true);
        put(env, create, StoreDatabases.SCHEMA_DB, RecordCodec.utf8("version"), RecordCodec.intValue(1));
        put(env, create, StoreDatabases.CONFIG_DB, RecordCodec.uuidKey(queue),
                RecordCodec.configValue(queueRecord(queue)));
        put(env, create, StoreDatabases.METADATA_DB, RecordCodec.messageKey(messageId),
                RecordCodec.metadataValue(body.length, metadata));
        put(env, create, StoreDatabases.CONTENT_DB, RecordCodec.chunkKey(messageId, 0), body);
        put(env, create, StoreDatabases.ENTRIES_DB, RecordCodec.entryKey(queue, messageId), RecordCodec.entryValue());
    }

    private static org.tandembroker.core.store.ConfigRecord queueRecord(UUID queue) {
        return new org.tandembroker.core.store.ConfigRecord(queue, org.tandembroker.core.store.ConfigRecord.QUEUE,
                java.util.Map.of("name", "orders"));
    }

    static void put(Environment env, DatabaseConfig create, String database, byte[] key, byte[] value) {
        try (Database db = env.openDatabase(null, database, create)) {
            db.put(null, new DatabaseEntry(key), new DatabaseEntry(value));
        }
    }

    static long recordsIn(Environment env, String database) {
        try (Database db = env.openDatabase(null, database, new DatabaseConfig().setTransactional(true))) {
            return db.count();
        }
    }

    static int schemaVersion(Environment env) {
        try (Database db = env.openDatabase(null, StoreDatabases.SCHEMA_DB,
                new DatabaseConfig().setTransactional(true))) {
            DatabaseEntry value = new DatabaseEntry();
            db.get(null, new DatabaseEntry(RecordCodec.utf8("version")), value, null);
            return RecordCodec.intValue(value.getData());
        }
    }

    @Test
    void queueEntryKeysSortInEnqueueOrderWithinAQueue() {
        UUID queue = UUID.randomUUID();
        byte[] low = RecordCodec.entryKey(queue, 255);
        byte[] high = RecordCodec.entryKey(queue, 256);

        assertThat(java.util.Arrays.compareUnsigned(low, high)).isNegative();
        assertThat(RecordCodec.entryQueue(high)).isEqualTo(queue);
        assertThat(RecordCodec.entryMessageId(high)).isEqualTo(256);
    }

    @Test
    void aStoreWithAnotherSchemaVersionIsRefused() {
        try (Environment env = environment()) {
            try (Database schema = env.openDatabase(null, StoreDatabases.SCHEMA_DB,
                    new DatabaseConfig().setTransactional(true).setAllowCreate(true))) {
                schema.put(null, new DatabaseEntry(RecordCodec.utf8("version")),
                        new DatabaseEntry(RecordCodec.intValue(99)));
            }
            assertThatThrownBy(() -> StoreDatabases.open(env)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("schema version 99");
        }
    }

    @Test
    void anEnvironmentWithForeignDatabasesIsRefused() {
        try (Environment env = environment()) {
            env.openDatabase(null, "someone_elses", new DatabaseConfig().setTransactional(true)
                    .setAllowCreate(true)).close();
            assertThatThrownBy(() -> StoreDatabases.open(env)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not a Tandem store");
        }
    }
}
