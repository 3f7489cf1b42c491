package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;

import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdb.commit.CoalescingCommitter;

/**
 * The log positions that let a replicated group commit overlap its fsync with the wait for acknowledgements. These
 * read JE internals: when a JE upgrade moves them, this specification fails instead of the broker silently
 * flushing after every commit.
 */
class JeLogPositionTest {
    @TempDir
    Path dir;

    @Test
    void theJeInUseExposesCommitPositions() {
        assertThat(JeLogPosition.available()).isTrue();
    }

    @Test
    void aCommitsRecordLiesWithinTheLogEndAndLaterCommitsLieBeyondIt() {
        try (Environment env = new Environment(dir.toFile(),
                new EnvironmentConfig().setAllowCreate(true).setTransactional(true));
             StoreDatabases databases = StoreDatabases.open(env)) {
            UUID queue = UUID.randomUUID();
            long first = databases.applyAt(List.of(new ChangeSet(List.of(
                    new ChangeSet.StoreMessage(1, new byte[] {1}, new byte[100]),
                    new ChangeSet.Enqueue(queue, 1)))), Durability.COMMIT_NO_SYNC);
            long endAfterFirst = databases.logEnd();
            long second = databases.applyAt(List.of(new ChangeSet(List.of(new ChangeSet.Enqueue(queue, 2))),
                    new ChangeSet(List.of(new ChangeSet.Enqueue(queue, 3)))), Durability.COMMIT_NO_SYNC);

            assertThat(first).isNotEqualTo(CoalescingCommitter.NO_POSITION);
            assertThat(first).isLessThanOrEqualTo(endAfterFirst);
            assertThat(second).isGreaterThan(endAfterFirst);
            assertThat(second).isLessThanOrEqualTo(databases.logEnd());
        }
    }
}
