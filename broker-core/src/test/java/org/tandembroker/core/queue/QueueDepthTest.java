package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QueueDepthTest {

    @Test
    void aQueueAtItsMessageLimitRefusesAndReservesNothing() {
        QueueDepth depth = new QueueDepth(2, 0);
        assertThat(depth.tryReserve(10)).isNull();
        assertThat(depth.tryReserve(10)).isNull();

        assertThat(depth.tryReserve(10)).isEqualTo("holds 2 messages (maxDepthMessages 2)");
        assertThat(depth.messages()).isEqualTo(2);
        assertThat(depth.bytes()).isEqualTo(20);
    }

    @Test
    void aMessageThatWouldPassTheByteLimitIsRefusedAndReservesNothing() {
        QueueDepth depth = new QueueDepth(0, 100);
        assertThat(depth.tryReserve(60)).isNull();

        assertThat(depth.tryReserve(50)).isEqualTo("holds 60 bytes (maxDepthBytes 100)");
        assertThat(depth.messages()).isEqualTo(1);
        assertThat(depth.bytes()).isEqualTo(60);
    }

    @Test
    void aRemovedMessageLeavesTheDepthAndCountsOut() {
        QueueDepth depth = new QueueDepth(0, 0);
        depth.tryReserve(40);
        depth.enqueued(40);

        depth.removed(40);

        assertThat(depth.messages()).isZero();
        assertThat(depth.bytes()).isZero();
        assertThat(depth.enqueuedTotal()).isEqualTo(1);
        assertThat(depth.dequeuedTotal()).isEqualTo(1);
        assertThat(depth.dequeuedBytes()).isEqualTo(40);
    }

    @Test
    void aCancelledReservationLeavesNoTrace() {
        QueueDepth depth = new QueueDepth(1, 0);
        depth.tryReserve(40);

        depth.cancel(40);

        assertThat(depth.tryReserve(40)).as("room again").isNull();
        assertThat(depth.enqueuedTotal()).isZero();
        assertThat(depth.dequeuedTotal()).isZero();
    }
}
