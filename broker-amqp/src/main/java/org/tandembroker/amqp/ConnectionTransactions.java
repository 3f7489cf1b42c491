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
 * <p>Thread: the connection's event loop.
 */
final class ConnectionTransactions {
    private final Map<Binary, LocalTransaction> open = new HashMap<>();
    /** Why a transaction may only roll back (e.g. a publish in it was denied), by txn-id. */
    private final Map<Binary, String> rollbackOnly = new HashMap<>();
    private int lastId;

    Binary declare(LocalTransaction transaction) {
        Binary id = new Binary(ByteBuffer.allocate(Integer.BYTES).putInt(++lastId).array());
        open.put(id, transaction);
        return id;
    }

    /** The open transaction of that id, or null when the id is unknown or already discharged. */
    LocalTransaction find(Binary id) {
        return id == null ? null : open.get(id);
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
        for (LocalTransaction transaction : left) {
            if (transaction.isOpen()) {
                transaction.rollback();
            }
        }
    }
}
