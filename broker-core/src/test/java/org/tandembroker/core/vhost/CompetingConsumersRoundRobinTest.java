package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.core.testing.VirtualHostHarness.DEFAULTS;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;

/**
 * Competing consumers of one queue take turns, one message each, whether the queue was empty or not when a message
 * came, however many consumers there are, and a consumer that gets credit late takes its turn where it stands.
 */
class CompetingConsumersRoundRobinTest {
    private VirtualHostHarness harness;
    private BrokerVirtualHost host;

    @BeforeEach
    void start() {
        harness = VirtualHostHarness.memory(true, DEFAULTS, List.of(), List.of(), List.of());
        host = harness.host();
    }

    @AfterEach
    void close() {
        harness.close();
    }

    private Subscription subscribe(RecordingConsumer consumer, int credit) {
        Subscription s = host.subscribe("work", consumer, SubscriptionOptions.AT_LEAST_ONCE).join();
        if (credit > 0) {
            s.addCredit(credit);
        }
        return s;
    }

    /** Publishes one message and returns which of the consumers received it. */
    private int publishAndSeeWhoGetsIt(String text, List<RecordingConsumer> consumers) throws Exception {
        harness.publish("work", text);
        await().until(() -> consumers.stream().mapToInt(RecordingConsumer::pending).sum() == 1);
        for (int i = 0; i < consumers.size(); i++) {
            if (consumers.get(i).pending() == 1) {
                assertThat(VirtualHostHarness.text(consumers.get(i).next())).isEqualTo(text);
                return i;
            }
        }
        throw new AssertionError("nobody received " + text);
    }

    @Test
    void messagesArrivingOneByOneOnAnEmptyQueueGoToEachConsumerInTurn() throws Exception {
        List<RecordingConsumer> consumers = List.of(new RecordingConsumer(), new RecordingConsumer(),
                new RecordingConsumer());
        consumers.forEach(consumer -> subscribe(consumer, 100));
        List<Integer> receivers = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            receivers.add(publishAndSeeWhoGetsIt("m" + i, consumers));
        }
        assertThat(receivers).containsExactly(0, 1, 2, 0, 1, 2, 0);
    }

    @Test
    void aConsumerThatGetsCreditLateTakesItsTurnWhereItStands() throws Exception {
        RecordingConsumer first = new RecordingConsumer();
        RecordingConsumer late = new RecordingConsumer();
        RecordingConsumer last = new RecordingConsumer();
        List<RecordingConsumer> consumers = List.of(first, late, last);
        subscribe(first, 100);
        Subscription lateSubscription = subscribe(late, 0);
        subscribe(last, 100);

        assertThat(publishAndSeeWhoGetsIt("m0", consumers)).isEqualTo(0);
        assertThat(publishAndSeeWhoGetsIt("m1", consumers)).isEqualTo(2); // the late one has no credit yet
        lateSubscription.addCredit(100); // reaches the queue before the next message does
        List<Integer> receivers = new ArrayList<>();
        for (int i = 2; i < 8; i++) {
            receivers.add(publishAndSeeWhoGetsIt("m" + i, consumers));
        }
        assertThat(receivers).containsExactly(0, 1, 2, 0, 1, 2);
    }

    @Test
    void threeHundredConsumersEachGetOneMessageOfEveryThreeHundred() throws Exception {
        List<RecordingConsumer> consumers = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            RecordingConsumer consumer = new RecordingConsumer();
            consumers.add(consumer);
            subscribe(consumer, 1000);
        }
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 300; i++) {
                harness.publish("work", "r" + round + "m" + i);
            }
            int expected = round + 1;
            await().until(() -> consumers.stream().mapToInt(RecordingConsumer::pending).sum() == 300 * expected);
            assertThat(consumers).allSatisfy(consumer -> assertThat(consumer.pending()).isEqualTo(expected));
        }
    }

    @Test
    void aDrainingConsumerGetsWhatIsThereIsToldOnceAndThenNothingMore() throws Exception {
        RecordingConsumer draining = new RecordingConsumer();
        RecordingConsumer other = new RecordingConsumer();
        Subscription drainingSubscription = subscribe(draining, 0);
        for (int i = 0; i < 3; i++) {
            harness.publish("work", "m" + i);
        }
        drainingSubscription.addCredit(10);
        drainingSubscription.drain();
        assertThat(draining.next(3)).extracting(VirtualHostHarness::text).containsExactly("m0", "m1", "m2");
        await().until(() -> draining.drainedCount() == 1);

        subscribe(other, 10);
        for (int i = 3; i < 6; i++) {
            harness.publish("work", "m" + i);
        }
        assertThat(other.next(3)).extracting(VirtualHostHarness::text).containsExactly("m3", "m4", "m5");
        assertThat(draining.pending()).as("its credit went with the drain").isZero();
        assertThat(draining.drainedCount()).isEqualTo(1);
    }
}
