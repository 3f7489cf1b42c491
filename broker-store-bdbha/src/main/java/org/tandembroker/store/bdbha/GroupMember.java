package org.tandembroker.store.bdbha;

import java.util.Optional;

/**
 * A member of the replication group, as this node knows it (for management: spec 1.6.8 "getAllNodesInGroup").
 *
 * @param name     the node's name in the group
 * @param hostPort where it replicates (its {@code nodeHostPort})
 * @param type     JE's node type: ELECTABLE, ARBITER, SECONDARY, MONITOR
 * @param state    MASTER, REPLICA, ARBITER, or this node's own state, when known from here
 */
public record GroupMember(String name, String hostPort, String type, Optional<String> state) {
}
