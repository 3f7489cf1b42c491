package org.tandembroker.core.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class UninterruptiblyTest {

    @Test
    void anInterruptDuringTheWaitDoesNotEndItAndIsReassertedAfterwards() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        Thread.currentThread().interrupt();
        CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS).execute(() -> result.complete("done"));

        assertEquals("done", Uninterruptibly.get(result));
        assertTrue(Thread.interrupted(), "the interrupt is reported to the caller");
    }

    @Test
    void withoutAnInterruptTheStatusStaysClear() throws ExecutionException {
        assertEquals(7, Uninterruptibly.get(CompletableFuture.completedFuture(7)));
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void awaitTerminationReturnsOnceTheRunningTaskEnds() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(NamedThreadFactory.daemonThread("slow"));
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        executor.execute(() -> {
            started.countDown();
            release.join();
        });
        started.await();
        executor.shutdown();
        Thread.currentThread().interrupt();
        CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS).execute(() -> release.complete(null));

        Uninterruptibly.awaitTermination(executor);

        assertTrue(executor.isTerminated());
        assertTrue(Thread.interrupted());
    }

    @Test
    void anOwningThreadRecognisesOnlyItsOwnThread() throws Exception {
        OwningThread owner = new OwningThread("test");
        ExecutorService executor =
                Executors.newSingleThreadExecutor(NamedThreadFactory.daemonThread("owner", owner::adopt));
        try {
            assertTrue(executor.submit(owner::isCurrent).get());
            assertFalse(owner.isCurrent(), "the test thread is not the owner");
        } finally {
            executor.shutdownNow();
        }
    }
}
