package org.tandembroker.amqp;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.transaction.Declare;
import org.apache.qpid.proton.amqp.transaction.Declared;
import org.apache.qpid.proton.amqp.transaction.Discharge;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.message.Message;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * The transaction coordinator link (target {@code Coordinator}): Declare starts a core {@link LocalTransaction}
 * and answers Declared with a txn-id allocated by the connection; Discharge commits (or rolls back when
 * {@code fail=true}) and is settled Accepted only when the core's future completes, Rejected with
 * {@code amqp:transaction:rollback} (or the mapped error) when it fails. An unknown txn-id is Rejected with
 * {@code amqp:transaction:unknown-id}. Transactions still open when the client closes the coordinator are rolled
 * back (the connection's end rolls back the rest).
 *
 * <p>Thread: the connection's event loop owns every field; commit futures come back through the connection's
 * executor.
 */
final class TransactionCoordinatorLink implements AmqpLink {
    private static final int CREDIT = 100;

    private final AmqpConnection connection;
    private final Receiver receiver;
    private final Set<Binary> declared = new HashSet<>();
    private boolean closed;

    TransactionCoordinatorLink(AmqpConnection connection, Receiver receiver) {
        this.connection = connection;
        this.receiver = receiver;
    }

    @Override
    public void attach() {
        receiver.setTarget(receiver.getRemoteTarget());
        receiver.setSource(receiver.getRemoteSource());
        receiver.setSenderSettleMode(receiver.getRemoteSenderSettleMode());
        receiver.setReceiverSettleMode(ReceiverSettleMode.FIRST);
        receiver.open();
        receiver.flow(CREDIT);
    }

    @Override
    public void onFlow() {
        // nothing to do: the coordinator only receives
    }

    @Override
    public void onDelivery(Delivery delivery) {
        if (closed || delivery != receiver.current() || delivery.isPartial()) {
            return;
        }
        byte[] bytes = new byte[delivery.available()];
        receiver.recv(bytes, 0, bytes.length);
        receiver.advance();
        receiver.flow(1);
        Object request;
        try {
            Message message = Message.Factory.create();
            message.decode(bytes, 0, bytes.length);
            request = message.getBody() instanceof AmqpValue value ? value.getValue() : null;
        } catch (RuntimeException e) {
            reject(delivery, ErrorConditions.condition(AmqpError.DECODE_ERROR, "not a coordinator request: " + e));
            return;
        }
        if (request instanceof Declare declare) {
            declare(delivery, declare);
        } else if (request instanceof Discharge discharge) {
            discharge(delivery, discharge);
        } else {
            reject(delivery, ErrorConditions.condition(ErrorConditions.NOT_IMPLEMENTED,
                    "unknown coordinator request: " + request));
        }
    }

    private void declare(Delivery delivery, Declare declare) {
        if (declare.getGlobalId() != null) {
            reject(delivery, ErrorConditions.condition(ErrorConditions.NOT_IMPLEMENTED,
                    "distributed transactions are not supported"));
            return;
        }
        LocalTransaction transaction;
        try {
            transaction = connection.virtualHost().beginTransaction();
        } catch (RuntimeException e) {
            failed(delivery, e);
            return;
        }
        Binary txnId = connection.transactions().declare(transaction);
        declared.add(txnId);
        Declared answer = new Declared();
        answer.setTxnId(txnId);
        delivery.disposition(answer);
        delivery.settle();
    }

    /** Discharges once every transfer of the transaction received before this request is decided. */
    private void discharge(Delivery delivery, Discharge discharge) {
        Binary txnId = discharge.getTxnId();
        if (!connection.transactions().afterItsTransfers(txnId, () -> dischargeNow(delivery, discharge))) {
            reject(delivery, ErrorConditions.condition(ErrorConditions.UNKNOWN_TRANSACTION,
                    "transaction " + txnId + " is already being discharged"));
        }
    }

    private void dischargeNow(Delivery delivery, Discharge discharge) {
        if (closed) {
            return; // the link's transactions were rolled back when it closed
        }
        Binary txnId = discharge.getTxnId();
        LocalTransaction transaction = connection.transactions().discharge(txnId);
        declared.remove(txnId);
        if (transaction == null) {
            reject(delivery, ErrorConditions.condition(ErrorConditions.UNKNOWN_TRANSACTION,
                    "transaction " + txnId + " is not open on this connection"));
            return;
        }
        String rollbackReason = connection.transactions().takeRollbackReason(txnId);
        boolean fail = Boolean.TRUE.equals(discharge.getFail());
        CompletableFuture<Void> outcome;
        if (!fail && rollbackReason != null) {
            outcome = transaction.rollback().thenCompose(v -> CompletableFuture.failedFuture(new BrokerException(
                    ErrorKind.TRANSACTION_ROLLBACK, "transaction rolled back: " + rollbackReason)));
        } else {
            outcome = fail ? transaction.rollback() : transaction.commit();
        }
        outcome.whenComplete((v, failure) -> connection.executor().execute(() -> {
            if (closed) {
                return;
            }
            if (failure == null) {
                delivery.disposition(Accepted.getInstance());
                delivery.settle();
            } else {
                failed(delivery, failure);
            }
        }));
    }

    private void failed(Delivery delivery, Throwable failure) {
        if (ErrorConditions.isNodeInactive(failure)) {
            connection.closeBecauseNodeInactive(failure);
        } else {
            reject(delivery, ErrorConditions.of(failure));
        }
    }

    private static void reject(Delivery delivery, ErrorCondition condition) {
        Rejected rejected = new Rejected();
        rejected.setError(condition);
        delivery.disposition(rejected);
        delivery.settle();
    }

    @Override
    public void onRemoteDetach(boolean closedByPeer) {
        closed = true;
        for (Binary txnId : declared) {
            LocalTransaction transaction = connection.transactions().discharge(txnId);
            if (transaction != null && transaction.isOpen()) {
                transaction.rollback();
            }
        }
        declared.clear();
        AmqpLink.answerDetach(receiver, closedByPeer);
    }

    @Override
    public void onEnded() {
        closed = true;
    }
}
