package org.tandembroker.store.bdb.commit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/** Fake seams instead of JE for the committers' tests: an applier that records, a flush that can be held. */
abstract class CommitterFixture {
    static final Duration DEADLINE = Duration.ofSeconds(20);

    final Set<String> applierThreads = ConcurrentHashMap.newKeySet();
    final List<String> applied = java.util.Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger flushCalls = new AtomicInteger();
    final CountDownLatch firstFlushStarted = new CountDownLatch(1);
    final CountDownLatch releaseFirstFlush = new CountDownLatch(1);
    CoalescingCommitter<String> committer;

    @AfterEach
    void closeCommitter() {
        releaseFirstFlush.countDown();
        if (committer != null) {
            committer.close();
        }
    }

    void apply(String work) {
        applierThreads.add(Thread.currentThread().getName());
        if (work.startsWith("bad")) {
            throw new IllegalStateException("cannot apply " + work);
        }
        applied.add(work);
    }

    /** The first flush blocks until released, so that later commits pile up behind it. */
    void blockingFirstFlush() {
        if (flushCalls.incrementAndGet() == 1) {
            firstFlushStarted.countDown();
            awaitLatch(releaseFirstFlush);
        }
    }

    static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released in time");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static CommitOutcomes wrapping() {
        return new CommitOutcomes() {
            @Override
            public void succeeded() {
            }

            @Override
            public Throwable failed(Throwable cause) {
                return new BrokerException(ErrorKind.INTERNAL_ERROR, "translated: " + cause.getMessage(), cause);
            }
        };
    }

    static ErrorKind failureKind(CompletableFuture<Void> future) {
        assertThat(future).failsWithin(DEADLINE);
        return BrokerException.from(future.handle((v, e) -> e).join()).kind();
    }
}
