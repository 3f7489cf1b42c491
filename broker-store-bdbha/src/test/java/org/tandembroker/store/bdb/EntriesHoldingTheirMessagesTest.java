package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.tandembroker.store.bdb.StoreDatabasesTest.put;
import static org.tandembroker.store.bdb.StoreDatabasesTest.recordsIn;

import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.EntrySummary;

/**
 * Schema version 3: a message published to one queue is one record, its queue entry, which holds it; every other
 * message keeps a record of its own. Checked directly in JE.
 */
class EntriesHoldingTheirMessagesTest {
    private static final UUID ORDERS = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    private static final UUID AUDIT = UUID.fromString("00000000-0000-0000-0000-00000000000b");
    private static final UUID DEAD_LETTERS = UUID.fromString("00000000-0000-0000-0000-00000000000c");

    @TempDir
    Path dir;

    private Environment environment(String name) {
        Path home = dir.resolve(name);
        home.toFile().mkdirs();
        return new Environment(home.toFile(), new EnvironmentConfig().setAllowCreate(true).setTransactional(true));
    }

    private static byte[] metadata(int priority, int contentSize) {
        return MetadataCodec.encode(new MessageMetadata(null, null, true, priority, 0, 1, contentSize));
    }

    private static byte[] body(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void apply(StoreDatabases databases, ChangeSet.Operation... operations) {
        databases.apply(new ChangeSet(List.of(operations)), Durability.COMMIT_NO_SYNC);
    }

    private static ChangeSet.StoreMessage message(long id, int priority, byte[] body) {
        return new ChangeSet.StoreMessage(id, metadata(priority, body.length), body);
    }

    @Test
    void aMessagePublishedToOneQueueIsOneRecordItsEntryAndItsAcknowledgementDeletesThatOneRecord() {
        byte[] body = body("one record");
        try (Environment env = environment("store"); StoreDatabases databases = StoreDatabases.open(env)) {
            apply(databases, message(1, 6, body), new ChangeSet.Enqueue(ORDERS, 1));

            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isZero();
            assertThat(recordsIn(env, StoreDatabases.ENTRIES_DB)).isEqualTo(1);
            assertThat(databases.readEntrySummaries(ORDERS, 0, 1, 10))
                    .containsExactly(new EntrySummary(1, true, 6, body.length));
            assertThat(databases.readEntries(ORDERS, 0, 1, 10)).singleElement().satisfies(entry -> {
                assertThat(entry.metadata()).isEqualTo(metadata(6, body.length));
                assertThat(entry.contentSize()).isEqualTo(body.length);
            });
            assertThat(databases.readContent(ORDERS, 1)).hasValue(body);
            assertThat(databases.readContent(1)).as("found without knowing its queue").hasValue(body);
            assertThat(databases.readMessages(ORDERS, new long[] {1})).singleElement()
                    .satisfies(read -> assertThat(read.content()).isEqualTo(body));
            assertThat(databases.readMessages(new long[] {1})).singleElement()
                    .satisfies(read -> assertThat(read.metadata()).isEqualTo(metadata(6, body.length)));
            assertThat(databases.highestMessageId()).isEqualTo(1);

            apply(databases, new ChangeSet.Dequeue(ORDERS, 1), new ChangeSet.RemoveMessage(1));

            assertThat(recordsIn(env, StoreDatabases.ENTRIES_DB)).isZero();
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isZero();
            assertThat(databases.readContent(1)).isEmpty();
        }
    }

    @Test
    void aMessageOnTwoQueuesOrWithALargeBodyKeepsARecordOfItsOwnAndItsEntriesCarryTheSummary() {
        byte[] large = new byte[StoreDatabases.INLINE_CONTENT_LIMIT + 1];
        try (Environment env = environment("store"); StoreDatabases databases = StoreDatabases.open(env)) {
            apply(databases, message(1, 3, body("fan-out")), new ChangeSet.Enqueue(ORDERS, 1),
                    new ChangeSet.Enqueue(AUDIT, 1));
            apply(databases, message(2, 4, large), new ChangeSet.Enqueue(ORDERS, 2));

            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isEqualTo(2);
            try (Database metadata = env.openDatabase(null, StoreDatabases.METADATA_DB,
                    new DatabaseConfig().setTransactional(true))) {
                metadata.delete(null, new DatabaseEntry(RecordCodec.messageKey(1)));
                metadata.delete(null, new DatabaseEntry(RecordCodec.messageKey(2)));
            }
            // without their records, the summaries can only come from the entries' keys
            assertThat(databases.readEntrySummaries(ORDERS, 0, 2, 10)).containsExactly(
                    new EntrySummary(1, true, 3, 7), new EntrySummary(2, true, 4, large.length));
            assertThat(databases.readEntrySummaries(AUDIT, 0, 2, 10)).containsExactly(new EntrySummary(1, true, 3, 7));
        }
    }

    @Test
    void aMessageThatANonDurableQueueHoldsTooKeepsARecordOfItsOwnWhichOutlivesItsDurableEntry() {
        try (Environment env = environment("store"); StoreDatabases databases = StoreDatabases.open(env)) {
            apply(databases, new ChangeSet.StoreMessage(1, metadata(0, 4), body("topic"), true),
                    new ChangeSet.Enqueue(ORDERS, 1));

            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isEqualTo(1);
            apply(databases, new ChangeSet.RemoveConfig(ORDERS));
            assertThat(databases.readContent(1)).as("the subscriber in memory still reads it").hasValue(body("topic"));
        }
    }

    @Test
    void aMessageMovedToADeadLetterQueueMovesIntoItsNewEntryWhicheverOrderTheChangeSetSaysItIn() {
        try (Environment env = environment("store"); StoreDatabases databases = StoreDatabases.open(env)) {
            apply(databases, message(1, 2, body("first")), new ChangeSet.Enqueue(ORDERS, 1));
            apply(databases, message(2, 5, body("second")), new ChangeSet.Enqueue(ORDERS, 2));

            apply(databases, new ChangeSet.Enqueue(DEAD_LETTERS, 1), new ChangeSet.Dequeue(ORDERS, 1));
            apply(databases, new ChangeSet.Dequeue(ORDERS, 2), new ChangeSet.Enqueue(DEAD_LETTERS, 2));

            assertThat(databases.readEntries(ORDERS, 0, 2, 10)).isEmpty();
            assertThat(databases.readEntrySummaries(DEAD_LETTERS, 0, 2, 10)).extracting(EntrySummary::messageId)
                    .containsExactly(1L, 2L);
            assertThat(databases.readContent(DEAD_LETTERS, 1)).hasValue(body("first"));
            assertThat(databases.readContent(DEAD_LETTERS, 2)).hasValue(body("second"));
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB))
                    .as("the move in enqueue order keeps one record; the other order gives the message its own")
                    .isEqualTo(1);

            apply(databases, new ChangeSet.Dequeue(DEAD_LETTERS, 1), new ChangeSet.RemoveMessage(1),
                    new ChangeSet.Dequeue(DEAD_LETTERS, 2), new ChangeSet.RemoveMessage(2));
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isZero();
            assertThat(recordsIn(env, StoreDatabases.ENTRIES_DB)).isZero();
        }
    }

    @Test
    void anEntryThatGoesWithoutItsMessagesRemovalLeavesTheMessageInARecordOfItsOwnUntilItIsRemoved() {
        // A transactional acknowledgement removes the message in a later transaction; a message that a non-durable
        // queue also holds outlives its durable entry.
        try (Environment env = environment("store"); StoreDatabases databases = StoreDatabases.open(env)) {
            apply(databases, message(1, 0, body("still wanted")), new ChangeSet.Enqueue(ORDERS, 1));

            apply(databases, new ChangeSet.Dequeue(ORDERS, 1));

            assertThat(recordsIn(env, StoreDatabases.ENTRIES_DB)).isZero();
            assertThat(databases.readContent(ORDERS, 1)).hasValue(body("still wanted"));
            assertThat(databases.readMessageIds(0, 1, 10)).as("an orphan to the next recovery").containsExactly(1L);

            apply(databases, new ChangeSet.RemoveMessage(1));
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isZero();
        }
    }

    @Test
    void aMessageCopiedToASecondQueueLeavesItsFirstEntryForARecordOfItsOwnSoThatNeitherEntryHoldsIt() {
        try (Environment env = environment("store"); StoreDatabases databases = StoreDatabases.open(env)) {
            apply(databases, message(1, 1, body("copied")), new ChangeSet.Enqueue(ORDERS, 1));

            apply(databases, new ChangeSet.Enqueue(AUDIT, 1));

            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isEqualTo(1);
            assertThat(databases.readEntrySummaries(ORDERS, 0, 1, 10)).containsExactly(new EntrySummary(1, true, 1, 6));
            assertThat(databases.readContent(AUDIT, 1)).hasValue(body("copied"));

            apply(databases, new ChangeSet.Dequeue(ORDERS, 1));
            assertThat(databases.readContent(AUDIT, 1)).as("the other queue still has it").hasValue(body("copied"));
            apply(databases, new ChangeSet.Dequeue(AUDIT, 1), new ChangeSet.RemoveMessage(1));
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isZero();
            assertThat(recordsIn(env, StoreDatabases.ENTRIES_DB)).isZero();
        }
    }

    @Test
    void aClientTransactionOfManyMessagesHoldsEachSingleQueueMessageInItsEntry() {
        List<ChangeSet.Operation> publish = new ArrayList<>();
        List<ChangeSet.Operation> acknowledge = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            publish.add(message(i, i % 10, new byte[i]));
            publish.add(new ChangeSet.Enqueue(ORDERS, i));
            if (i % 2 == 0) {
                publish.add(new ChangeSet.Enqueue(AUDIT, i));
            }
            acknowledge.add(new ChangeSet.Dequeue(ORDERS, i));
            if (i % 2 == 1) {
                acknowledge.add(new ChangeSet.RemoveMessage(i));
            }
        }
        try (Environment env = environment("store"); StoreDatabases databases = StoreDatabases.open(env)) {
            databases.apply(new ChangeSet(publish), Durability.COMMIT_NO_SYNC);

            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).as("the 50 on two queues").isEqualTo(50);
            assertThat(databases.readEntrySummaries(ORDERS, 0, 100, 200)).hasSize(100).allSatisfy(summary ->
                    assertThat(summary).isEqualTo(new EntrySummary(summary.messageId(), true,
                            (int) (summary.messageId() % 10), (int) summary.messageId())));

            databases.apply(new ChangeSet(acknowledge), Durability.COMMIT_NO_SYNC);

            assertThat(recordsIn(env, StoreDatabases.ENTRIES_DB)).as("audit's 50").isEqualTo(50);
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isEqualTo(50);
            assertThat(databases.readContent(AUDIT, 100)).hasValueSatisfying(read -> assertThat(read).hasSize(100));
        }
    }

    @Test
    void aStoreDigestIsTheSameWhetherAMessageIsHeldByItsEntryOrInARecordOfItsOwn() {
        byte[] metadata = metadata(4, 16);
        byte[] body = body("the same message");
        List<StoreContents.QueueContents> held;
        try (Environment env = environment("held"); StoreDatabases databases = StoreDatabases.open(env)) {
            apply(databases, new ChangeSet.PutConfig(queueRecord(ORDERS)), new ChangeSet.StoreMessage(11, metadata,
                    body), new ChangeSet.Enqueue(ORDERS, 11));
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isZero();
            held = StoreContents.read(env);
        }
        List<StoreContents.QueueContents> ownRecord;
        try (Environment env = environment("own"); StoreDatabases databases = StoreDatabases.open(env)) {
            apply(databases, new ChangeSet.PutConfig(queueRecord(ORDERS)), new ChangeSet.StoreMessage(11, metadata,
                    body));
            apply(databases, new ChangeSet.Enqueue(ORDERS, 11));
            assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isEqualTo(1);
            ownRecord = StoreContents.read(env);
        }

        assertThat(held).singleElement().satisfies(contents -> {
            assertThat(contents.depth()).isEqualTo(1);
            assertThat(contents.missingMessages()).isZero();
        });
        assertThat(held).isEqualTo(ownRecord);
    }

    @Test
    void aVersion2StoreIsReadAsItIsAndMarkedVersion3() {
        byte[] metadata = metadata(7, 3);
        try (Environment env = environment("store")) {
            DatabaseConfig create = new DatabaseConfig().setTransactional(true).setAllowCreate(true);
            put(env, create, StoreDatabases.SCHEMA_DB, RecordCodec.utf8("version"), RecordCodec.intValue(2));
            put(env, create, StoreDatabases.CONFIG_DB, RecordCodec.uuidKey(ORDERS),
                    RecordCodec.configValue(queueRecord(ORDERS)));
            put(env, create, StoreDatabases.METADATA_DB, RecordCodec.messageKey(5),
                    RecordCodec.inlineMessageValue(metadata, new byte[] {1, 2, 3}));
            put(env, create, StoreDatabases.ENTRIES_DB, RecordCodec.entryKey(ORDERS, 5), RecordCodec.entryValue(3, 7));

            try (StoreDatabases databases = StoreDatabases.open(env)) {
                assertThat(StoreDatabasesTest.schemaVersion(env)).isEqualTo(3);
                assertThat(databases.readEntrySummaries(ORDERS, 0, 5, 10)).containsExactly(new EntrySummary(5, true, 7,
                        3));
                assertThat(databases.readContent(ORDERS, 5)).hasValue(new byte[] {1, 2, 3});
                apply(databases, message(6, 1, body("new")), new ChangeSet.Enqueue(ORDERS, 6));
                assertThat(databases.readEntries(ORDERS, 0, 6, 10)).extracting(e -> e.messageId())
                        .containsExactly(5L, 6L);

                apply(databases, new ChangeSet.Dequeue(ORDERS, 5), new ChangeSet.RemoveMessage(5),
                        new ChangeSet.Dequeue(ORDERS, 6), new ChangeSet.RemoveMessage(6));
                assertThat(recordsIn(env, StoreDatabases.METADATA_DB)).isZero();
                assertThat(recordsIn(env, StoreDatabases.ENTRIES_DB)).isZero();
            }
        }
    }

    private static ConfigRecord queueRecord(UUID queue) {
        return new ConfigRecord(queue, ConfigRecord.QUEUE, Map.of("name", "orders"));
    }
}
