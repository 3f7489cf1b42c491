package org.tandembroker.store.bdb.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** How a committer's threads are woken for the submissions queued for them. */
class SubmissionQueueTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(1);

    @Test
    void aBurstOfSubmissionsWakesOneWaitingThreadWhichTakesThemAllAndNoThreadWakesForNothing() throws Exception {
        SubmissionQueue<String> queue = new SubmissionQueue<>("queue-test", new CommitCounters(), 64, 64);
        AtomicInteger taken = new AtomicInteger();
        AtomicInteger holding = new AtomicInteger();
        Semaphore mayTakeAgain = new Semaphore(0); // a thread that took holds its batch until the test lets it go on
        List<Thread> takers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Thread taker = new Thread(() -> {
                List<SubmissionQueue.Submission<String>> batch = new ArrayList<>();
                while (true) {
                    queue.takeBatch(batch);
                    if (batch.stream().anyMatch(queue::isEnd)) {
                        return;
                    }
                    taken.addAndGet(batch.size());
                    holding.incrementAndGet();
                    batch.clear();
                    mayTakeAgain.acquireUninterruptibly();
                }
            }, "queue-test-taker-" + i);
            taker.start();
            takers.add(taker);
        }

        int rounds = 50;
        int burst = 8;
        for (int round = 1; round <= rounds; round++) {
            await().atMost(DEADLINE).pollInterval(POLL).until(() -> queue.waitingThreads() == 3);
            for (int i = 0; i < burst; i++) {
                queue.add("r" + round + "-" + i, false, SubmissionQueue.Submission.UNORDERED);
            }
            int expected = round * burst;
            while (true) {
                // settled: every thread holds a batch or waits, none is on its way between the two
                await().atMost(DEADLINE).pollInterval(POLL).until(() -> holding.get() + queue.waitingThreads() == 3
                        && (taken.get() == expected || holding.get() == 3));
                if (taken.get() == expected) {
                    break;
                }
                // every thread holds a batch and work is left: one goes on and takes it without waiting
                holding.decrementAndGet();
                mayTakeAgain.release();
            }
            mayTakeAgain.release(holding.getAndSet(0)); // the threads that hold a batch go back to waiting
        }

        // Each burst woke a thread that took what had arrived, and another only for what arrived after that one took:
        // none woke to find the work gone (the old queue signalled once per submission, waking up to three per burst).
        assertThat(queue.needlessWakeUps()).isZero();
        queue.close();
        for (Thread taker : takers) {
            taker.join(DEADLINE.toMillis());
            assertThat(taker.isAlive()).isFalse();
        }
    }
}
