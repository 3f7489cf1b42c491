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
