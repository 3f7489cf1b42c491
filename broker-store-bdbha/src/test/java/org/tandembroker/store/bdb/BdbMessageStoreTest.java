package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.store.bdb.commit.CommitterStats;

class BdbMessageStoreTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path work;
    private StoreFixture fixture;
    private final List<BdbMessageStore> opened = new ArrayList<>();

    @BeforeEach
    void fixture() {
        fixture = new StoreFixture(work);
    }

    @AfterEach
    void closeStores() {
        opened.forEach(BdbMessageStore::close);
    }

    private BdbMessageStore open(Map<String, String> elements) throws Exception {
        BdbMessageStore store = fixture.open(elements, List.of());
        opened.add(store);
        return store;
    }

    private BdbMessageStore open() throws Exception {
        return open(Map.of());
    }

    private static void commit(StoreTransaction txn) {
        assertThat(txn.commit()).succeedsWithin(DEADLINE);
    }

    private static ErrorKind failureKind(CompletableFuture<?> future) {
        assertThat(future).failsWithin(DEADLINE);
        return BrokerException.from(future.handle((v, e) -> e).join()).kind();
    }

    private static StoreFixture.Recovered recover(BdbMessageStore store, UUID... queues) {
        return StoreFixture.Recovered.from(store, queues);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theFactoryIsFoundByServiceLoaderAsTypeBdb() {
        assertThat(ServiceLoader.load(MessageStoreFactory.class).stream().map(p -> p.get().type()))
                .contains("bdb");
    }

    @Test
    void startOpensTheEnvironmentAndBecomesActiveOnAStoreThread() throws Exception {
        BdbMessageStore store = open(); // asserts becameActive came from bdb-lifecycle-test

        assertThat(store.status().role()).isEqualTo("STANDALONE");
        assertThat(store.status().writable()).isTrue();
        assertThat(fixture.logLines).anyMatch(line -> line.startsWith("MST-1001 : Created : bdb store for test at "
                + work.resolve("test/store")));
        assertThat(Files.exists(work.resolve("test/store/00000000.jdb"))).isTrue();
    }

    @Test
    void committedRecordsAreRecoveredAfterReopenInOrder() throws Exception {
        UUID queueA = UUID.fromString("00000000-0000-0000-0000-00000000000a");
        UUID queueB = UUID.fromString("ffffffff-0000-0000-0000-00000000000b");
        ConfigRecord queueRecord = new ConfigRecord(queueA, ConfigRecord.QUEUE,
                Map.of("name", "orders", "durable", "true", "description", "Bestellungen für Zürich"));
        ConfigRecord exchange = new ConfigRecord(UUID.randomUUID(), ConfigRecord.EXCHANGE, Map.of());
        byte[] large = new byte[5 * 1024 * 1024 + 123];
        new Random(7).nextBytes(large);

        BdbMessageStore store = open();
        long small = store.nextMessageId();
        long empty = store.nextMessageId();
        long big = store.nextMessageId();
        StoreTransaction txn = store.newTransaction();
        txn.putConfig(queueRecord);
        txn.putConfig(exchange);
        txn.storeMessage(small, bytes("meta-small"), bytes("hello"));
        txn.storeMessage(empty, bytes("meta-empty"), new byte[0]);
        txn.enqueue(queueB, small);
        txn.enqueue(queueA, small);
        txn.enqueue(queueA, empty);
        commit(txn);
        StoreTransaction second = store.newTransaction();
        second.storeMessage(big, bytes("meta-big"), large);
        second.enqueue(queueA, big);
        second.enqueue(queueB, big);
        commit(second);
        store.close();

        BdbMessageStore reopened = open();
        StoreFixture.Recovered recovered = recover(reopened, queueB);

        assertThat(recovered.horizon).isEqualTo(big);
        assertThat(recovered.messageIds).containsExactly(small, empty, big);
        assertThat(recovered.configRecords).containsEntry(queueA, queueRecord)
                .containsEntry(exchange.id(), exchange).hasSize(2);
        assertThat(recovered.metadata.keySet()).containsExactly(small, empty, big);
        assertThat(recovered.metadata.get(small)).isEqualTo(bytes("meta-small"));
        assertThat(recovered.metadata.get(big)).isEqualTo(bytes("meta-big"));
        assertThat(recovered.contentSizes).containsEntry(small, 5).containsEntry(empty, 0)
                .containsEntry(big, large.length);
        assertThat(recovered.entries.get(queueA)).containsExactly(small, empty, big);
        assertThat(recovered.entries.get(queueB)).containsExactly(small, big);
        assertThat(reopened.loadContent(big)).succeedsWithin(DEADLINE).isEqualTo(large);
        assertThat(reopened.loadContent(small)).succeedsWithin(DEADLINE).isEqualTo(bytes("hello"));
        assertThat(reopened.loadContent(empty)).succeedsWithin(DEADLINE).isEqualTo(new byte[0]);
        assertThat(reopened.nextMessageId()).isGreaterThan(big);
    }

    @Test
    void recoveryReadsEachQueueInPagesUpToTheHorizonAndNeverWhatWasStoredAfterIt() throws Exception {
        UUID queue = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        BdbMessageStore store = open();
        StoreTransaction before = store.newTransaction();
        for (long id = 1; id <= 5; id++) {
            before.storeMessage(id, bytes("m" + id), bytes("c" + id));
            before.enqueue(queue, id);
        }
        before.storeMessage(6, bytes("orphan"), bytes("c"));
        before.storeMessage(7, bytes("m7"), bytes("c7"));
        before.enqueue(other, 7);
        commit(before);
        store.close();

        BdbMessageStore reopened = open();
        var stored = reopened.recover(record -> { });
        StoreTransaction after = reopened.newTransaction();
        long newId = reopened.nextMessageId();
        after.storeMessage(newId, bytes("new"), bytes("c"));
        after.enqueue(queue, newId);
        commit(after);

        assertThat(stored.horizon()).isEqualTo(7);
        assertThat(newId).isGreaterThan(7);
        assertThat(stored.entries(queue, 0, 2)).succeedsWithin(DEADLINE).satisfies(page -> {
            assertThat(page).extracting(org.tandembroker.core.store.StoredEntry::messageId).containsExactly(1L, 2L);
            assertThat(page.get(1).metadata()).isEqualTo(bytes("m2"));
            assertThat(page.get(1).contentSize()).isEqualTo(2);
        });
        assertThat(stored.entries(queue, 2, 10)).succeedsWithin(DEADLINE).extracting(
                page -> page.stream().map(org.tandembroker.core.store.StoredEntry::messageId).toList())
                .isEqualTo(List.of(3L, 4L, 5L));
        assertThat(stored.entries(queue, 5, 10)).succeedsWithin(DEADLINE).satisfies(page -> assertThat(page).isEmpty());
        assertThat(stored.messageIds(0, 4)).succeedsWithin(DEADLINE).isEqualTo(new long[] {1, 2, 3, 4});
        assertThat(stored.messageIds(4, 10)).succeedsWithin(DEADLINE).isEqualTo(new long[] {5, 6, 7});
    }

    @Test
    void anEntryWhoseMessageIsMissingIsReadWithoutMetadataAndItsIdIsNeverReused() throws Exception {
        UUID queue = UUID.randomUUID();
        BdbMessageStore store = open();
        StoreTransaction damaged = store.newTransaction();
        damaged.storeMessage(1, bytes("m1"), bytes("c1"));
        damaged.enqueue(queue, 1);
        damaged.enqueue(queue, 50);
        commit(damaged);
        store.close();

        BdbMessageStore reopened = open();
        StoreFixture.Recovered recovered = recover(reopened, queue);

        assertThat(recovered.horizon).isEqualTo(50);
        assertThat(recovered.entries.get(queue)).containsExactly(1L, 50L);
        assertThat(recovered.entriesWithoutMessage).containsExactly(50L);
        assertThat(recovered.messageIds).containsExactly(1L);
        assertThat(reopened.nextMessageId()).isGreaterThan(50);
    }

    @Test
    void nextMessageIdIsAboveEveryStoredIdAfterReopenEvenBeforeRecovery() throws Exception {
        BdbMessageStore store = open();
        StoreTransaction txn = store.newTransaction();
        txn.storeMessage(1_000_000, bytes("m"), bytes("c"));
        commit(txn);
        store.close();

        assertThat(open().nextMessageId()).isEqualTo(1_000_001);
    }

    @Test
    void dequeueOnlyTransactionsCommitWithoutAFlushAndAreRecoveredAsRemoved() throws Exception {
        UUID queue = UUID.randomUUID();
        BdbMessageStore store = open();
        StoreTransaction publish = store.newTransaction();
        for (long id = 1; id <= 3; id++) {
            publish.storeMessage(id, bytes("m" + id), bytes("content" + id));
            publish.enqueue(queue, id);
        }
        commit(publish);
        CommitterStats before = store.stats().orElseThrow().committer();

        StoreTransaction consume = store.newTransaction();
        consume.dequeue(queue, 2);
        consume.removeMessage(2);
        commit(consume);

        CommitterStats after = store.stats().orElseThrow().committer();
        assertThat(after.flushes()).isEqualTo(before.flushes());
        assertThat(after.commits()).isEqualTo(before.commits() + 1);
        store.close();

        BdbMessageStore reopened = open();
        StoreFixture.Recovered recovered = recover(reopened, queue);
        assertThat(recovered.metadata.keySet()).containsExactly(1L, 3L);
        assertThat(recovered.entries.get(queue)).containsExactly(1L, 3L);
        assertThat(failureKind(reopened.loadContent(2))).isEqualTo(ErrorKind.NOT_FOUND);
    }

    @Test
    void removedAndReplacedConfigRecordsAreRecoveredAsLastCommitted() throws Exception {
        UUID kept = UUID.randomUUID();
        UUID removed = UUID.randomUUID();
        BdbMessageStore store = open();
        StoreTransaction create = store.newTransaction();
        create.putConfig(new ConfigRecord(kept, ConfigRecord.QUEUE, Map.of("name", "q", "maxDepth", "10")));
        create.putConfig(new ConfigRecord(removed, ConfigRecord.BINDING, Map.of("key", "k")));
        commit(create);
        StoreTransaction change = store.newTransaction();
        change.putConfig(new ConfigRecord(kept, ConfigRecord.QUEUE, Map.of("name", "q", "maxDepth", "20")));
        change.removeConfig(removed);
        commit(change);
        store.close();

        StoreFixture.Recovered recovered = recover(open());
        assertThat(recovered.configRecords).containsOnlyKeys(kept);
        assertThat(recovered.configRecords.get(kept).attributes()).containsEntry("maxDepth", "20");
    }

    @Test
    void removingAQueueRecordRemovesItsEntriesButNoOtherQueues() throws Exception {
        UUID deleted = UUID.randomUUID();
        UUID kept = UUID.randomUUID();
        BdbMessageStore store = open();
        StoreTransaction create = store.newTransaction();
        create.putConfig(new ConfigRecord(deleted, ConfigRecord.QUEUE, Map.of("name", "deleted")));
        create.putConfig(new ConfigRecord(kept, ConfigRecord.QUEUE, Map.of("name", "kept")));
        create.storeMessage(1, bytes("m"), bytes("c"));
        create.enqueue(deleted, 1);
        create.enqueue(kept, 1);
        create.storeMessage(2, bytes("m"), bytes("c"));
        create.enqueue(deleted, 2);
        commit(create);
        StoreTransaction delete = store.newTransaction();
        delete.removeConfig(deleted);
        commit(delete);
        store.close();

        StoreFixture.Recovered recovered = recover(open(), deleted);
        assertThat(recovered.configRecords).containsOnlyKeys(kept);
        assertThat(recovered.entries).containsOnlyKeys(kept);
        assertThat(recovered.entries.get(kept)).containsExactly(1L);
    }

    @Test
    void concurrentCommitsShareFsyncs() throws Exception {
        BdbMessageStore store = open();
        UUID queue = UUID.randomUUID();
        long fsyncsBefore = store.stats().orElseThrow().logFsyncs();
        int threads = 8;
        int commitsPerThread = 50;
        ExecutorService publishers = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<CompletableFuture<Void>>>> submitted = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                submitted.add(publishers.submit(() -> {
                    List<CompletableFuture<Void>> futures = new ArrayList<>();
                    for (int i = 0; i < commitsPerThread; i++) {
                        long id = store.nextMessageId();
                        StoreTransaction txn = store.newTransaction();
                        txn.storeMessage(id, bytes("m"), new byte[512]);
                        txn.enqueue(queue, id);
                        futures.add(txn.commit());
                    }
                    return futures;
                }));
            }
            for (Future<List<CompletableFuture<Void>>> batch : submitted) {
                for (CompletableFuture<Void> future : batch.get(30, TimeUnit.SECONDS)) {
                    assertThat(future).succeedsWithin(DEADLINE);
                }
            }
        } finally {
            publishers.shutdownNow();
        }

        int commits = threads * commitsPerThread;
        BdbStoreStats stats = store.stats().orElseThrow();
        assertThat(stats.committer().commits()).isEqualTo(commits);
        assertThat(stats.committer().flushes()).isLessThan(commits);
        assertThat(stats.committer().largestBatch()).isGreaterThan(1);
        assertThat(stats.logFsyncs() - fsyncsBefore).isLessThan(commits);
        assertThat(recover(store, queue).entries.get(queue)).hasSize(commits);
    }

    @Test
    void withoutCoalescingSyncEachCommitIsSyncedByJeAndCompletesAlone() throws Exception {
        BdbMessageStore store = open(Map.of("durability", "SYNC", "coalescingSync", "false"));
        long fsyncsBefore = store.stats().orElseThrow().logFsyncs();

        for (int i = 0; i < 20; i++) {
            StoreTransaction txn = store.newTransaction();
            txn.storeMessage(store.nextMessageId(), bytes("m"), bytes("c"));
            commit(txn);
        }

        BdbStoreStats stats = store.stats().orElseThrow();
        assertThat(stats.committer().flushes()).isZero();
        assertThat(stats.committer().commits()).isEqualTo(20);
        assertThat(stats.logFsyncs() - fsyncsBefore).isGreaterThanOrEqualTo(20);
    }

    @Test
    void anEmptyTransactionCompletesAtOnceAndATransactionCommitsOnce() throws Exception {
        BdbMessageStore store = open();
        StoreTransaction empty = store.newTransaction();
        assertThat(empty.isEmpty()).isTrue();
        assertThat(empty.commit()).isCompleted();

        StoreTransaction txn = store.newTransaction();
        txn.removeMessage(42);
        assertThat(txn.isEmpty()).isFalse();
        commit(txn);
        assertThat(failureKind(txn.commit())).isEqualTo(ErrorKind.ILLEGAL_STATE);
        assertThatThrownBy(() -> txn.removeMessage(43)).isInstanceOf(BrokerException.class);
    }

    @Test
    void closeIsIdempotentAndLaterOperationsFailWithNotActive() throws Exception {
        BdbMessageStore store = open();
        StoreTransaction pending = store.newTransaction();
        pending.storeMessage(1, bytes("m"), bytes("c"));

        store.close();
        store.close();

        assertThat(store.status().role()).isEqualTo("CLOSED");
        assertThat(store.status().writable()).isFalse();
        assertThat(failureKind(pending.commit())).isEqualTo(ErrorKind.NOT_ACTIVE);
        assertThat(failureKind(store.loadContent(1))).isEqualTo(ErrorKind.NOT_ACTIVE);
        assertThatThrownBy(() -> store.recover(record -> { }))
                .isInstanceOfSatisfying(BrokerException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.NOT_ACTIVE));
        assertThat(fixture.linesWithCode("MST-1003")).isEqualTo(1);
    }

    @Test
    void closeFromACommitCompletionDoesNotDeadlock() throws Exception {
        BdbMessageStore store = open();
        StoreTransaction txn = store.newTransaction();
        txn.storeMessage(1, bytes("m"), bytes("c"));

        assertThat(txn.commit().thenRun(store::close)).succeedsWithin(DEADLINE);
        org.awaitility.Awaitility.await().atMost(DEADLINE).until(() -> store.status().role().equals("CLOSED"));
        org.awaitility.Awaitility.await().atMost(DEADLINE).until(() -> fixture.linesWithCode("MST-1003") == 1);
        assertThat(open().status().writable()).isTrue();
    }

    @Test
    void aJePropertiesFileInTheStoreDirectoryIsIgnored() throws Exception {
        Path storeDir = work.resolve("test/store");
        Files.createDirectories(storeDir);
        Files.writeString(storeDir.resolve("je.properties"), "je.log.fileMax=not-a-number\nje.env.isReadOnly=true\n");

        BdbMessageStore store = open();
        StoreTransaction txn = store.newTransaction();
        txn.storeMessage(1, bytes("m"), bytes("c"));
        commit(txn);
    }

    @Test
    void aStoreThatCannotOpenReportsPassiveAndNotWritable() throws Exception {
        Files.writeString(work.resolve("blocker"), "a file where a directory should be");
        BdbMessageStore store = fixture.create(Map.of("storePath", "blocker/store"), List.of());
        opened.add(store);
        StoreFixture.RoleListener listener = new StoreFixture.RoleListener();

        store.start(listener);

        assertThat(listener.passive).succeedsWithin(DEADLINE).asString().startsWith("cannot open the store at");
        assertThat(listener.active).isNotDone();
        assertThat(store.status().writable()).isFalse();
        assertThat(store.status().description()).startsWith("failed to open");
        StoreTransaction txn = store.newTransaction();
        txn.storeMessage(1, bytes("m"), bytes("c"));
        assertThat(failureKind(txn.commit())).isEqualTo(ErrorKind.NOT_ACTIVE);
    }
}
