package org.tandembroker.tools.haadmin;

import org.tandembroker.tools.ToolFailure;

/** Checks about the node a command names. */
final class NodeCheck {
    private NodeCheck() {
    }

    /** Commands about another node need it to be a member of the group. */
    static void requireMember(ReplicatedStoreClient store, String node) {
        if (store.members().stream().noneMatch(m -> m.name().equals(node))) {
            throw ToolFailure.usage("no node '" + node + "' in group " + store.groupName() + "; its nodes: "
                    + String.join(", ", store.members().stream().map(ReplicatedStoreClient.Member::name).toList()));
        }
    }
}
