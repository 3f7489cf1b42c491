package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.config.QueueOptions;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.selector.Selector;
import org.tandembroker.core.testing.RecordingConsumer;

/**
 * A durable queue deeper than its heap window keeps the messages beyond the window in the store only and reads them
 * back, in order, as its consumers take the head.
 */
class QueueHeapWindowTest {
    private static final int WINDOW = 8;
    private final StoredQueueHost host = new StoredQueueHost(WINDOW);
    private final BrokerQueue queue = host.queue("deep");

    private RecordingConsumer consumer(int credit, MessageFilter filter) {
        RecordingConsumer target = new RecordingConsumer();
        queue.subscribe(target, false, filter, false).join().addCredit(credit);
        return target;
    }

    private static String text(Delivery delivery) {
        return new String(delivery.content(), StandardCharsets.UTF_8);
    }

    /** Takes {@code n} deliveries, accepting each; returns their texts. */
    private static List<String> consume(RecordingConsumer target, int n) throws InterruptedException {
        List<String> texts = new ArrayList<>();
        for (Delivery delivery : target.next(n)) {
            texts.add(text(delivery));
            delivery.accept(null).join();
        }
        return texts;
    }

    private void publish(int from, int to) {
        for (int i = from; i < to; i++) {
            host.publish(host.message("m-" + i), queue);
        }
    }

    private static List<String> texts(int from, int to) {
        List<String> texts = new ArrayList<>();
        for (int i = from; i < to; i++) {
            texts.add("m-" + i);
        }
        return texts;
    }

    private long storedMessages() {
        return host.store.recover(record -> { }).messageIds(0, 100_000).join().length;
    }

    @Test
    void messagesBeyondTheWindowStayInTheStoreOnlyAndCountInTheDepth() {
        publish(0, 100);

        assertThat(queue.pagedCount()).isEqualTo(100 - WINDOW);
        assertThat(queue.depthMessages()).isEqualTo(100);
        assertThat(queue.depthBytes()).isEqualTo(10 * "m-0".length() + 90 * "m-10".length());
        assertThat(host.reads()).as("nothing read back while no consumer took anything").isZero();
    }

    @Test
    void aQueueDeeperThanItsWindowDeliversEveryMessageExactlyOnceInOrder() throws Exception {
        publish(0, 100);
        RecordingConsumer target = consumer(1000, MessageFilter.ALL);

        assertThat(consume(target, 100)).isEqualTo(texts(0, 100));
        assertThat(target.pending()).as("nothing delivered twice").isZero();
        assertThat(queue.depthMessages()).isZero();
        assertThat(queue.depthBytes()).isZero();
        assertThat(queue.pagedCount()).isZero();
        assertThat(storedMessages()).as("every message left the store").isZero();
    }

    @Test
    void bodiesReadBackWithTheirMetadataAreDeliveredWithoutAnotherReadAndLeaveTheBudgetWhenTaken() throws Exception {
        ContentBudget budget = new ContentBudget(1 << 20);
        host.readBodiesWithMetadataWithin(budget);
        publish(0, 100);
        RecordingConsumer target = consumer(1000, MessageFilter.ALL);

        assertThat(consume(target, 100)).isEqualTo(texts(0, 100));
        assertThat(host.contentReads()).as("bodies read again on delivery").isZero();
        assertThat(budget.usedBytes()).as("bodies still counted once every message was taken").isZero();
    }

    @Test
    void bodiesReadBackBeyondTheContentBudgetAreNotKeptAndAreReadOnDelivery() throws Exception {
        ContentBudget full = new ContentBudget(0);
        host.readBodiesWithMetadataWithin(full);
        publish(0, 100);
        RecordingConsumer target = consumer(1000, MessageFilter.ALL);

        assertThat(consume(target, 100)).isEqualTo(texts(0, 100));
        assertThat(host.contentReads()).as("one read per paged message, on delivery").isEqualTo(100 - WINDOW);
        assertThat(full.usedBytes()).isZero();
    }

    @Test
    void messagesPublishedWhileABatchIsBeingReadQueueBehindIt() throws Exception {
        publish(0, 20);
        host.holdReads();
        RecordingConsumer target = consumer(1000, MessageFilter.ALL);
        assertThat(consume(target, WINDOW)).isEqualTo(texts(0, WINDOW));

        publish(20, 25); // the window has room now, but older messages are still being read back
        assertThat(target.pending()).as("newer messages never overtake paged older ones").isZero();
        while (host.completeReads() > 0) {
            // each batch read back lets the queue ask for the next
        }

        assertThat(consume(target, 25 - WINDOW)).isEqualTo(texts(WINDOW, 25));
    }

