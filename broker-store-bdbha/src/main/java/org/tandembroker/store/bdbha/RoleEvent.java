package org.tandembroker.store.bdbha;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link NodeRoleMachine} reacts to. Events that can arrive late carry the environment, generation or
 * session they concern; the machine drops them when that is no longer current.
 */
sealed interface RoleEvent {

    /** Open the environment (attempt 1 on start, later attempts after a retryable failure). */
    record Open(int attempt) implements RoleEvent {
    }

    /** JE's new state for environment number {@code environment}. */
    record StateChanged(long environment, NodeRole state, Optional<String> masterName) implements RoleEvent {
    }

    /** Try again to open the master session (it was refused for want of a quorum). */
    record RetryMaster(long generation) implements RoleEvent {
    }

    /** Ask the master for its clients' address (a replica redirects clients there). */
    record LookUpMasterAddress(long generation, String masterName, int attempt) implements RoleEvent {
    }

    /** A heartbeat of master session {@code session} was acknowledged by a majority. */
    record QuorumConfirmed(long session) implements RoleEvent {
    }

    /** A heartbeat of master session {@code session} found too few replicas. */
    record QuorumLost(long session, String reason) implements RoleEvent {
    }

    /** JE invalidated environment number {@code environment}. */
    record RestartRequired(long environment, String reason) implements RoleEvent {
    }

    /** An operator sets the designated-primary flag; {@code done} completes once applied. */
    record Designate(boolean designated, CompletableFuture<Void> done) implements RoleEvent {
    }

    /** The store closes. */
    record Close() implements RoleEvent {
    }
}
