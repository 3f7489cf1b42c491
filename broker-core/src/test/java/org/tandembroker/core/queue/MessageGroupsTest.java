package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.selector.Selector;

class MessageGroupsTest {
    private final ManualQueueHost host = new ManualQueueHost();
    private final MessageGroups groups = new MessageGroups();
    private final QueueConsumer first = new QueueConsumer(null, null, false);
    private final QueueConsumer second = new QueueConsumer(null, null, false);
    private final List<QueueConsumer> consumers = List.of(first, second);
    private long sequence;

    private QueueEntry entry(String groupId) {
        return new QueueEntry(sequence++, host.message("m" + sequence, groupId, 0), 0, 0);
    }

    @Test
    void aGroupBelongsToTheConsumerThatTakesItsFirstMessage() {
        assertThat(groups.admit(entry("g"), first, consumers)).isTrue();

        assertThat(groups.ownerOf("g")).isSameAs(first);
        assertThat(groups.activeGroups()).isEqualTo(1);
        assertThat(groups.admit(entry("g"), first, consumers)).isTrue();
    }

    @Test
    void messagesWithoutAGroupGoToAnyConsumerAndAssignNothing() {
        assertThat(groups.admit(entry(null), first, consumers)).isTrue();
        assertThat(groups.admit(entry(null), second, consumers)).isTrue();

        assertThat(groups.activeGroups()).isZero();
    }

    @Test
    void anotherConsumersTakeWaitsForTheOwnerWhoGetsTheGroupsMessagesInOrder() {
        groups.admit(entry("g"), first, consumers);
        QueueEntry two = entry("g");
        QueueEntry three = entry("g");
        QueueEntry other = entry("h");

        assertThat(groups.admit(three, second, consumers)).isFalse();
        assertThat(groups.admit(two, second, consumers)).isFalse();
        assertThat(groups.admit(other, second, consumers)).as("another group: the taker's").isTrue();

        assertThat(groups.takeWaiting(second)).isNull();
        assertThat(groups.takeWaiting(first)).isSameAs(two);
        assertThat(groups.takeWaiting(first)).isSameAs(three);
        assertThat(groups.takeWaiting(first)).isNull();
        assertThat(groups.hasWaiting()).isFalse();
    }

    @Test
    void whenTheOwnerLeavesItsGroupsAreFreeAndTheirWaitingMessagesComeBackInOrder() {
        groups.admit(entry("g"), first, consumers);
        QueueEntry two = entry("g");
        QueueEntry three = entry("g");
        groups.admit(three, second, consumers);
        groups.admit(two, second, consumers);

        assertThat(groups.release(first)).containsExactly(two, three);

        assertThat(groups.ownerOf("g")).isNull();
        assertThat(groups.hasWaiting()).isFalse();
        assertThat(groups.admit(entry("g"), second, consumers)).isTrue();
        assertThat(groups.ownerOf("g")).isSameAs(second);
    }

    @Test
    void aReturnedMessageWaitsForItsOwnerAheadOfTheGroupsLaterOnes() {
        QueueEntry one = entry("g");
        groups.admit(one, first, consumers);
        QueueEntry two = entry("g");
        groups.admit(two, second, consumers);

        assertThat(groups.holdForOwner(one)).isTrue();

        assertThat(groups.takeWaiting(first)).isSameAs(one);
        assertThat(groups.takeWaiting(first)).isSameAs(two);
    }

    @Test
    void aMessageTheOwnersSelectorRejectsIsNotHeldForIt() throws Exception {
        QueueConsumer selective = new QueueConsumer(null, null, false,
                new MessageFilter(Selector.parse("JMSXGroupID = 'never'"), null), false);
        groups.admit(entry("g"), selective, List.of(selective, second));

        assertThat(groups.admit(entry("g"), second, List.of(selective, second))).isTrue();
    }

    @Test
    void aMessageTheOwnerRefusedIsNotHeldForIt() {
        groups.admit(entry("g"), first, consumers);
        QueueEntry refused = entry("g");
        refused.refuse(first);

        assertThat(groups.admit(refused, second, consumers)).isTrue();
        assertThat(groups.holdForOwner(refused)).isFalse();
    }

    @Test
    void expiredWaitingMessagesAreTakenOut() {
        groups.admit(entry("g"), first, consumers);
        QueueEntry expiring = new QueueEntry(sequence++, host.message("x", "g", 0), host.nowMillis() + 10, 0);
        QueueEntry lasting = entry("g");
        groups.admit(expiring, second, consumers);
        groups.admit(lasting, second, consumers);

        assertThat(groups.takeExpired(host.nowMillis() + 10)).containsExactly(expiring);
        assertThat(groups.takeWaiting(first)).isSameAs(lasting);
    }

    @Test
    void beyondTheKeptIdleGroupsThoseWithNothingInFlightAreForgotten() {
        QueueEntry held = entry("busy");
        groups.admit(held, first, consumers);
        first.unsettled.add(held);
        for (int i = 0; i < MessageGroups.IDLE_GROUPS_KEPT; i++) {
            groups.admit(entry("idle-" + i), first, consumers);
        }

        assertThat(groups.activeGroups()).as("the busy group and one new group after the sweep").isEqualTo(2);
        assertThat(groups.ownerOf("busy")).isSameAs(first);
        assertThat(groups.ownerOf("idle-0")).isNull();
    }
}