    @Test
    void theNextBatchIsAskedForBeforeTheWindowRunsDry() throws Exception {
        publish(0, 40);
        host.holdReads();
        RecordingConsumer target = consumer(WINDOW / 4, MessageFilter.ALL);

        consume(target, WINDOW / 4);

        assertThat(host.reads()).as("a read is on its way while the window still holds messages").isEqualTo(1);
        assertThat(target.pending()).isEqualTo(0);
    }

    @Test
    void aHigherPriorityMessageIsNotQueuedBehindPagedLowerOnes() throws Exception {
        publish(0, 30);
        host.publish(host.message("urgent", 9, 0, null, Map.of()), queue);
        RecordingConsumer target = consumer(1000, MessageFilter.ALL);

        List<String> delivered = consume(target, 31);

        assertThat(delivered.get(0)).isEqualTo("urgent");
        assertThat(delivered.subList(1, 31)).isEqualTo(texts(0, 30));
    }

    @Test
    void aLowerPriorityMessageQueuesBehindPagedHigherOnes() throws Exception {
        publish(0, 30);
        host.publish(host.message("later", 1, 0, null, Map.of()), queue);
        assertThat(queue.pagedCount()).isEqualTo(30 - WINDOW + 1);
        RecordingConsumer target = consumer(1000, MessageFilter.ALL);

        List<String> delivered = consume(target, 31);

        assertThat(delivered.get(30)).isEqualTo("later");
    }

    @Test
    void theDepthLimitCountsPagedMessages() {
        BrokerQueue limited = host.queue("limited", QueueOptions.DEFAULT, 50, 0);
        for (int i = 0; i < 50; i++) {
            host.publish(host.message("m-" + i), limited);
        }

        assertThat(limited.pagedCount()).isEqualTo(50 - WINDOW);
        assertThatThrownBy(() -> host.publish(host.message("one-too-many"), limited))
                .isInstanceOf(BrokerException.class).hasMessageContaining("maxDepthMessages 50");
    }

    @Test
    void aPagedMessageThatExpiredIsNotDeliveredOnceReadBack() throws Exception {
        publish(0, WINDOW);
        host.publish(host.message("short-lived", 4, 1000, null, Map.of()), queue);
        publish(WINDOW, WINDOW + 2);
        host.advance(2000);
        RecordingConsumer target = consumer(1000, MessageFilter.ALL);
        consume(target, WINDOW);

        queue.expireEntries();

        assertThat(consume(target, 2)).isEqualTo(texts(WINDOW, WINDOW + 2));
        assertThat(queue.depthMessages()).isZero();
        assertThat(storedMessages()).isZero();
    }

    @Test
    void aGroupsPagedMessagesGoToItsOwnerInOrder() throws Exception {
        for (int i = 0; i < 30; i++) {
            host.publish(host.message("g-" + i, 4, 0, i % 2 == 0 ? "even" : "odd", Map.of()), queue);
        }
        RecordingConsumer a = new RecordingConsumer();
        Subscription atA = queue.subscribe(a, false).join();
        atA.addCredit(1);
        List<String> evens = new ArrayList<>(consume(a, 1)); // "even" is a's now
        RecordingConsumer b = consumer(1000, MessageFilter.ALL);
        atA.addCredit(1000);

        List<String> odds = new ArrayList<>();
        for (int round = 0; round < 30 && evens.size() + odds.size() < 30; round++) {
            evens.addAll(consume(a, a.pending()));
            odds.addAll(consume(b, b.pending()));
        }

        assertThat(evens).isEqualTo(List.of("g-0", "g-2", "g-4", "g-6", "g-8", "g-10", "g-12", "g-14", "g-16",
                "g-18", "g-20", "g-22", "g-24", "g-26", "g-28"));
        assertThat(odds).isEqualTo(List.of("g-1", "g-3", "g-5", "g-7", "g-9", "g-11", "g-13", "g-15", "g-17",
                "g-19", "g-21", "g-23", "g-25", "g-27", "g-29"));
    }

