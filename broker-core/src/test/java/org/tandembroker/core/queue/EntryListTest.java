package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MessageProperties;
import org.tandembroker.core.selector.Selector;
import org.tandembroker.core.message.ServerMessage;

class EntryListTest {
    private static final long ARRIVAL = 1_000_000;
    private final QueueConsumer first = new QueueConsumer(null, null, false);
    private final QueueConsumer second = new QueueConsumer(null, null, false);

    @Test
    void newEntriesComeInArrivalOrder() {
        EntryList entries = new EntryList(0);
        entries.add(message(1, 0), 0);
        entries.add(message(2, 0), 0);

        assertThat(entries.takeNext(first).message.id()).isEqualTo(1);
        assertThat(entries.takeNext(first).message.id()).isEqualTo(2);
        assertThat(entries.takeNext(first)).isNull();
    }

    @Test
    void anEntryThatComesBackGoesAheadOfNewerEntriesButBehindOlderOnes() {
        EntryList entries = new EntryList(0);
        entries.add(message(1, 0), 0);
        QueueEntry taken = entries.takeNext(first);
        entries.add(message(2, 0), 0);
        entries.putBack(taken);

        assertThat(entries.takeNext(first)).isSameAs(taken);
        assertThat(entries.takeNext(first).message.id()).isEqualTo(2);
    }

    @Test
    void anEntryRefusedByOneConsumerStillGoesToAnother() {
        EntryList entries = new EntryList(0);
        entries.add(message(1, 0), 0);
        QueueEntry refused = entries.takeNext(first);
        refused.refuse(first);
        entries.putBack(refused);
        entries.add(message(2, 0), 0);

        assertThat(entries.takeNext(first).message.id()).as("the refusing consumer gets the next one").isEqualTo(2);
        assertThat(entries.takeNext(second)).isSameAs(refused);
    }

    @Test
    void anEntryExpiresAtTheEarlierOfItsMessagesAndTheQueuesExpiry() {
        EntryList entries = new EntryList(5_000);

        assertThat(entries.add(message(1, 0), 0).expiresAtMillis).isEqualTo(ARRIVAL + 5_000);
        assertThat(entries.add(message(2, ARRIVAL + 1_000), 0).expiresAtMillis).isEqualTo(ARRIVAL + 1_000);
        assertThat(entries.add(message(3, ARRIVAL + 9_000), 0).expiresAtMillis).isEqualTo(ARRIVAL + 5_000);
    }

    @Test
    void takingExpiredEntriesLeavesTheOthersInOrder() {
        EntryList entries = new EntryList(0);
        entries.add(message(1, ARRIVAL + 10), 0);
        entries.add(message(2, 0), 0);
        entries.add(message(3, ARRIVAL + 10), 0);
        entries.add(message(4, ARRIVAL + 99_000), 0);
        QueueEntry returned = entries.takeNext(first);
        entries.putBack(returned);

        assertThat(entries.takeExpired(ARRIVAL + 10)).extracting(e -> e.message.id()).containsExactlyInAnyOrder(1L, 3L);
        assertThat(entries.messages()).extracting(ServerMessage::id).containsExactly(2L, 4L);
    }

    @Test
    void withNoEntryThatCanExpireNothingIsTaken() {
        EntryList entries = new EntryList(0);
        QueueEntry entry = entries.add(message(1, ARRIVAL + 10), 0);
        entries.takeNext(first);
        entries.forget(entry);
        entries.add(message(2, 0), 0);

        assertThat(entries.takeExpired(Long.MAX_VALUE)).isEmpty();
    }

    private static QueueConsumer selecting(String selector) throws Exception {
        return new QueueConsumer(null, null, false, new MessageFilter(Selector.parse(selector), null), false);
    }

    private static ServerMessage coloured(long id, String colour) {
        return new ServerMessage(id, new MessageMetadata(null, null, true, 4, 0, ARRIVAL, 10,
                new MessageProperties(null, null, null, null, null, 0, Map.of("colour", colour))), new byte[10], false);
    }

    @Test
    void aFilteringConsumerTakesFromTheMiddleAndTheSkippedEntriesStayInOrderForOthers() throws Exception {
        EntryList entries = new EntryList(0);
        QueueConsumer reds = selecting("colour = 'red'");
        reds.cursor = entries.openCursor(reds.filter);
        for (long id = 1; id <= 6; id++) {
            entries.add(coloured(id, id % 3 == 0 ? "red" : "blue"), 0);
        }

        assertThat(entries.takeNext(reds).message.id()).isEqualTo(3);
        assertThat(entries.takeNext(first).message.id()).isEqualTo(1);
        assertThat(entries.takeNext(reds).message.id()).isEqualTo(6);
        assertThat(entries.takeNext(reds)).isNull();
        assertThat(entries.messages()).extracting(ServerMessage::id).containsExactly(2L, 4L, 5L);
    }

