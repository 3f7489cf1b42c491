package org.tandembroker.tools.haadmin;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ha-admin update-address NODE HOST PORT}: a stopped node's new replication address (spec 1.6.8). */
@Command(name = "update-address", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Records a new replication address for NODE in the group. NODE must be stopped; ask a "
                + "running node (the master). Then set NODE's <nodeHostPort> to HOST:PORT and start it.",
                "Refused (exit 1) while NODE still runs."})
final class UpdateAddressCommand extends HaAdminCommand {
    @Parameters(index = "0", paramLabel = "NODE", description = "The stopped node.")
    String node;

    @Parameters(index = "1", paramLabel = "HOST", description = "Its new host name or address.")
    String newHost;

    @Parameters(index = "2", paramLabel = "PORT", description = "Its new replication port.")
    int newPort;

    record AddressUpdate(String group, String node, String hostPort, String askedNode) implements Result {
        @Override
        public String text() {
            return "node " + node + " of group " + group + " is now at " + hostPort + " (asked node " + askedNode
                    + "); set <nodeHostPort>" + hostPort + "</nodeHostPort> in its virtual host file before starting "
                    + "it\n";
        }

        @Override
        public Object json() {
            return this;
        }
    }

    @Override
    Result execute(ReplicatedStoreClient store) {
        NodeCheck.requireMember(store, node);
        store.updateAddress(node, newHost, newPort);
        return new AddressUpdate(store.groupName(), node, newHost + ":" + newPort, store.nodeName());
    }
}
