package org.tandembroker.tools.haadmin;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ha-admin remove-node NODE}: removes a stopped node from the group (spec 1.6.8, removeNodeFromGroup). */
@Command(name = "remove-node", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Removes NODE from the group. NODE must be stopped; ask a running node (the master).",
                "Refused (exit 1) while NODE still runs."})
final class RemoveNodeCommand extends HaAdminCommand {
    @Parameters(index = "0", paramLabel = "NODE", description = "The stopped node to remove.")
    String node;

    record Removal(String group, String removedNode, String askedNode) implements Result {
        @Override
        public String text() {
            return "node " + removedNode + " removed from group " + group + " (asked node " + askedNode + ")\n";
        }

        @Override
        public Object json() {
            return this;
        }
    }

    @Override
    Result execute(ReplicatedStoreClient store) {
        NodeCheck.requireMember(store, node);
        store.removeNodeFromGroup(node);
        return new Removal(store.groupName(), node, store.nodeName());
    }
}
