package org.tandembroker.core.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SerialExecutorTest {

    /** A pool that only collects what it is handed, so a test decides when (and whether) pool threads run. */
    private static final class HeldPool implements java.util.concurrent.Executor {
        final Queue<Runnable> handed = new ArrayDeque<>();

        @Override
        public void execute(Runnable command) {
            handed.add(command);
        }

        void runAll() {
            Runnable next;
            while ((next = handed.poll()) != null) {
                next.run();
            }
        }
    }

    @Test
    void anIdleExecutorRunsTheTaskOnTheCallingThreadWithoutWakingThePool() {
        HeldPool pool = new HeldPool();
        SerialExecutor queue = new SerialExecutor("q", pool);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicReference<Boolean> inExecutor = new AtomicReference<>();

        queue.executeHereIfIdle(() -> {
            ranOn.set(Thread.currentThread());
            inExecutor.set(queue.inExecutor());
        });

        assertSame(Thread.currentThread(), ranOn.get());
        assertTrue(inExecutor.get(), "the task runs as the executor's, so its confinement checks hold");
        assertFalse(queue.inExecutor(), "afterwards the caller is no longer in the executor");
        assertTrue(pool.handed.isEmpty(), "no pool thread was asked for");
    }

    @Test
    void aBusyExecutorQueuesTheTaskBehindTheOnesBeforeIt() {
        HeldPool pool = new HeldPool();
        SerialExecutor queue = new SerialExecutor("q", pool);
        List<String> order = new ArrayList<>();
        queue.execute(() -> order.add("first, handed to the pool"));

        queue.executeHereIfIdle(() -> order.add("second"));

        assertEquals(List.of(), order, "nothing runs on the caller while a turn is scheduled");
        pool.runAll();
        assertEquals(List.of("first, handed to the pool", "second"), order);
    }

    @Test
    void tasksQueuedWhileTheCallerRunsAreRunByItInOrderAndTheRestOfALongTurnGoesToThePool() {
        HeldPool pool = new HeldPool();
        SerialExecutor queue = new SerialExecutor("q", pool);
        List<Integer> order = new ArrayList<>();

        queue.executeHereIfIdle(() -> {
            order.add(0);
            for (int i = 1; i <= 300; i++) {
                int n = i;
                queue.execute(() -> order.add(n)); // the executor is busy: queued, not run here
            }
        });

        assertEquals(256, order.size(), "one turn ran on the caller");
        assertEquals(1, pool.handed.size(), "the rest was handed to the pool as one turn");
        pool.runAll();
        assertEquals(301, order.size());
        for (int i = 0; i <= 300; i++) {
            assertEquals(i, order.get(i));
        }
    }

    @Test
    void aTaskThatHandsWorkToAnotherIdleExecutorRunsItInPlaceAndStaysInItsOwnExecutor() {
        HeldPool pool = new HeldPool();
        SerialExecutor first = new SerialExecutor("first", pool);
        SerialExecutor deadLetters = new SerialExecutor("dead-letters", pool);
        List<String> seen = new ArrayList<>();

        first.executeHereIfIdle(() -> {
            deadLetters.executeHereIfIdle(() -> seen.add("dead-letters in its own: " + deadLetters.inExecutor()
                    + ", in the first: " + first.inExecutor()));
            seen.add("first again in its own: " + first.inExecutor() + ", in dead-letters: "
                    + deadLetters.inExecutor());
        });

        assertEquals(List.of("dead-letters in its own: true, in the first: false",
                "first again in its own: true, in dead-letters: false"), seen);
        assertFalse(first.inExecutor());
        assertTrue(pool.handed.isEmpty());
    }

    @Test
    void aFailingTaskIsLoggedAndTheExecutorKeepsServing() {
        HeldPool pool = new HeldPool();
        SerialExecutor queue = new SerialExecutor("q", pool);
        List<String> ran = new ArrayList<>();

        queue.executeHereIfIdle(() -> {
            throw new IllegalStateException("a bug in one task");
        });
        queue.executeHereIfIdle(() -> ran.add("next"));

        assertEquals(List.of("next"), ran);
        assertFalse(queue.inExecutor());
    }

    @Test
    void callersOnManyThreadsNeverRunTwoTasksAtOnceAndLoseNone() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            SerialExecutor queue = new SerialExecutor("q", pool);
            int[] counter = {0}; // confined to the executor: unsynchronised on purpose
            int[] running = {0};
            int[] overlaps = {0};
            int perCaller = 20_000;
            CountDownLatch done = new CountDownLatch(4 * perCaller);
            for (int c = 0; c < 4; c++) {
                boolean here = c % 2 == 0;
                callers.execute(() -> {
                    for (int i = 0; i < perCaller; i++) {
                        Runnable task = () -> {
                            if (++running[0] != 1) {
                                overlaps[0]++;
                            }
                            counter[0]++;
                            running[0]--;
                            done.countDown();
                        };
                        if (here) {
                            queue.executeHereIfIdle(task);
                        } else {
                            queue.execute(task);
                        }
                    }
                });
            }
            assertTrue(done.await(30, TimeUnit.SECONDS), "every task ran");
            CountDownLatch read = new CountDownLatch(1);
            int[] seen = new int[2];
            queue.execute(() -> {
                seen[0] = counter[0];
                seen[1] = overlaps[0];
                read.countDown();
            });
            assertTrue(read.await(10, TimeUnit.SECONDS));
            assertEquals(4 * perCaller, seen[0]);
            assertEquals(0, seen[1], "no two tasks ran at once");
        } finally {
            callers.shutdownNow();
            pool.shutdownNow();
        }
    }
}
