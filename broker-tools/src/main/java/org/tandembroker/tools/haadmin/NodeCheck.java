package org.tandembroker.tools.haadmin;

import org.tandembroker.tools.ToolFailure;

/** Checks about the node a command names. */
final class NodeCheck {
    private NodeCheck() {
    }

    /** Commands that act on the asked node itself must reach that node's connector, not another's. */
    static void requireAsked(ReplicatedStoreClient store, String node, String command) {
        String asked = store.nodeName();
        if (!asked.equals(node)) {
            throw ToolFailure.usage(command + " acts on the node whose JMX connector is asked, but "
                    + store.address() + " is node " + asked + ", not " + node + ": give --host/--port of " + node
                    + "'s broker");
        }
    }

    /** Commands about another node need it to be a member of the group. */
    static void requireMember(ReplicatedStoreClient store, String node) {
        if (store.members().stream().noneMatch(m -> m.name().equals(node))) {
            throw ToolFailure.usage("no node '" + node + "' in group " + store.groupName() + "; its nodes: "
                    + String.join(", ", store.members().stream().map(ReplicatedStoreClient.Member::name).toList()));
        }
    }
}
