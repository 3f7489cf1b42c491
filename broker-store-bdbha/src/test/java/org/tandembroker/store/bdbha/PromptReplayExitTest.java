package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.tandembroker.store.bdbha.PromptReplayExit.CappedPollQueue;

/**
 * The queue given to JE's replay thread: the same queue as JE's own, except that a timed poll comes back empty after
 * at most the cap, so that the thread sees an exit request without waiting out JE's fixed second.
 */
class PromptReplayExitTest {
    private final BlockingQueue<String> jeQueue = new ArrayBlockingQueue<>(4);
    private final CappedPollQueue<String> capped =
            new CappedPollQueue<>(jeQueue, PromptReplayExit.MAX_POLL_NANOS);

    @Test
    void aTimedPollOnAnEmptyQueueReturnsLongBeforeTheTimeoutItWasGiven() throws InterruptedException {
        long start = System.nanoTime();
        assertThat(capped.poll(30, TimeUnit.SECONDS)).isNull();
        // The cap is 50 ms; JE asks for 1 s. Anything under the requested time shows the cap at work.
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(15);
    }

    @Test
    void aShorterTimeoutThanTheCapIsKept() throws InterruptedException {
        jeQueue.offer("m");
        assertThat(capped.poll(0, TimeUnit.NANOSECONDS)).isEqualTo("m");
        assertThat(capped.poll(0, TimeUnit.NANOSECONDS)).isNull();
    }

    @Test
    void bothReferencesSeeOneQueueInOrderSoJesThreadsMayHoldEither() throws InterruptedException {
        jeQueue.offer("a");
        assertThat(capped.offer("b", 1, TimeUnit.SECONDS)).isTrue();
        capped.put("c");
        assertThat(capped.size()).isEqualTo(3);
        assertThat(jeQueue.remainingCapacity()).isEqualTo(1).isEqualTo(capped.remainingCapacity());

        assertThat(capped.poll(1, TimeUnit.SECONDS)).isEqualTo("a");
        assertThat(jeQueue.poll()).isEqualTo("b");
        assertThat(capped.peek()).isEqualTo("c");
        List<String> drained = new ArrayList<>();
        assertThat(capped.drainTo(drained)).isEqualTo(1);
        assertThat(drained).containsExactly("c");

        capped.offer("d");
        capped.clear();
        assertThat(jeQueue).isEmpty();
    }

    @Test
    void aFullQueueStillRefusesThroughTheCap() throws InterruptedException {
        for (String m : List.of("1", "2", "3", "4")) {
            assertThat(capped.offer(m)).isTrue();
        }
        assertThat(capped.offer("5", 10, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(capped.take()).isEqualTo("1");
    }
}
