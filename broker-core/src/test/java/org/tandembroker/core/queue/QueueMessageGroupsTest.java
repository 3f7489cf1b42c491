package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.testing.RecordingConsumer;

/** Message groups on one queue: a group's messages go to one consumer at a time, in order. */
class QueueMessageGroupsTest {
    private final ManualQueueHost host = new ManualQueueHost();
    private final BrokerQueue queue = host.queue("grouped");

    private record Attached(RecordingConsumer target, Subscription subscription) {
    }

    private Attached attach(int credit, boolean browsing) {
        RecordingConsumer target = new RecordingConsumer();
        Subscription subscription = queue.subscribe(target, false, MessageFilter.ALL, browsing).join();
        subscription.addCredit(credit);
        return new Attached(target, subscription);
    }

    private static List<String> texts(List<Delivery> deliveries) {
        return deliveries.stream().map(d -> new String(d.content(), StandardCharsets.UTF_8)).toList();
    }

    private void publish(String groupId, String... texts) {
        for (String text : texts) {
            ManualQueueHost.publish(queue, host.message(text, groupId, 0));
        }
    }

    @Test
    void aGroupsMessagesAllGoToOneConsumerWhileUngroupedOnesAreShared() throws Exception {
        Attached a = attach(100, false);
        Attached b = attach(100, false);

        publish("g", "g-1", "g-2", "g-3", "g-4");
        publish(null, "x-1", "x-2");

        List<String> atA = texts(a.target().next(a.target().pending()));
        List<String> atB = texts(b.target().next(b.target().pending()));
        assertThat(atA).as("the first consumer took the group's first message").containsSubsequence("g-1", "g-2",
                "g-3", "g-4");
        assertThat(atB).doesNotContain("g-1", "g-2", "g-3", "g-4").isNotEmpty();
        assertThat(queue.activeGroupCount()).isEqualTo(1);
    }

    @Test
    void theOwnersUnsettledMessagesMoveInOrderToTheNextConsumerWhenItLeaves() throws Exception {
        Attached a = attach(2, false);
        Attached b = attach(100, false);
        publish("g", "g-1", "g-2", "g-3", "g-4", "g-5");

        assertThat(texts(a.target().next(2))).containsExactly("g-1", "g-2");
        assertThat(b.target().pending()).as("the group waits for its owner's credit").isZero();

        a.subscription().close();

        assertThat(texts(b.target().next(5))).containsExactly("g-1", "g-2", "g-3", "g-4", "g-5");
        assertThat(queue.activeGroupCount()).isEqualTo(1);
    }

    @Test
    void aReleasedMessageReturnsToItsOwnerAheadOfTheGroupsLaterMessages() throws Exception {
        Attached a = attach(1, false);
        Attached b = attach(100, false);
        publish("g", "g-1", "g-2", "g-3");
        Delivery first = a.target().next();

        first.release();
        a.subscription().addCredit(3);

        assertThat(texts(a.target().next(3))).containsExactly("g-1", "g-2", "g-3");
        assertThat(b.target().pending()).isZero();
    }

    @Test
    void settledMessagesLeaveTheGroupAndTheOwnerGetsTheRest() throws Exception {
        Attached a = attach(1, false);
        attach(100, false);
        publish("g", "g-1", "g-2", "g-3");
        List<String> received = new ArrayList<>();

        for (int i = 0; i < 3; i++) {
            Delivery d = a.target().next();
            received.add(new String(d.content(), StandardCharsets.UTF_8));
            d.accept(null).join();
            a.subscription().addCredit(1);
        }

        assertThat(received).containsExactly("g-1", "g-2", "g-3");
        assertThat(queue.depthMessages()).isZero();
    }

    @Test
    void aBrowserSeesGroupMessagesWaitingForTheirOwnerInQueueOrder() throws Exception {
        Attached a = attach(1, false);
        attach(100, false);
        publish("g", "g-1", "g-2", "g-3");
        publish(null, "x-1");
        a.target().next(); // g-1 held by its owner; g-2 and g-3 wait for it

        Attached browser = attach(100, true);

        assertThat(texts(browser.target().next(browser.target().pending()))).containsExactly("g-2", "g-3");
    }
}
