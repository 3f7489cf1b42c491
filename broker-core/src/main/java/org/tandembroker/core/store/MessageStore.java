package org.tandembroker.core.store;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.store.replication.ReplicationControl;

/**
 * The durable memory of one virtual host: configuration records (exchanges, queues, bindings), messages
 * (metadata and content) and queue entries.
 *
 * <p><b>Threads.</b> Every method may be called from any thread and never blocks on disk or on the network:
 * work that touches the disk runs on the store's own threads and completes a future. In particular
 * {@link StoreTransaction#commit()} returns at once; its future completes when the data is durable per the
 * store's policy (for a replicated store, including the replica acknowledgements its policy demands).
 *
 * <p><b>Life cycle.</b> {@link #start(StoreRoleListener)} opens the store. A store then tells its listener when
 * this node may serve clients ({@link StoreRoleListener#becameActive()}) and when it may not
 * ({@link StoreRoleListener#becamePassive}). A standalone store becomes active once, straight after start. A
 * replicated store becomes active when its node is elected or designated master and passive when it loses that
 * role. {@link #recover(RecoveryHandler)} and the reads of what it returns are only valid while active.
 * {@link #close()} ends everything.
 *
 * <p><b>Completion threads.</b> Commit and load futures complete on the store's own threads (for a group-commit
 * store, the committer that fsyncs the batch). Stages attached without an executor run there and delay the next
 * batch: keep them short (hand work to a queue's executor or a connection's event loop), never block in them.
 *
 * <p><b>What management may use.</b> Beyond messages, a store may offer capabilities: {@link #figures()},
 * {@link #replication()} and {@link #hotBackup()}. Each is empty unless the store has it, and whether it has it
 * depends only on the store's type (not on whether it is open now): the capability's own methods say when they
 * have nothing to give. Management shows a capability when the store offers it and nothing of it otherwise.
 */
public interface MessageStore extends AutoCloseable {

    /** Opens the store and begins reporting its role to {@code listener}. Called once. */
    void start(StoreRoleListener listener);

    /**
     * Begins recovering the store's durable records, on the calling thread (the virtual host's activation thread,
     * never a network thread): replays every configuration record into {@code handler}, positions
     * {@link #nextMessageId()} above every stored message id, and returns the stored messages and queue entries to
     * be read page by page (on the store's reader thread) while the virtual host already serves. Its cost does not
     * depend on how many messages are stored. A later call (after the node became active again) starts afresh.
     */
    StoredEntries recover(RecoveryHandler handler);

    /** A new, empty transaction. Cheap: it only collects operations until {@link StoreTransaction#commit()}. */
    StoreTransaction newTransaction();

    /**
     * Reads back a stored message's content (for messages whose body was not kept on the heap). Fails with
     * {@code NOT_FOUND} when the store does not hold the message (its queue then drops the entry), with another
     * kind when the store cannot read now.
     */
    CompletableFuture<byte[]> loadContent(long messageId);

    /**
     * Like {@link #loadContent(long)}, for a message that queue {@code holder} holds (or held): a store that may keep a
     * message inside its queue entry looks there first.
     */
    default CompletableFuture<byte[]> loadContent(UUID holder, long messageId) {
        return loadContent(messageId);
    }

    /**
     * Reads the metadata of stored messages by id, one {@link StoredEntry} per id in the order given (null metadata
     * for a message the store does not hold), on the store's reader thread: a queue deeper than its heap window
     * reads back the messages it keeps in the store only. Fails with {@code NOT_ACTIVE} while the store is not
     * active. Stores that cannot read by id fail with {@code INTERNAL_ERROR}; queues on them keep every entry on
     * the heap ({@link #readsMessagesById()}).
     */
    default CompletableFuture<List<StoredEntry>> readMessages(long[] ids) {
        return CompletableFuture.failedFuture(new BrokerException(ErrorKind.INTERNAL_ERROR,
                "this store cannot read messages by id"));
    }

    /**
     * Like {@link #readMessages(long[])}, for messages that queue {@code holder} holds: a store that may keep a message
     * inside its queue entry looks there first.
     */
    default CompletableFuture<List<StoredEntry>> readMessages(UUID holder, long[] ids) {
        return readMessages(ids);
    }

    /** Whether {@link #readMessages} works on this store (a property of the store's type). */
    default boolean readsMessagesById() {
        return false;
    }

    /** A fresh, unique, monotonically increasing message id. */
    long nextMessageId();

    /** What the store knows of its own state, for logs and management (never null). */
    StoreStatus status();

    /** Its figures of disk use and commits, when this store keeps them. */
    default Optional<StoreFigureSource> figures() {
        return Optional.empty();
    }

    /** Its replication group's state and administration, when this store is replicated. */
    default Optional<ReplicationControl> replication() {
        return Optional.empty();
    }

    /** Backups of the running store into a directory, when this store can take them. */
    default Optional<HotBackup> hotBackup() {
        return Optional.empty();
    }

    /**
     * Closes the store; pending commits fail. Blocks until the store's files are released (so the directory can be
     * reopened), unless called from one of the store's own threads. Idempotent.
     */
    @Override
    void close();
}
