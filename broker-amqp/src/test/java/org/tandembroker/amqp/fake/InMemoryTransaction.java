package org.tandembroker.amqp.fake;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.txn.LocalTransaction;

/** A transaction in memory: publishes and acknowledgements take effect at commit. Thread-safe (synchronized). */
public final class InMemoryTransaction implements LocalTransaction {
    private record Publish(InMemoryQueue queue, IncomingMessage message) {
    }

    private final List<Publish> publishes = new ArrayList<>();
    private final List<InMemoryQueue.FakeDelivery> acknowledgements = new ArrayList<>();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final BrokerException commitFailure;
    private volatile String outcome = "open";

    InMemoryTransaction(BrokerException commitFailure) {
        this.commitFailure = commitFailure;
    }

    synchronized void addPublish(InMemoryQueue queue, IncomingMessage message) {
        publishes.add(new Publish(queue, message));
    }

    synchronized void addAcknowledgement(InMemoryQueue.FakeDelivery delivery) {
        acknowledgements.add(delivery);
    }

    /** "open", "committed" or "rolled back". */
    public String outcome() {
        return outcome;
    }

    public synchronized int publishCount() {
        return publishes.size();
    }

    public synchronized int acknowledgementCount() {
        return acknowledgements.size();
    }

    @Override
    public synchronized CompletableFuture<Void> commit() {
        if (!open.compareAndSet(true, false)) {
            return CompletableFuture.failedFuture(new BrokerException(org.tandembroker.core.ErrorKind.ILLEGAL_STATE,
                    "transaction already discharged"));
        }
        if (commitFailure != null) {
            discard();
            return CompletableFuture.failedFuture(commitFailure);
        }
        publishes.forEach(p -> p.queue().enqueue(p.message()));
        acknowledgements.forEach(InMemoryQueue.FakeDelivery::removeAfterCommit);
        outcome = "committed";
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletableFuture<Void> rollback() {
        if (open.compareAndSet(true, false)) {
            discard();
        }
        return CompletableFuture.completedFuture(null);
    }

    private void discard() {
        acknowledgements.forEach(InMemoryQueue.FakeDelivery::returnAfterRollback);
        outcome = "rolled back";
    }

    @Override
    public boolean isOpen() {
        return open.get();
    }
}
