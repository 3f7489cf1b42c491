package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.exec.SerialExecutor;

/** A queue's entries and consumers belong to its executor: touching them from elsewhere fails under -ea. */
class BrokerQueueOwnershipTest {
    private final BrokerQueue queue = new BrokerQueue(UUID.randomUUID(),
            new QueueConfig("orders", true, 0, 0, 0, 0, null), false,
            new SerialExecutor("orders", Runnable::run), null);

    @Test
    void dispatchingOutsideTheQueueExecutorFailsTheOwnershipCheck() {
        assertThatThrownBy(queue::dispatch).isInstanceOf(AssertionError.class);
    }

    @Test
    void detachingAConsumerOutsideTheQueueExecutorFailsTheOwnershipCheck() {
        QueueConsumer consumer = new QueueConsumer(queue, null, false);

        assertThatThrownBy(() -> queue.removeConsumer(consumer)).isInstanceOf(AssertionError.class);
    }
}