    @Test
    void aFilteringConsumerReceivesPagedMessagesItSelectsOnceTheyAreReadBack() throws Exception {
        for (int i = 0; i < 30; i++) {
            host.publish(host.message("s-" + i, 4, 0, null, Map.of("colour", i % 3 == 0 ? "red" : "blue")), queue);
        }
        RecordingConsumer reds = consumer(1000, new MessageFilter(Selector.parse("colour = 'red'"), null));
        RecordingConsumer blues = consumer(1000, new MessageFilter(Selector.parse("colour = 'blue'"), null));

        List<String> red = new ArrayList<>();
        List<String> blue = new ArrayList<>();
        for (int round = 0; round < 30 && red.size() + blue.size() < 30; round++) {
            red.addAll(consume(reds, reds.pending()));
            blue.addAll(consume(blues, blues.pending()));
        }

        assertThat(red).isEqualTo(List.of("s-0", "s-3", "s-6", "s-9", "s-12", "s-15", "s-18", "s-21", "s-24",
                "s-27"));
        assertThat(blue).hasSize(20);
    }

    @Test
    void aSelectorThatMatchesNothingInTheWindowStillReceivesMatchesBeyondIt() throws Exception {
        for (int i = 0; i < 40; i++) {
            host.publish(host.message("s-" + i, 4, 0, null, Map.of("colour", i >= 37 ? "red" : "blue")), queue);
        }

        RecordingConsumer reds = consumer(1000, new MessageFilter(Selector.parse("colour = 'red'"), null));

        assertThat(consume(reds, 3)).containsExactly("s-37", "s-38", "s-39");
        assertThat(queue.depthMessages()).isEqualTo(37);
    }

    @Test
    void aBrowserSeesEveryMessageInOrderIncludingPagedOnesAndTakesNone() throws Exception {
        publish(0, 30);
        RecordingConsumer browser = new RecordingConsumer();
        queue.subscribe(browser, false, MessageFilter.ALL, true).join().addCredit(1000);

        List<String> browsed = new ArrayList<>();
        for (Delivery delivery : browser.next(30)) {
            browsed.add(text(delivery));
        }

        assertThat(browsed).isEqualTo(texts(0, 30));
        assertThat(queue.depthMessages()).isEqualTo(30);
        assertThat(consume(consumer(1000, MessageFilter.ALL), 30)).isEqualTo(texts(0, 30));
    }

    @Test
    void aReleasedMessageComesBackAheadOfPagedOnes() throws Exception {
        publish(0, 20);
        RecordingConsumer first = consumer(2, MessageFilter.ALL);
        List<Delivery> taken = first.next(2);

        taken.get(0).release();
        RecordingConsumer second = consumer(1000, MessageFilter.ALL);

        List<String> expected = new ArrayList<>(List.of("m-0"));
        expected.addAll(texts(2, 20));
        assertThat(consume(second, 19)).isEqualTo(expected);
    }

    @Test
    void aMessageSharedWithAnotherQueueStaysOnTheHeapAndInTheStoreUntilBothTookIt() throws Exception {
        BrokerQueue other = host.queue("other");
        publish(0, WINDOW);
        ServerMessage shared = host.message("shared");
        host.publish(shared, queue, other);
        publish(WINDOW, WINDOW + 3);
        RecordingConsumer target = consumer(1000, MessageFilter.ALL);

        List<String> delivered = consume(target, WINDOW + 4);

        assertThat(delivered.get(WINDOW)).isEqualTo("shared");
        assertThat(storedMessages()).as("the other queue still holds it").isEqualTo(1);
        RecordingConsumer atOther = new RecordingConsumer();
        other.subscribe(atOther, false).join().addCredit(10);
        assertThat(consume(atOther, 1)).containsExactly("shared");
        assertThat(storedMessages()).isZero();
    }

    @Test
    void deletingADeepQueueRemovesItsPagedMessagesFromTheStore() {
        publish(0, 100);

        queue.shutdown("deleted", true).join();

        assertThat(storedMessages()).isZero();
    }

    @Test
    void aLastValueQueueKeepsEveryEntryOnTheHeap() {
        BrokerQueue lastValue = host.queue("prices", QueueOptions.DEFAULT.withLastValueKey("symbol"), 0, 0);
        for (int i = 0; i < 30; i++) {
            host.publish(host.message("p-" + i, 4, 0, null, Map.of("symbol", "S" + i)), lastValue);
        }

        assertThat(lastValue.heapWindow()).isZero();
        assertThat(lastValue.pagedCount()).isZero();
    }
}
