package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.tandembroker.core.message.MessageMetadata;
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

    private static ServerMessage message(long id, long expiresAtMillis) {
        return new ServerMessage(id, new MessageMetadata(null, null, true, 4, expiresAtMillis, ARRIVAL, 10),
                new byte[10], false);
    }
}
