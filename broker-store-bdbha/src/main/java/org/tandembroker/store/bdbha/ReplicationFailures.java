package org.tandembroker.store.bdbha;

import com.sleepycat.je.DiskLimitException;
import com.sleepycat.je.EnvironmentFailureException;
import com.sleepycat.je.rep.InsufficientAcksException;
import com.sleepycat.je.rep.InsufficientReplicasException;
import com.sleepycat.je.rep.ReplicaConsistencyException;
import com.sleepycat.je.rep.RestartRequiredException;
import com.sleepycat.je.rep.RollbackException;
import com.sleepycat.je.rep.StateChangeException;
import java.util.Optional;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/**
 * What JE's replication exceptions mean for a client and for the node. Stateless.
 *
 * <table>
 *   <caption>JE exception, client error, node action</caption>
 *   <tr><td>{@link InsufficientReplicasException} (nothing committed)</td><td>RESOURCE_LIMIT_EXCEEDED</td>
 *       <td>quorum lost</td></tr>
 *   <tr><td>{@link InsufficientAcksException} (committed here, not acknowledged)</td><td>IN_DOUBT</td>
 *       <td>quorum lost</td></tr>
 *   <tr><td>{@link StateChangeException} (ReplicaWrite, UnknownMaster, ReplicaState...),
 *       {@link ReplicaConsistencyException}</td><td>NOT_ACTIVE</td><td>none: a state event follows</td></tr>
 *   <tr><td>{@link RestartRequiredException} (Rollback, InsufficientLog...), other
 *       {@link EnvironmentFailureException}</td><td>NOT_ACTIVE</td><td>restart the environment</td></tr>
 * </table>
 * Anything else is not a replication matter ({@link #classify} returns empty): the caller hands it to the
 * standalone store's {@link org.tandembroker.store.bdb.StoreHealth} (disk full and the rest).
 */
final class ReplicationFailures {

    /** What the node should do about a failure. */
    enum Action {
        /** Nothing: the failure concerns the one operation, or a JE state event follows. */
        NONE,
        /** Too few replicas: stop serving and restart the environment so that JE holds an election. */
        QUORUM_LOST,
        /** The environment is invalid: stop serving and reopen it. */
        RESTART
    }

    /** A client's error and the node's action. */
    record Verdict(BrokerException error, Action action) {
    }

    /** The message of the operating system's ENOSPC, as Java reports it. */
    private static final String NO_SPACE = "No space left on device";

    private ReplicationFailures() {
    }

    static Optional<Verdict> classify(Throwable cause, String nodeName) {
        if (cause instanceof BrokerException) {
            return Optional.empty();
        }
        if (cause instanceof InsufficientReplicasException e) {
            return Optional.of(new Verdict(new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED,
                    "not enough replicas to commit on node " + nodeName + ": " + e.getRequiredNodeCount()
                            + " nodes including this master needed, replicas connected: "
                            + e.getAvailableReplicas() + " (ack policy "
                            + e.getCommitPolicy() + "); nothing was stored", e), Action.QUORUM_LOST));
        }
        if (cause instanceof InsufficientAcksException e) {
            return Optional.of(new Verdict(new BrokerException(ErrorKind.IN_DOUBT,
                    "committed on master " + nodeName + " but only " + (e.acksRequired() - e.acksPending()) + " of "
                            + e.acksRequired() + " replica acknowledgements arrived within " + e.ackTimeout()
                            + " ms: the message may still be delivered: a possible duplicate, never a loss", e),
                    Action.QUORUM_LOST));
        }
        if (cause instanceof RestartRequiredException e) {
            String what = e instanceof RollbackException ? "diverged from the new master and rolls back"
                    : "must restart its replicated environment";
            return Optional.of(new Verdict(new BrokerException(ErrorKind.NOT_ACTIVE,
                    "node " + nodeName + " " + what + ": " + firstLine(e), e), Action.RESTART));
        }
        if (cause instanceof StateChangeException || cause instanceof ReplicaConsistencyException) {
            return Optional.of(new Verdict(new BrokerException(ErrorKind.NOT_ACTIVE,
                    "node " + nodeName + " is no longer the master: " + firstLine(cause), cause), Action.NONE));
        }
        if (cause instanceof EnvironmentFailureException e) {
            return Optional.of(new Verdict(new BrokerException(ErrorKind.NOT_ACTIVE,
                    "the replicated environment of node " + nodeName + " failed and is being reopened: "
                            + firstLine(e), e), Action.RESTART));
        }
        return Optional.empty();
    }

    /**
     * Whether {@code failure} comes from a full disk: JE's own limit ({@link DiskLimitException}) or the file system
     * refusing a write ({@code No space left on device}, anywhere in the cause chain or in JE's message, which
     * repeats the original cause once the environment is invalid). An operator fixes that by freeing space, without
     * restarting the broker, so the node keeps trying.
     */
    static boolean isDiskFull(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof DiskLimitException) {
                return true;
            }
            String message = cause.getMessage();
            if (message != null && message.contains(NO_SPACE)) {
                return true;
            }
        }
        return false;
    }

    static String firstLine(Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).trim();
    }
}
