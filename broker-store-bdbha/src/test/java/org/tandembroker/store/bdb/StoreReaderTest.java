package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StoreReaderTest {

    @Test
    void readsADeliveryWaitsForGoBeforeBackgroundReadsEachInArrivalOrder() throws Exception {
        StoreReader reader = new StoreReader("reader-test", thread -> { });
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            reader.executeInBackground(() -> {
                running.countDown();
                await(release);
                order.add("page 1");
            });
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue(); // a page is being read

            reader.executeInBackground(() -> order.add("page 2"));
            reader.execute(() -> order.add("content 1"));
            reader.executeInBackground(() -> order.add("page 3"));
            reader.execute(() -> order.add("content 2"));
            var barrier = reader.submit(() -> order.add("barrier"));
            release.countDown();

            barrier.get(10, TimeUnit.SECONDS);
            reader.shutdown();
            assertThat(reader.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            assertThat(order).containsExactly("page 1", "content 1", "content 2", "barrier", "page 2", "page 3");
        } finally {
            reader.shutdownNow();
        }
    }

    @Test
    void theReaderThreadHasTheGivenName() throws Exception {
        Thread[] made = new Thread[1];
        StoreReader reader = new StoreReader("bdb-reader-orders", thread -> made[0] = thread);
        try {
            assertThat(reader.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS))
                    .isEqualTo("bdb-reader-orders");
            assertThat(made[0].getName()).isEqualTo("bdb-reader-orders");
        } finally {
            reader.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
