package org.tandembroker.amqp;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Outcome;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transaction.TransactionalState;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.codec.DecodeException;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Receiver;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.message.IncomingMessage;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.security.Permission;
import org.tandembroker.core.txn.LocalTransaction;
import org.tandembroker.core.vhost.AddressKind;
import org.tandembroker.core.vhost.Destination;

/**
 * A link on which the client publishes. The target address is resolved to a core {@link Destination} before the
 * attach is answered; a dynamic target becomes a temporary queue; a null address is the anonymous relay, where
 * each message's {@code to} is resolved (and cached) instead.
 *
 * <p>Every message is handed to the core whole (multi-frame transfers are accumulated by Proton up to the
 * size limit) and settled only when the core's publish future completes: Accepted, or Rejected with the mapped
 * error. Credit is topped up as publishes complete, so unsettled publishes per link never exceed the link credit:
 * a fast producer is held back by credit, not by heap.
 *
 * <p>Thread: the connection's event loop owns every field; publish futures come back through the connection's
 * executor.
 */
final class IncomingLink implements AmqpLink {
    private static final Symbol DECODE_ERROR = AmqpError.DECODE_ERROR;
    private static final int RELAY_CACHE_SIZE = 64;

    private final AmqpConnection connection;
    private final Receiver receiver;
    private final int linkCredit;
    private final long maxMessageSize;
    private final Map<RelayAddress, CompletableFuture<Destination>> relayDestinations =
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<RelayAddress, CompletableFuture<Destination>> eldest) {
                    return size() > RELAY_CACHE_SIZE;
                }
            };
    /** Messages waiting for their destination to resolve, in arrival order (publishes keep link order). */
    private final ArrayDeque<PendingPublish> awaitingDestination = new ArrayDeque<>();

    private CompletableFuture<Destination> fixedDestination;
    /** The fixed target's address when the client's permissions apply to it (not its own temporary queue). */
    private String checkedAddress;
    /** The permissions' version that allowed sending to {@code checkedAddress}. */
    private long checkedVersion;
    private int inFlight;
    private boolean closed;

    private record PendingPublish(Delivery delivery, IncomingMessage message, boolean preSettled, Binary txnId,
                                  LocalTransaction transaction, CompletableFuture<Destination> destination) {
    }

    IncomingLink(AmqpConnection connection, Receiver receiver) {
        this.connection = connection;
        this.receiver = receiver;
        this.linkCredit = connection.limits().linkCredit();
        this.maxMessageSize = connection.limits().maxMessageSize();
    }

    @Override
    public void attach() {
        if (!(receiver.getRemoteTarget() instanceof Target target)) {
            refuse(ErrorConditions.condition(AmqpError.INVALID_FIELD, "a publishing link needs a target"));
            return;
        }
        CompletableFuture<Resolved> resolved;
        if (target.getDynamic()) {
            // the client's own temporary queue: no permission needed to send to it
            resolved = connection.virtualHost().createTemporaryQueue(connection)
                    .thenCompose(address -> resolve(target, address, ClientAccess.UNRESTRICTED));
        } else if (target.getAddress() == null) {
            resolved = CompletableFuture.completedFuture(new Resolved(target, null)); // anonymous relay
        } else {
            checkedAddress = target.getAddress();
            checkedVersion = connection.access().version();
            resolved = resolve(target, target.getAddress(), connection.access());
        }
        resolved.whenComplete((result, failure) -> connection.executor().execute(() -> {
            if (closed) {
                return;
            }
            if (failure != null) {
                refuseOrCloseConnection(failure);
            } else {
                if (result.destination() != null) {
                    fixedDestination = CompletableFuture.completedFuture(result.destination());
                }
                open(result.localTarget());
            }
        }));
    }

    /** The attach's answer: our target, and the destination behind it (null for the anonymous relay). */
    private record Resolved(Target localTarget, Destination destination) {
    }

    private CompletableFuture<Resolved> resolve(Target remote, String address, ClientAccess access) {
        AddressKind kind = TerminusCapabilities.kindOf(remote.getCapabilities());
        return connection.virtualHost().resolveDestination(address, kind, access).thenApply(destination -> {
            Target local = (Target) remote.copy();
            local.setAddress(address);
            return new Resolved(local, destination);
        });
    }

    private void open(Target localTarget) {
        receiver.setTarget(localTarget);
        receiver.setSource(receiver.getRemoteSource());
        receiver.setSenderSettleMode(receiver.getRemoteSenderSettleMode());
        receiver.setReceiverSettleMode(ReceiverSettleMode.FIRST);
        receiver.setMaxMessageSize(UnsignedLong.valueOf(maxMessageSize));
        if (DeliveryTime.isDesired(receiver.getRemoteDesiredCapabilities())) {
            receiver.setOfferedCapabilities(new Symbol[]{DeliveryTime.DELAYED_DELIVERY});
        }
        receiver.open();
        receiver.flow(linkCredit);
    }

    private void refuseOrCloseConnection(Throwable failure) {
        closed = true;
        AmqpLink.refuseAttach(receiver, connection, failure);
    }

    private void refuse(ErrorCondition condition) {
        closed = true;
        AmqpLink.refuseAttach(receiver, condition);
    }

    @Override
    public void onFlow() {
        // the client's flow frames carry nothing a receiving link must act on
    }

    @Override
    public void onDelivery(Delivery delivery) {
        if (closed || delivery != receiver.current()) {
            return; // a disposition update on a delivery already handed to the core, or a link being closed
        }
        if (delivery.isAborted()) {
            receiver.advance();
            delivery.settle();
            topUpCredit();
            return;
        }
        if (delivery.available() > maxMessageSize) {
            closeLink(ErrorConditions.messageSizeExceeded(delivery.available(), maxMessageSize));
            return;
        }
        if (delivery.isPartial()) {
            return; // Proton keeps accumulating the frames
        }
        byte[] content = new byte[delivery.available()];
        receiver.recv(content, 0, content.length);
        receiver.advance();
        boolean preSettled = delivery.remotelySettled();
        if (preSettled) {
            delivery.settle();
        }
        accept(delivery, content, preSettled);
    }

    private void accept(Delivery delivery, byte[] content, boolean preSettled) {
        MessageMetadata metadata;
        AddressKind toKind;
        try {
            MessageMetadataDecoder.Decoded decoded =
                    connection.metadataDecoder().read(content, System.currentTimeMillis());
            metadata = decoded.metadata();
            toKind = decoded.toKind();
        } catch (DecodeException e) {
            if (delivery.getRemoteState() instanceof TransactionalState state) {
                connection.transactions().markRollbackOnly(state.getTxnId(),
                        "a message of the transaction could not be decoded: " + e.getMessage());
            }
            settle(delivery, preSettled, null, rejected(ErrorConditions.condition(DECODE_ERROR, e.getMessage())));
            topUpCredit();
            return;
        }
        Binary txnId = null;
        LocalTransaction transaction = null;
        if (delivery.getRemoteState() instanceof TransactionalState state) {
            txnId = state.getTxnId();
            transaction = connection.transactions().find(txnId);
            if (transaction == null) {
                settle(delivery, preSettled, null, rejected(ErrorConditions.condition(
                        ErrorConditions.UNKNOWN_TRANSACTION, "transaction " + txnId + " is not open on this connection")));
                topUpCredit();
                return;
            }
        }
        CompletableFuture<Destination> destination = fixedDestination != null
                ? checkedFixedDestination()
                : relayDestination(metadata.to(), toKind);
        if (txnId != null) {
            // the transaction's discharge, which may already be in this read, waits for this message's outcome
            connection.transactions().publishing(txnId);
        }
        inFlight++;
        PendingPublish publish = new PendingPublish(delivery,
                new IncomingMessage(metadata, content, connection.identity()), preSettled, txnId, transaction,
                destination);
        if (awaitingDestination.isEmpty() && destination.isDone()) {
            publish(publish);
        } else {
            awaitingDestination.add(publish);
            destination.whenComplete((d, e) -> connection.executor().execute(this::publishResolved));
        }
    }

    /** The fixed destination, checked again when the permissions were reloaded since the attach. */
    private CompletableFuture<Destination> checkedFixedDestination() {
        ClientAccess access = connection.access();
        if (checkedAddress != null && access.version() != checkedVersion) {
            if (!access.allows(Permission.SEND, checkedAddress)) {
                return CompletableFuture.failedFuture(access.denial(Permission.SEND, checkedAddress));
            }
            checkedVersion = access.version();
        }
        return fixedDestination;
    }

    private CompletableFuture<Destination> relayDestination(String to, AddressKind kind) {
        if (to == null) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.NOT_FOUND,
                    "a message on the anonymous relay needs a 'to' address"));
        }
        ClientAccess access = connection.access();
        if (!access.allows(Permission.SEND, to)) {
            return CompletableFuture.failedFuture(access.denial(Permission.SEND, to));
        }
        RelayAddress key = new RelayAddress(to, kind);
        CompletableFuture<Destination> cached = relayDestinations.get(key);
        if (cached == null || cached.isCompletedExceptionally()) {
            cached = connection.virtualHost().resolveDestination(to, kind, access);
            relayDestinations.put(key, cached);
        }
        return cached;
    }

    /** A relayed message's destination: its {@code to} and whether it names a queue or a topic. */
    private record RelayAddress(String to, AddressKind kind) {
    }

    private void publishResolved() {
        while (!awaitingDestination.isEmpty() && awaitingDestination.peek().destination().isDone()) {
            publish(awaitingDestination.poll());
        }
    }

    private void publish(PendingPublish publish) {
        publish.destination()
                .thenCompose(d -> d.publish(publish.message(), publish.transaction()))
                .whenComplete((result, failure) -> {
                    if (!connection.executor().execute(() -> published(publish, failure))) {
                        inFlight--; // the event loop is gone; so is the client
                    }
                });
    }

    private void published(PendingPublish publish, Throwable failure) {
        inFlight--;
        try {
            if (closed) {
                return;
            }
            if (failure != null && ErrorConditions.isNodeInactive(failure)) {
                connection.closeBecauseNodeInactive(failure); // left unsettled: a failover client sends it again
                return;
            }
            Outcome outcome = failure == null ? Accepted.getInstance() : rejected(ErrorConditions.of(failure));
            settle(publish.delivery(), publish.preSettled(), publish.txnId(), outcome);
            topUpCredit();
        } finally {
            if (publish.txnId() != null) {
                // a refused message fails its whole transaction (whatever the reason: denied, queue full, the node
                // no longer serving), and a discharge waiting for this outcome may run now
                connection.transactions().decided(publish.txnId(),
                        failure == null ? null : BrokerException.from(failure).getMessage());
            }
        }
    }

    private static Rejected rejected(ErrorCondition condition) {
        Rejected rejected = new Rejected();
        rejected.setError(condition);
        return rejected;
    }

    /** Reports the outcome (inside a TransactionalState for a transactional transfer) and settles. */
    private static void settle(Delivery delivery, boolean preSettled, Binary txnId, Outcome outcome) {
        if (preSettled || delivery.isSettled()) {
            return; // at-most-once: the client wants no outcome
        }
        if (txnId == null) {
            delivery.disposition((DeliveryState) outcome);
        } else {
            TransactionalState state = new TransactionalState();
            state.setTxnId(txnId);
            state.setOutcome(outcome);
            delivery.disposition(state);
        }
        delivery.settle();
    }

    /** Keeps granted credit plus unsettled publishes at the configured link credit. */
    private void topUpCredit() {
        if (closed) {
            return;
        }
        int missing = linkCredit - inFlight - receiver.getCredit();
        if (missing >= Math.max(1, linkCredit / 2) || (missing > 0 && receiver.getCredit() == 0)) {
            receiver.flow(missing);
        }
    }

    private void closeLink(ErrorCondition condition) {
        closed = true;
        receiver.setCondition(condition);
        receiver.close();
    }

    @Override
    public void onRemoteDetach(boolean closedByPeer) {
        closed = true;
        AmqpLink.answerDetach(receiver, closedByPeer);
    }

    @Override
    public void onEnded() {
        closed = true;
    }
}
