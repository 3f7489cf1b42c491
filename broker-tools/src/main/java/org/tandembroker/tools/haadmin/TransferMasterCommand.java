package org.tandembroker.tools.haadmin;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ha-admin transfer-master NODE}: moves the master role to the running replica NODE (JE's
 * {@code ReplicationGroupAdmin.transferMaster}): JE waits until NODE has caught up, then NODE becomes master and the
 * former master its replica, so the group never lacks a master. The step of a rolling restart that moves the master
 * (docs/security.md, rotating certificates).
 */
@Command(name = "transfer-master", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Makes the running replica NODE the master once it has caught up; the former master becomes "
                + "its replica. Ask any running node of the group.",
                "Refused (exit 1) when NODE is not running, is the master already, or does not catch up in time."})
final class TransferMasterCommand extends HaAdminCommand {
    @Parameters(index = "0", paramLabel = "NODE", description = "The replica to make master.")
    String node;

    @Option(names = "--timeout-seconds", paramLabel = "SECONDS", defaultValue = "60",
            description = "How long JE waits for NODE to catch up (1-3600, default: ${DEFAULT-VALUE}); give "
                    + "--timeout more than this.")
    int catchUpSeconds = 60;

    record Transfer(String group, String master, String askedNode) implements Result {
        @Override
        public String text() {
            return "node " + master + " is the master of group " + group + " (asked node " + askedNode + ")\n";
        }

        @Override
        public Object json() {
            return this;
        }
    }

    @Override
    Result execute(ReplicatedStoreClient store) {
        NodeCheck.requireMember(store, node);
        String master = store.transferMaster(node, catchUpSeconds);
        return new Transfer(store.groupName(), master, store.nodeName());
    }
}
