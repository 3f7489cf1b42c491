package org.tandembroker.core.store.replication;

import java.util.Optional;

/**
 * A member of the replication group, as this node knows it (spec 1.6.8 "getAllNodesInGroup").
 *
 * @param name     the node's name in the group
 * @param hostPort where it replicates (its {@code nodeHostPort})
 * @param type     the node type: ELECTABLE, ARBITER, SECONDARY, MONITOR
 * @param state    its state when known from here: this node's own, the master, or a replica the master feeds
 */
public record GroupMember(String name, String hostPort, String type, Optional<MemberState> state) {
}
