package org.tandembroker.amqp;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.codec.ReadableBuffer;
import org.apache.qpid.proton.engine.Sender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.queue.ConsumerTarget;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * A link on which the client consumes: a core {@link Subscription} on the source address (a temporary queue
 * for a dynamic source), fed by the client's credit, and the client's outcomes passed back to each core
 * {@link Delivery}.
 *
 * <p>Credit: the core is given the credit the client granted, {@code sender.getCredit() + sent - creditGivenToCore}
 * (so messages already on their way from the queue are never counted twice), but at most {@link #CORE_WINDOW}
 * ahead of what was sent, and nothing while the socket is unwritable: a client with a prefetch of 10,000 that
 * stops reading holds a window of deliveries in the broker, not its whole prefetch. The window is topped up as
 * deliveries are sent and when the socket becomes writable again. A drain request first passes on all of the
 * client's credit (a drain must not end while credit and messages remain), and the core's {@code drained()}
 * answer spends the rest of it ({@code sender.drained()}).
 *
 * <p>Thread: the connection's event loop owns every field. The {@link ConsumerTarget} methods are called on
 * queue threads and only hand their work to the event loop.
 */
final class OutgoingLink implements AmqpLink, ConsumerTarget {
    private static final Logger LOG = LoggerFactory.getLogger(OutgoingLink.class);
    /** Deliveries the core may hand over ahead of what was sent to the client. */
    static final int CORE_WINDOW = 256;
    private static final Symbol[] OUTCOMES = {Accepted.DESCRIPTOR_SYMBOL, Rejected.DESCRIPTOR_SYMBOL,
            Released.DESCRIPTOR_SYMBOL, Modified.DESCRIPTOR_SYMBOL};

    private final AmqpConnection connection;
    private final Sender sender;
    private Subscription subscription;
    private boolean preSettled;
    private long nextTag;
    private int sent;
    private int creditGivenToCore;
    private boolean drainRequested;
    private boolean closed;

    OutgoingLink(AmqpConnection connection, Sender sender) {
        this.connection = connection;
        this.sender = sender;
    }

    @Override
    public void attach() {
        if (!(sender.getRemoteSource() instanceof Source source)) {
            refuse(ErrorConditions.condition(AmqpError.INVALID_FIELD, "a consuming link needs a source"));
            return;
        }
        preSettled = sender.getRemoteSenderSettleMode() == SenderSettleMode.SETTLED;
        SubscriptionOptions options;
        try {
            options = SourceTerms.read(source, preSettled, connection.remoteContainerId(), sender.getName(),
                    connection.identity());
        } catch (SourceTerms.Refused refused) {
            refuse(refused.condition());
            return;
        }

        CompletableFuture<String> address = source.getDynamic()
                ? connection.virtualHost().createTemporaryQueue(connection)
                : CompletableFuture.completedFuture(source.getAddress());
        address.thenCompose(a -> {
            if (a == null) {
                throw new BrokerException(ErrorKind.INVALID_FIELD, "the source has no address");
            }
            // a dynamic source is the client's own temporary queue: no permission needed to consume from it
            ClientAccess access = source.getDynamic() ? ClientAccess.UNRESTRICTED : connection.access();
            return connection.virtualHost().subscribe(a, this, options, access)
                    .thenApply(s -> new Subscribed(a, s));
        }).whenComplete((subscribed, failure) -> {
            boolean queued = connection.executor().execute(() -> {
                if (failure != null) {
                    if (!closed) {
                        refuseOrCloseConnection(failure);
                    }
                } else if (closed) {
                    subscribed.subscription().close();
                } else {
                    open(source, subscribed);
                }
            });
            if (!queued && subscribed != null) {
                subscribed.subscription().close();
            }
        });
    }

    private record Subscribed(String address, Subscription subscription) {
    }

    private void open(Source remoteSource, Subscribed subscribed) {
        subscription = subscribed.subscription();
        Source local = (Source) remoteSource.copy();
        local.setAddress(subscribed.address());
        local.setOutcomes(OUTCOMES);
        sender.setSource(local);
        sender.setTarget(sender.getRemoteTarget());
        sender.setSenderSettleMode(preSettled ? SenderSettleMode.SETTLED : SenderSettleMode.UNSETTLED);
        sender.setReceiverSettleMode(ReceiverSettleMode.FIRST);
        sender.open();
        onFlow(); // credit may have arrived with the attach
    }

    private void refuseOrCloseConnection(Throwable failure) {
        closed = true;
        AmqpLink.refuseAttach(sender, connection, failure);
    }

    private void refuse(ErrorCondition condition) {
        closed = true;
        AmqpLink.refuseAttach(sender, condition);
    }

    @Override
    public void onFlow() {
        if (closed || subscription == null) {
            return;
        }
        boolean drain = sender.getDrain() && sender.getCredit() > 0 && !drainRequested;
        topUpCoreCredit(drain);
        if (drain) {
            drainRequested = true;
            subscription.drain();
        }
    }

    @Override
    public void onWritable() {
        if (!closed && subscription != null) {
            topUpCoreCredit(false);
        }
    }

    /** Passes the client's credit on to the core, within the window unless {@code all} (a drain). */
    private void topUpCoreCredit(boolean all) {
        int owed = sender.getCredit() + sent - creditGivenToCore;
        int more = owed;
        if (!all) {
            if (!connection.writable()) {
                return;
            }
            more = Math.min(owed, CORE_WINDOW - (creditGivenToCore - sent));
        }
        if (more > 0) {
            creditGivenToCore += more;
            subscription.addCredit(more);
        }
    }

    // ---- from the queue's thread

    @Override
    public void deliver(Delivery delivery) {
        if (!connection.executor().execute(() -> send(delivery))) {
            delivery.release();
        }
    }

    @Override
    public void drained() {
        connection.executor().execute(() -> {
            drainRequested = false;
            creditGivenToCore = sent; // the core dropped its remaining credit; all it delivered has been sent
            if (!closed) {
                sender.drained();
            }
        });
    }

    @Override
    public void closedByBroker(String reason) {
        connection.executor().execute(() -> {
            if (!closed) {
                closed = true;
                subscription = null;
                sender.setCondition(ErrorConditions.detachForced(reason));
                sender.close();
            }
        });
    }

    // ---- on the event loop

    private void send(Delivery delivery) {
        assert connection.executor().inEventLoop() : "a transfer sent off the event loop";
        if (closed) {
            delivery.release();
            return;
        }
        byte[] content = delivery.deliveryCount() > 0
                ? connection.redeliveryHeader().rewrite(delivery.content(), delivery.deliveryCount())
                : delivery.content();
        org.apache.qpid.proton.engine.Delivery transfer = sender.delivery(tag(nextTag++));
        sender.sendNoCopy(ReadableBuffer.ByteBufferReader.wrap(content));
        sender.advance();
        sent++;
        if (preSettled) {
            transfer.settle();
        } else {
            transfer.setContext(delivery);
        }
        if (subscription != null && creditGivenToCore - sent <= CORE_WINDOW / 2) {
            topUpCoreCredit(false);
        }
    }

    private static byte[] tag(long number) {
        return ByteBuffer.allocate(Long.BYTES).putLong(number).array();
    }

    @Override
    public void onDelivery(org.apache.qpid.proton.engine.Delivery transfer) {
        if (!(transfer.getContext() instanceof Delivery delivery)) {
            if (transfer.remotelySettled() && !transfer.isSettled()) {
                transfer.settle();
            }
            return;
        }
        DeliveryState state = transfer.getRemoteState();
        if (state == null && !transfer.remotelySettled()) {
            return; // nothing decided yet
        }
        transfer.setContext(null);
        if (state instanceof TransactionalState transactional) {
            LocalTransaction transaction = connection.transactions().find(transactional.getTxnId());
            if (transaction == null) {
                delivery.release();
                transfer.settle();
                closeLink(ErrorConditions.condition(ErrorConditions.UNKNOWN_TRANSACTION,
                        "transaction " + transactional.getTxnId() + " is not open on this connection"));
                return;
            }
            settleInCore(delivery, (DeliveryState) transactional.getOutcome(), transaction);
        } else {
            settleInCore(delivery, state, null);
        }
        transfer.settle();
    }

    private void settleInCore(Delivery delivery, DeliveryState outcome, LocalTransaction transaction) {
        if (outcome instanceof Accepted) {
            delivery.accept(transaction).whenComplete((v, failure) -> {
                if (failure != null) {
                    LOG.debug("Accept of message {} failed: {}", delivery.messageId(), failure.toString());
                }
            });
        } else if (outcome instanceof Rejected) {
            delivery.reject();
        } else if (outcome instanceof Modified modified) {
            delivery.modified(Boolean.TRUE.equals(modified.getDeliveryFailed()),
                    Boolean.TRUE.equals(modified.getUndeliverableHere()));
        } else {
            delivery.release(); // Released, or settled without an outcome
        }
    }

    private void closeLink(ErrorCondition condition) {
        closed = true;
        closeSubscription();
        sender.setCondition(condition);
        sender.close();
    }

    @Override
    public void onRemoteDetach(boolean closedByPeer) {
        closed = true;
        closeSubscription();
        AmqpLink.answerDetach(sender, closedByPeer);
    }

    @Override
    public void onEnded() {
        closed = true;
        closeSubscription();
    }

    private void closeSubscription() {
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
    }
}
