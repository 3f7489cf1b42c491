package org.tandembroker.tools.haadmin;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ha-admin undesignate-primary NODE}: takes NODE's designation back, e.g. once the old master rejoined
 * (figure 1.3 step 5: exactly one designated node of a pair, or none).
 */
@Command(name = "undesignate-primary", sortOptions = false, usageHelpAutoWidth = true,
        description = "Takes NODE's designated-primary flag back (--host/--port may reach any node of the group).")
final class UndesignatePrimaryCommand extends HaAdminCommand {
    @Parameters(index = "0", paramLabel = "NODE", description = "The node.")
    String node;

    record Undesignation(String node, boolean designatedPrimary, String nodeState) implements Result {
        @Override
        public String text() {
            return "node " + node + " is no longer designated primary; it is " + nodeState + "\n";
        }

        @Override
        public Object json() {
            return this;
        }
    }

    @Override
    Result execute(ReplicatedStoreClient asked) {
        return onNode(asked, node, store -> {
            store.setDesignatedPrimary(false);
            return new Undesignation(node, store.designatedPrimary(), store.nodeState());
        });
    }
}
