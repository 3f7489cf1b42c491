package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.testing.RecordingConsumer;

/** Delivery delay on one queue: a scheduled message is invisible until its time, then delivered like a new one. */
class QueueDeliveryDelayTest {
    private final ManualQueueHost host = new ManualQueueHost();
    private final BrokerQueue queue = host.queue("delayed");

    private static String text(Delivery delivery) {
        return new String(delivery.content(), StandardCharsets.UTF_8);
    }

    private RecordingConsumer consumerWithCredit(boolean browsing) {
        RecordingConsumer target = new RecordingConsumer();
        Subscription subscription = queue.subscribe(target, false, MessageFilter.ALL, browsing).join();
        subscription.addCredit(100);
        return target;
    }

    @Test
    void aDelayedMessageIsDeliveredOnlyWhenItsTimeComesAndOthersPassIt() throws Exception {
        RecordingConsumer consumer = consumerWithCredit(false);
        ManualQueueHost.publish(queue, host.message("later", null, 1_000));
        ManualQueueHost.publish(queue, host.message("now", null, 0));

        assertThat(text(consumer.next())).isEqualTo("now");
        assertThat(consumer.pending()).isZero();
        assertThat(queue.delayedCount()).isEqualTo(1);
        assertThat(queue.depthMessages()).as("a delayed message counts in the depth").isEqualTo(2);

        host.advance(999);
        assertThat(consumer.pending()).isZero();

        host.advance(1);
        assertThat(text(consumer.next())).isEqualTo("later");
        assertThat(queue.delayedCount()).isZero();
    }

    @Test
    void aBrowserDoesNotSeeAMessageBeforeItsTime() throws Exception {
        ManualQueueHost.publish(queue, host.message("later", null, 500));
        ManualQueueHost.publish(queue, host.message("now", null, 0));
        RecordingConsumer browser = consumerWithCredit(true);

        assertThat(text(browser.next())).isEqualTo("now");
        assertThat(browser.pending()).isZero();

        host.advance(500);
        assertThat(text(browser.next())).isEqualTo("later");
    }

    @Test
    void messagesDueTogetherComeInDueOrderWithOneTimerForTheQueue() throws Exception {
        RecordingConsumer consumer = consumerWithCredit(false);
        for (int i = 0; i < 100; i++) {
            ManualQueueHost.publish(queue, host.message("m-" + i, null, 1_000 + 10 * i));
        }

        assertThat(host.pendingTimers()).as("one timer for the queue, not one per message").isEqualTo(1);
        host.advance(5_000);

        List<String> received = consumer.next(100).stream().map(QueueDeliveryDelayTest::text).toList();
        assertThat(received).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, 100).mapToObj(i -> "m-" + i).toList());
    }

    @Test
    void aMessagePublishedLaterButDueEarlierGetsItsOwnEarlierTimer() throws Exception {
        RecordingConsumer consumer = consumerWithCredit(false);
        ManualQueueHost.publish(queue, host.message("in-a-minute", null, 60_000));
        ManualQueueHost.publish(queue, host.message("in-a-second", null, 1_000));

        host.advance(1_000);

        assertThat(text(consumer.next())).isEqualTo("in-a-second");
        assertThat(consumer.pending()).isZero();
        assertThat(queue.delayedCount()).isEqualTo(1);
        host.advance(59_000);
        assertThat(text(consumer.next())).isEqualTo("in-a-minute");
    }

    @Test
    void recoveredMessagesGoBackOnTheScheduleOrStraightToConsumersWhenDue() throws Exception {
        queue.expectRecoveredEntries();
        ServerMessage future = host.message("future", null, 2_000);
        ServerMessage due = host.message("due", null, 1);
        future.setReferences(1);
        due.setReferences(1);
        RecordingConsumer consumer = consumerWithCredit(false);
        host.advance(10); // "due" is past its time when recovered; no timer was set for it

        queue.addRecovered(List.of(future, due), true).join();

        assertThat(text(consumer.next())).isEqualTo("due");
        assertThat(queue.delayedCount()).isEqualTo(1);
        host.advance(2_000);
        assertThat(text(consumer.next())).isEqualTo("future");
    }

    @Test
    void aDeletedQueueDropsItsScheduleAndALateTimerDoesNothing() {
        ManualQueueHost.publish(queue, host.message("later", null, 1_000));

        queue.shutdown("test", false).join();
        host.advance(1_000);

        assertThat(queue.delayedCount()).isZero();
    }

    @Test
    void aMessageThatExpiresBeforeItsDeliveryTimeIsNeverDeliveredAndLeavesTheDepth() throws Exception {
        RecordingConsumer consumer = consumerWithCredit(false);
        ManualQueueHost.publish(queue, host.message("too late", null, 1_000, 500));
        ManualQueueHost.publish(queue, host.message("marker", null, 2_000));

        host.advance(2_000);

        assertThat(text(consumer.next())).isEqualTo("marker");
        assertThat(consumer.pending()).isZero();
        assertThat(queue.depthMessages()).as("the expired one was removed, the marker is unsettled").isEqualTo(1);
    }
}
