package org.tandembroker.core.vhost;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.message.ServerMessage;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.txn.LocalTransaction;
import org.tandembroker.core.txn.TransactionParticipant;

/**
 * Puts a routed message on its queues: reserves room on each, stores the message with its durable entries (at
 * once, or in the client's transaction), then enqueues it; and counts what it did. Runs on the publishing
 * connection's thread and on the store's completion threads; its state is the refusal flag and counters, both
 * safe for any thread.
 */
final class Publisher {
    private final ServingStatus status;
    private final CurrentStore store;
    private final ContentBudget contentBudget;
    /** Why new publishes are refused (the disk watermark), or null; read on every publish, written rarely. */
    private volatile String publishRefusal;
    private final LongAdder messagesIn = new LongAdder();
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder storeCommits = new LongAdder();
    private final LongAdder storeCommitNanos = new LongAdder();
    private final LongAdder publishesRefused = new LongAdder();

    Publisher(ServingStatus status, CurrentStore store, ContentBudget contentBudget) {
        this.status = status;
        this.store = store;
        this.contentBudget = contentBudget;
    }

    void refusePublishes(String reason) {
        publishRefusal = reason;
    }

    void acceptPublishes() {
        publishRefusal = null;
    }

    Optional<String> publishRefusal() {
        return Optional.ofNullable(publishRefusal);
    }

    PublishStatistics statistics() {
        return new PublishStatistics(messagesIn.sum(), bytesIn.sum(), storeCommits.sum(), storeCommitNanos.sum(),
                publishesRefused.sum());
    }

    /**
     * Publishes {@code incoming}, sent to {@code address}, onto {@code targets} (see {@link Destination#publish}).
     */
    CompletableFuture<PublishResult> publish(List<BrokerQueue> targets, String address, IncomingMessage incoming,
                                             LocalTransaction transaction) {
        try {
            status.requireActive();
            String refusal = publishRefusal;
            if (refusal != null) {
                publishesRefused.increment();
                throw new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED, refusal);
            }
            if (targets.isEmpty()) {
                return CompletableFuture.completedFuture(new PublishResult(0));
            }
            MessageMetadata metadata = incoming.metadata();
            if (address.equals(metadata.to())) {
                metadata = metadata.withTo(address);
            }
            int size = metadata.contentSize();
            // the store first: a node that stopped serving refuses before any queue's room is reserved
            MessageStore current = store.require();
            long messageId = current.nextMessageId();
            reserve(targets, size);
            boolean stored = metadata.persistent() && targets.stream().anyMatch(BrokerQueue::isDurable);
            ServerMessage message = new ServerMessage(messageId, metadata, incoming.content(), stored,
                    incoming.publisherConnection());
            message.setReferences(targets.size());
            RoutedMessage publish = new RoutedMessage(message, targets);
            if (transaction != null) {
                try {
                    transaction.enlist(publish);
                } catch (BrokerException discharged) {
                    publish.rolledBack(); // gives the reserved room back
                    throw discharged;
                }
                return CompletableFuture.completedFuture(new PublishResult(targets.size()));
            }
            if (!stored) {
                publish.committed();
                return CompletableFuture.completedFuture(new PublishResult(targets.size()));
            }
            StoreTransaction txn = current.newTransaction();
            publish.prepare(txn);
            long commitStart = System.nanoTime();
            return txn.commit().handle((ok, failure) -> {
                if (failure != null) {
                    BrokerException error = BrokerException.from(failure);
                    if (error.kind() == ErrorKind.IN_DOUBT) {
                        // Committed in this node's store, acknowledgements missing: the message is there, so it is
                        // on its queues too (the publisher may resend: a possible duplicate, never hidden or lost).
                        publish.committed();
                    } else {
                        publish.rolledBack();
                    }
                    throw error;
                }
                storeCommitNanos.add(System.nanoTime() - commitStart);
                storeCommits.increment();
                publish.committed();
                if (publish.outlivedItsActivation()) {
                    throw new BrokerException(ErrorKind.IN_DOUBT, "message committed while the virtual host was "
                            + "passivating: it is stored and is delivered after the next recovery; a resend may "
                            + "duplicate it");
                }
                return new PublishResult(targets.size());
            });
        } catch (BrokerException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Reserves room for the message on every target, or on none (RESOURCE_LIMIT_EXCEEDED: a queue is full). */
    private static void reserve(List<BrokerQueue> targets, int size) {
        List<BrokerQueue> reserved = new ArrayList<>(targets.size());
        try {
            for (BrokerQueue queue : targets) {
                queue.reserve(size);
                reserved.add(queue);
            }
        } catch (BrokerException full) {
            reserved.forEach(q -> q.cancelReservation(size));
            throw full;
        }
    }

    /** A routed message: stored with its durable entries, then enqueued in memory. */
    private final class RoutedMessage implements TransactionParticipant {
        private final ServerMessage message;
        private final List<BrokerQueue> targets;

        RoutedMessage(ServerMessage message, List<BrokerQueue> targets) {
            this.message = message;
            this.targets = targets;
        }

        @Override
        public void prepare(StoreTransaction storeTransaction) {
            if (!message.isStored()) {
                return;
            }
            boolean alsoOnNonDurableQueues = false;
            for (BrokerQueue queue : targets) {
                alsoOnNonDurableQueues |= !queue.isDurable();
            }
            storeTransaction.storeMessage(message.id(), MetadataCodec.encode(message.metadata()),
                    message.contentOnHeap(), alsoOnNonDurableQueues);
            for (BrokerQueue queue : targets) {
                if (queue.isDurable()) {
                    storeTransaction.enqueue(queue.id(), message.id());
                }
            }
        }

        @Override
        public void committed() {
            messagesIn.increment();
            bytesIn.add(message.metadata().contentSize());
            message.retainWithin(contentBudget);
            for (BrokerQueue queue : targets) {
                queue.enqueue(message);
            }
        }

        /** A durable target queue shut down, leaving the store to the next activation (after committed()). */
        @Override
        public boolean outlivedItsActivation() {
            if (!message.isStored()) {
                return false;
            }
            for (BrokerQueue queue : targets) {
                if (queue.isDurable() && queue.leftStoreToNextActivation()) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void rolledBack() {
            for (BrokerQueue queue : targets) {
                queue.cancelReservation(message.metadata().contentSize());
            }
        }
    }
}
