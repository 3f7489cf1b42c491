package org.tandembroker.core.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.Delivery;

/** A consumer target that records what the queue hands it, for tests. Thread-safe. */
public final class RecordingConsumer implements ConsumerTarget {
    private final BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
    private final AtomicInteger drained = new AtomicInteger();
    private volatile String closedReason;

    @Override
    public void deliver(Delivery delivery) {
        deliveries.add(delivery);
    }

    @Override
    public void drained() {
        drained.incrementAndGet();
    }

    @Override
    public void closedByBroker(String reason) {
        closedReason = reason;
    }

    /** The next delivery, or an AssertionError after {@code timeout}. */
    public Delivery next(Duration timeout) throws InterruptedException {
        Delivery d = deliveries.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (d == null) {
            throw new AssertionError("no delivery within " + timeout);
        }
        return d;
    }

    public Delivery next() throws InterruptedException {
        return next(Duration.ofSeconds(5));
    }

    /** The next {@code n} deliveries. */
    public List<Delivery> next(int n) throws InterruptedException {
        List<Delivery> result = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            result.add(next());
        }
        return result;
    }

    /** Deliveries received so far and not yet taken. */
    public int pending() {
        return deliveries.size();
    }

    public int drainedCount() {
        return drained.get();
    }

    public String closedReason() {
        return closedReason;
    }
}
