package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.testing.ControlledStore;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;

/**
 * One queue name, one stored queue: a declaration that failed in doubt and is made again stores one record, and a
 * store that holds two records of one name (written by a broker before this fix) loses no message to it.
 */
class DuplicateQueueRecordTest {
    @TempDir
    Path work;

    private VirtualHostHarness host(StoreFixture fixture) {
        return new VirtualHostHarness(VirtualHostHarness.config(true, VirtualHostHarness.DEFAULTS, List.of(),
                List.of(), List.of()), () -> {
                    try {
                        return fixture.create(Map.of(), List.of());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, 64L * 1024 * 1024);
    }

    private static byte[] metadata(int contentSize) {
        return MetadataCodec.encode(new MessageMetadata(null, null, true, 4, 0, System.currentTimeMillis(),
                contentSize));
    }

    /** The queue records in the store, by name, as the next recovery reads them. */
    private static Map<String, List<UUID>> queueRecords(StoreFixture fixture) throws Exception {
        BdbMessageStore store = fixture.open();
        try {
            Map<String, List<UUID>> byName = new java.util.TreeMap<>();
            store.recover(new RecoveryHandler() {
                @Override
                public void configRecord(ConfigRecord record) {
                    if (record.type().equals(ConfigRecord.QUEUE)) {
                        byName.computeIfAbsent(record.attributes().get("name"), n -> new ArrayList<>())
                                .add(record.id());
                    }
                }
            });
            return byName;
        } finally {
            store.close();
        }
    }

    private static List<String> receiveAll(VirtualHostHarness harness, String queue, int count) throws Exception {
        RecordingConsumer consumer = new RecordingConsumer();
        harness.host().subscribe(queue, consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(count + 10);
        List<String> texts = new ArrayList<>();
        for (Delivery delivery : consumer.next(count)) {
            texts.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
        }
        assertThat(consumer.pending()).as("nothing beyond the expected").isZero();
        return texts;
    }

    @Test
    void twoStoredRecordsOfOneQueueNameAreMergedAtRecoveryAndEveryMessageIsServedInOrder() throws Exception {
        StoreFixture fixture = new StoreFixture(work);
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        BdbMessageStore store = fixture.open();
        try {
            StoreTransaction txn = store.newTransaction();
            txn.putConfig(new ConfigRecord(first, ConfigRecord.QUEUE, Map.of("name", "orders")));
            txn.putConfig(new ConfigRecord(second, ConfigRecord.QUEUE, Map.of("name", "orders")));
            txn.putConfig(new ConfigRecord(UUID.randomUUID(), ConfigRecord.BINDING,
                    Map.of("exchange", "amq.direct", "queue", second.toString(), "key", "orders")));
            for (int i = 0; i < 6; i++) { // alternately under each record, as a race would leave them
                byte[] content = ("m" + i).getBytes(StandardCharsets.UTF_8);
                long id = store.nextMessageId();
                txn.storeMessage(id, metadata(content.length), content);
                txn.enqueue(i % 2 == 0 ? first : second, id);
            }
            txn.commit().join();
        } finally {
            store.close();
        }

        try (VirtualHostHarness harness = host(fixture)) {
            assertThat(harness.host().queue("orders").orElseThrow().depthMessages()).isEqualTo(6);
            assertThat(harness.logLines()).filteredOn(line -> line.startsWith("VHT-1011")).singleElement()
                    .satisfies(line -> assertThat(line).contains(": orders : 3 stored entries of record"));
        }
        assertThat(queueRecords(fixture).get("orders")).as("one record left").hasSize(1);

        try (VirtualHostHarness restarted = host(fixture)) {
            assertThat(restarted.logLines()).noneMatch(line -> line.startsWith("VHT-1011"));
            restarted.publish("amq.direct/orders", "bound"); // the duplicate's binding now routes to the kept queue
            assertThat(receiveAll(restarted, "orders", 7)).containsExactly("m0", "m1", "m2", "m3", "m4", "m5",
                    "bound");
        }
    }

    @Test
    void aQueueWhoseDeclarationWasInDoubtIsStoredOnceWhenDeclaredAgain() throws Exception {
        StoreFixture fixture = new StoreFixture(work);
        ControlledStore store = new ControlledStore(fixture.create(Map.of(), List.of()), false);
        try (VirtualHostHarness harness = new VirtualHostHarness(VirtualHostHarness.config(true,
                VirtualHostHarness.DEFAULTS, List.of(), List.of(), List.of()), () -> store, 64L * 1024 * 1024)) {
            // A replicated master whose replicas did not acknowledge the queue's record in time: stored, yet failed.
            store.failNextCommitAfterStoring(new BrokerException(ErrorKind.IN_DOUBT, "acknowledgements missing"));
            assertThatThrownBy(() -> harness.publish("orders", "refused")).hasRootCauseMessage("acknowledgements missing");

            harness.publish("orders", "m0");
            harness.publish("orders", "m1");
        }

        assertThat(queueRecords(fixture).get("orders")).as("one record of the name").hasSize(1);
        try (VirtualHostHarness restarted = host(fixture)) {
            assertThat(receiveAll(restarted, "orders", 2)).containsExactly("m0", "m1");
        }
    }
}
