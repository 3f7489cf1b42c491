package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.testing.RecordingConsumer;

/**
 * A queue entry whose content cannot be read when it is delivered (reliability finding 4: an entry whose message
 * had gone from the store stayed at the head of its queue, retried without end, one ERROR with a stack trace per
 * attempt). A message the store does not hold leaves the queue once, logged; a store that cannot read now is
 * retried after a pause, not at once.
 */
class UnreadableMessageTest {
    private final StoredQueueHost host = new StoredQueueHost(1000);
    private final BrokerQueue queue = host.queue("q");
    private final List<String> operationalLog = new CopyOnWriteArrayList<>();

    UnreadableMessageTest() {
        host.operationalLog().addObserver(operationalLog::add);
    }

    private ServerMessage publish(String text) {
        ServerMessage message = host.message(text);
        host.publish(message, queue);
        return message;
    }

    /** The content is no longer on the heap (evicted by the content budget): a delivery reads it from the store. */
    private static void evict(ServerMessage message) {
        message.releaseContent();
    }

    private RecordingConsumer consumer(int credit) {
        RecordingConsumer target = new RecordingConsumer();
        queue.subscribe(target, false, MessageFilter.ALL, false).join().addCredit(credit);
        return target;
    }

    private static String text(Delivery delivery) {
        return new String(delivery.content(), StandardCharsets.UTF_8);
    }

    @Test
    void anEntryWhoseMessageIsNotInTheStoreLeavesTheQueueOnceAndTheNextMessagesAreDelivered() throws Exception {
        publish("m-0");
        ServerMessage vanished = publish("m-1");
        publish("m-2");
        evict(vanished);
        StoreTransaction removal = host.store.newTransaction();
        removal.removeMessage(vanished.id());
        removal.commit().join();

        RecordingConsumer target = consumer(2);

        List<Delivery> deliveries = target.next(2);
        assertThat(deliveries).extracting(UnreadableMessageTest::text)
                .as("the credit the unreadable entry took is given back").containsExactly("m-0", "m-2");
        for (Delivery delivery : deliveries) {
            delivery.accept(null).join();
        }
        assertThat(queue.depthMessages()).as("the entry without a message left the queue").isZero();
        assertThat(operationalLog).filteredOn(line -> line.startsWith("VHT-1012")).singleElement()
                .asString().contains("queue q", "message " + vanished.id(), "is not in the store");
        assertThat(host.contentReads()).as("read once, not retried").isEqualTo(1);
        assertThat(target.pending()).isZero();
    }

    @Test
    void aStoreThatCannotReadNowKeepsTheEntryAndIsAskedAgainAfterAPauseNotAtOnce() throws Exception {
        ServerMessage message = publish("m-0");
        evict(message);
        host.failContentReads(1, ErrorKind.NOT_ACTIVE);

        RecordingConsumer target = consumer(1);

        assertThat(target.pending()).as("nothing delivered while the store cannot read").isZero();
        assertThat(host.contentReads()).as("no retry before the pause").isEqualTo(1);
        assertThat(queue.depthMessages()).isEqualTo(1);

        assertThat(host.runScheduled()).isEqualTo(1);

        Delivery delivery = target.next(Duration.ofSeconds(5));
        assertThat(delivery).isNotNull();
        assertThat(text(delivery)).isEqualTo("m-0");
        delivery.accept(null).join();
        assertThat(queue.depthMessages()).isZero();
        assertThat(operationalLog).noneMatch(line -> line.startsWith("VHT-1012"));
    }
}
