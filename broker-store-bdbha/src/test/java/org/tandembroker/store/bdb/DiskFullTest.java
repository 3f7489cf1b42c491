package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.NameValue;
import org.tandembroker.core.store.StoreTransaction;

/** A store that reaches je.maxDisk refuses commits with RESOURCE_LIMIT_EXCEEDED and keeps what it had. */
class DiskFullTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final UUID QUEUE = UUID.randomUUID();
    /** The smallest limit the settings accept: two log files of JE's minimum size (1 MB). */
    private static final Map<String, String> SMALL_DISK = Map.of("maxDisk", "2000000");
    private static final List<NameValue> SMALL_FILES = List.of(new NameValue("je.log.fileMax", "1000000"),
            new NameValue("je.cleaner.bytesInterval", "100000"));

    @TempDir
    Path work;

    private static byte[] content(long id) {
        byte[] content = new byte[100_000];
        java.util.Arrays.fill(content, (byte) id);
        return content;
    }

    /**
     * Then, reopened with the same limit, the store recovers and reads but still refuses commits (even removals:
     * JE needs log space to delete); reopened with the limit raised, it commits again.
     */
    @Test
    void aCommitBeyondMaxDiskFailsWithResourceLimitExceededAndEarlierCommitsSurvive() throws Exception {
        StoreFixture fixture = new StoreFixture(work);
        BdbMessageStore store = fixture.open(SMALL_DISK, SMALL_FILES);
        List<Long> committed = new ArrayList<>();
        try {
            BrokerException refused = fillUntilRefused(store, committed);

            assertThat(refused.kind()).isEqualTo(ErrorKind.RESOURCE_LIMIT_EXCEEDED);
            assertThat(refused.getMessage()).startsWith("store disk full: ");
            assertThat(committed).isNotEmpty();
            assertThat(store.status().writable()).isFalse();
            assertThat(store.status().description()).contains("disk full");

            StoreTransaction another = store.newTransaction();
            another.storeMessage(store.nextMessageId(), new byte[] {1}, content(0));
            assertThat(another.commit()).failsWithin(DEADLINE);
            assertThat(fixture.linesWithCode("MST-1008")).isEqualTo(1);
        } finally {
            store.close();
        }

        BdbMessageStore stillFull = fixture.open(SMALL_DISK, SMALL_FILES);
        try {
            // JE counts the log file being written at its size on disk, prefilled zeros included, so the first
            // store may have been refused up to one log file early: what still fits is taken before the check
            assertThat(fillUntilRefused(stillFull, committed).kind()).isEqualTo(ErrorKind.RESOURCE_LIMIT_EXCEEDED);
            assertRecovered(stillFull, committed);
            StoreTransaction dequeue = stillFull.newTransaction();
            dequeue.dequeue(QUEUE, committed.get(0));
            assertThat(BrokerException.from(dequeue.commit().handle((v, e) -> e).join()).kind())
                    .as("removals need log space too").isEqualTo(ErrorKind.RESOURCE_LIMIT_EXCEEDED);
        } finally {
            stillFull.close();
        }

        BdbMessageStore raised = fixture.open(Map.of(), SMALL_FILES);
        try {
            assertRecovered(raised, committed);
            StoreTransaction dequeue = raised.newTransaction();
            dequeue.dequeue(QUEUE, committed.get(0));
            assertThat(dequeue.commit()).succeedsWithin(DEADLINE);
            assertThat(raised.status().writable()).isTrue();
        } finally {
            raised.close();
        }
    }

    /** Commits 100 KB messages until one is refused (within 20 MB), adding the committed ones to {@code committed}. */
    private static BrokerException fillUntilRefused(BdbMessageStore store, List<Long> committed) throws Exception {
        for (int i = 0; i < 200; i++) {
            long id = store.nextMessageId();
            StoreTransaction txn = store.newTransaction();
            txn.storeMessage(id, new byte[] {1}, content(id));
            txn.enqueue(QUEUE, id);
            CompletableFuture<Void> result = txn.commit();
            try {
                result.get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                committed.add(id);
            } catch (java.util.concurrent.ExecutionException e) {
                return BrokerException.from(e);
            }
        }
        throw new AssertionError("no commit was refused within 20 MB of writes");
    }

    private static void assertRecovered(BdbMessageStore store, List<Long> committed) {
        StoreFixture.Recovered recovered = StoreFixture.Recovered.from(store, 64, QUEUE);
        assertThat(recovered.entries.get(QUEUE)).containsExactlyElementsOf(committed);
        for (long id : committed) {
            assertThat(store.loadContent(id)).succeedsWithin(DEADLINE).isEqualTo(content(id));
        }
    }
}