    @Test
    void aFilteringConsumerEvaluatesEachNewEntryOnceHoweverDeepTheQueue() throws Exception {
        EntryList entries = new EntryList(0);
        QueueConsumer rare = selecting("colour = 'red'");
        rare.cursor = entries.openCursor(rare.filter);
        int depth = 100_000;
        for (long id = 1; id <= depth; id++) {
            entries.add(coloured(id, id % 1_000 == 0 ? "red" : "blue"), 0);
        }
        List<Long> taken = new ArrayList<>();
        for (QueueEntry e = entries.takeNext(rare); e != null; e = entries.takeNext(rare)) {
            taken.add(e.message.id());
        }

        assertThat(taken).hasSize(100).startsWith(1_000L, 2_000L).endsWith(100_000L);
        // A rescan from the head for each of the 100 deliveries would be about 5,000,000 evaluations.
        assertThat(entries.filterEvaluations()).isEqualTo(depth);
    }

    @Test
    void aCursorCarriesOnWhenTheEntryItStoppedAtIsTakenByAnother() throws Exception {
        EntryList entries = new EntryList(0);
        QueueConsumer reds = selecting("colour = 'red'");
        reds.cursor = entries.openCursor(reds.filter);
        entries.add(coloured(1, "blue"), 0);
        entries.add(coloured(2, "blue"), 0);
        assertThat(entries.takeNext(reds)).isNull();
        assertThat(entries.takeNext(first).message.id()).isEqualTo(1);
        assertThat(entries.takeNext(first).message.id()).isEqualTo(2);
        entries.add(coloured(3, "red"), 0);

        assertThat(entries.takeNext(reds).message.id()).isEqualTo(3);
    }

    @Test
    void aReturnedEntryIsSelectedAgainWithItsDeliveryCount() throws Exception {
        EntryList entries = new EntryList(0);
        QueueConsumer redelivered = selecting("JMSRedelivered");
        redelivered.cursor = entries.openCursor(redelivered.filter);
        entries.add(coloured(1, "blue"), 0);
        assertThat(entries.takeNext(redelivered)).isNull();
        QueueEntry failed = entries.takeNext(first);
        failed.deliveryCount++;
        entries.putBack(failed);

        assertThat(entries.takeNext(redelivered)).isSameAs(failed);
    }

    @Test
    void aBrowserSeesEveryEntryOnceInQueueOrderAndTakesNone() throws Exception {
        EntryList entries = new EntryList(0);
        QueueConsumer browser = new QueueConsumer(null, null, false, MessageFilter.ALL, true);
        browser.cursor = entries.openCursor(browser.filter);
        entries.add(coloured(1, "red"), 0);
        QueueEntry taken = entries.takeNext(first);
        entries.add(coloured(2, "blue"), 0);
        entries.add(coloured(3, "red"), 0);
        entries.putBack(taken);

        assertThat(entries.browseNext(browser)).isSameAs(taken);
        assertThat(entries.browseNext(browser).message.id()).isEqualTo(2);
        assertThat(entries.takeNext(second).message.id()).as("taken under the browser").isEqualTo(1);
        assertThat(entries.takeNext(second).message.id()).isEqualTo(2);
        assertThat(entries.browseNext(browser).message.id()).isEqualTo(3);
        assertThat(entries.browseNext(browser)).isNull();
        entries.add(coloured(4, "red"), 0);
        assertThat(entries.browseNext(browser).message.id()).as("an arrival while browsing").isEqualTo(4);
        assertThat(entries.messages()).extracting(ServerMessage::id).containsExactly(3L, 4L);
    }

    @Test
    void aBrowserWithASelectorSeesOnlyWhatItSelects() throws Exception {
        EntryList entries = new EntryList(0);
        QueueConsumer browser = new QueueConsumer(null, null, false,
                new MessageFilter(Selector.parse("colour = 'red'"), null), true);
        browser.cursor = entries.openCursor(browser.filter);
        for (long id = 1; id <= 4; id++) {
            entries.add(coloured(id, id % 2 == 0 ? "red" : "blue"), 0);
        }

        assertThat(entries.browseNext(browser).message.id()).isEqualTo(2);
        assertThat(entries.browseNext(browser).message.id()).isEqualTo(4);
        assertThat(entries.browseNext(browser)).isNull();
        assertThat(entries.messages()).hasSize(4);
    }

    private static ServerMessage message(long id, long expiresAtMillis) {
        return new ServerMessage(id, new MessageMetadata(null, null, true, 4, expiresAtMillis, ARRIVAL, 10),
                new byte[10], false);
    }
}
