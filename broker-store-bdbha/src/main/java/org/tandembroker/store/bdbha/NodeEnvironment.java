package org.tandembroker.store.bdbha;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What {@link NodeRoleMachine} asks of JE and of the store's master session: the machine decides, this acts. In
 * production JE sits behind it ({@link ReplicatedEnvironmentFacade}, {@link MasterSession},
 * {@link GroupAdministration}); the machine's unit tests drive a fake. Every method runs on the {@code ha-} thread
 * and may block it (opening, restoring, closing).
 *
 * @param <S> what the node writes with while master ({@link MasterSession} in production)
 */
interface NodeEnvironment<S> {

    /** JE's state changes of one open environment, called on JE's threads. */
    @FunctionalInterface
    interface StateChanges {
        void stateChanged(NodeRole state, Optional<String> masterName);
    }

    /** How an attempt to open the environment ended. */
    sealed interface OpenOutcome {
        /** Open: JE reports its state (at once, then on every change) to the {@link StateChanges} given. */
        record Opened() implements OpenOutcome {
        }

        /** Failed in a way worth retrying after {@code delayMillis}. */
        record Retry(long delayMillis) implements OpenOutcome {
        }

        /**
         * The store's disk is full: try again after {@code delayMillis}, for as long as it takes (an operator frees
         * space without restarting the broker), and count attempts afresh once it opens or fails otherwise.
         */
        record WaitForSpace(long delayMillis) implements OpenOutcome {
        }

        /** Failed for good: the node stops, for {@code reason}. */
        record Failed(String reason) implements OpenOutcome {
        }

        /**
         * This node opened designated primary and the master it reached ({@code master}, when JE named it) is
         * designated too: JE refuses a second designated node at the point of contact. {@code rejoining}: this
         * node's store held the group's data before (a member restarting, or reopening in this process after it
         * left the group: figure 1.6's healed partition), not a new node being set up.
         */
        record MasterAlsoDesignated(Optional<String> master, boolean rejoining) implements OpenOutcome {
        }
    }

    /** How opening the master session ended. */
    sealed interface SessionOutcome<S> {
        record Opened<S>(S session) implements SessionOutcome<S> {
        }

        /** JE refused: {@code action} says what the node does about it ({@link ReplicationFailures.Action}). */
        record Refused<S>(ReplicationFailures.Action action, String reason) implements SessionOutcome<S> {
        }

        /** Not a replication matter: the node stops. */
        record Failed<S>(String reason) implements SessionOutcome<S> {
        }
    }

    /** Why JE invalidated the open environment; {@code rolledBackFrom} is set for a rollback. */
    record Invalidation(String cause, OptionalLong rolledBackFrom) {
    }

    /** Opens the environment (restoring it from the group's log when JE asks), attempt {@code attempt}. */
    OpenOutcome open(int attempt, boolean designatedPrimary, StateChanges changes);

    /** Why JE invalidated the open environment, if it did. */
    Optional<Invalidation> invalidation();

    /** Closes the environment, if one is open. */
    void close();

    /** Opens what writes while master (databases, committers, quorum heartbeat) reporting to {@code reports}. */
    SessionOutcome<S> openSession(SessionReports reports);

    /**
     * Closes a master session; {@code handingOver} when the node is still master while the store closes (then a
     * last heartbeat, unless the quorum is known lost, proves that a majority holds everything it committed).
     */
    void closeSession(S session, boolean handingOver, boolean quorumKnownLost);

    /** Asks the master, once, for its clients' address; empty when it did not answer. */
    Optional<String> clientAddressOf(String masterName);

    /** Applies the designated-primary flag to the open environment (nothing when none is open). */
    void applyDesignation(boolean designated);

    /** The group's electable nodes as the open environment knows them; empty when unknown. */
    OptionalInt electableNodes();
}
