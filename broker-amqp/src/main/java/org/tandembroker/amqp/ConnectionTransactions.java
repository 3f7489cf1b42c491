package org.tandembroker.amqp;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.qpid.proton.amqp.Binary;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * The transactions a connection declared, by the txn-id the broker allocated. Ids are only meaningful on their
 * connection (AMQP coordinators are per connection), so a counter is enough.
 *
 * <p><b>A discharge waits for its transaction's transfers.</b> A transactional transfer is decided (enlisted in
 * its transaction, or refused) when the core's publish future completes, which is handed back through the
 * connection's executor: after the rest of the bytes of the same read were processed. A client pipelines its
 * transfers and the discharge (Qpid JMS sends transacted messages asynchronously), so the discharge is often in the
 * same read. Committing it at once would commit without the transfers still undecided, and if any of them is then
 * refused (the node stopped serving, a queue is full) the client has been told its transaction committed while a
 * message of it is nowhere: a lost message (docs/reliability.md, bug 11). So every transactional transfer counts as
 * undecided from its arrival to its outcome, a refused one makes its transaction rollback-only, and a discharge runs
 * only once none of its transaction's transfers is undecided. A transfer arriving after the discharge finds the
 * transaction unknown.
 *
 * <p>Thread: the connection's event loop.
 */
final class ConnectionTransactions {
    private final Map<Binary, LocalTransaction> open = new HashMap<>();
    /** Why a transaction may only roll back (e.g. a publish in it was denied), by txn-id. */
    private final Map<Binary, String> rollbackOnly = new HashMap<>();
    /** Transactional transfers received whose publish is not decided yet, by txn-id (absent: none). */
    private final Map<Binary, Integer> undecided = new HashMap<>();
    /**
     * Discharges received while their transaction still had undecided transfers, by txn-id: such a transaction
     * takes no more transfers and no second discharge. (A discharge that runs at once forgets its transaction.)
     */
    private final Map<Binary, Runnable> waitingDischarges = new HashMap<>();
    private int lastId;

    Binary declare(LocalTransaction transaction) {
        Binary id = new Binary(ByteBuffer.allocate(Integer.BYTES).putInt(++lastId).array());
        open.put(id, transaction);
        return id;
    }

    /** The open transaction of that id, or null when the id is unknown or its discharge was received. */
    LocalTransaction find(Binary id) {
        return id == null || waitingDischarges.containsKey(id) ? null : open.get(id);
    }

    /** A transfer of transaction {@code id} arrived; {@link #decided} must follow once its publish completes. */
    void publishing(Binary id) {
        undecided.merge(id, 1, Integer::sum);
    }

    /**
     * A transfer of transaction {@code id} was enlisted ({@code refusal} null) or refused: a refused one makes the
     * transaction rollback-only. Runs the transaction's discharge if it waited for this transfer.
     */
    void decided(Binary id, String refusal) {
        if (refusal != null) {
            markRollbackOnly(id, "a message of the transaction was refused: " + refusal);
        }
        if (undecided.computeIfPresent(id, (key, count) -> count == 1 ? null : count - 1) == null) {
            Runnable discharge = waitingDischarges.remove(id);
            if (discharge != null) {
                discharge.run();
            }
        }
    }

    /**
     * Runs {@code discharge} of transaction {@code id} now, or once every transfer of it received so far is decided;
     * from now on the transaction takes no more transfers. Returns false, running nothing, when a discharge of it
     * was received already.
     */
    boolean afterItsTransfers(Binary id, Runnable discharge) {
        if (id != null && waitingDischarges.containsKey(id)) {
            return false;
        }
        if (id != null && undecided.containsKey(id)) {
            waitingDischarges.put(id, discharge);
        } else {
            discharge.run();
        }
        return true;
    }

    /** Forgets the transaction (it is being committed or rolled back); null when the id is unknown. */
    LocalTransaction discharge(Binary id) {
        return id == null ? null : open.remove(id);
    }

    /** The transaction may no longer commit: its discharge rolls it back and says {@code reason}. */
    void markRollbackOnly(Binary id, String reason) {
        if (id != null && open.containsKey(id)) {
            rollbackOnly.putIfAbsent(id, reason);
        }
    }

    /** Why the transaction must roll back (and forgets it), or null when it may commit. */
    String takeRollbackReason(Binary id) {
        return id == null ? null : rollbackOnly.remove(id);
    }

    /** The connection ended: roll back what the client left open. */
    void rollbackAll() {
        List<LocalTransaction> left = new ArrayList<>(open.values());
        open.clear();
        rollbackOnly.clear();
        undecided.clear();
        waitingDischarges.clear();
        for (LocalTransaction transaction : left) {
            if (transaction.isOpen()) {
                transaction.rollback();
            }
        }
    }
}
