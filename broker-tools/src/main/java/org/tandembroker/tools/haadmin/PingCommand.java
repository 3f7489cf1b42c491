package org.tandembroker.tools.haadmin;

import java.util.Locale;
import javax.management.openmbean.CompositeData;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ha-admin ping NODE}: JE's DbPing view of NODE (its own answer: state, master, VLSNs), asked from the node
 * whose connector is reached (so it works where only the brokers reach the replication network). Printed as JE's
 * {@code DbPing} prints it (spec 1.6.9, Example 1.3). Open to the monitor role.
 */
@Command(name = "ping", sortOptions = false, usageHelpAutoWidth = true,
        description = {"NODE's own answer to JE's DbPing: its state, the master it knows, its VLSNs.",
                "Asked from the node --host/--port reach (any running node of the group)."})
final class PingCommand extends HaAdminCommand {
    @Parameters(index = "0", paramLabel = "NODE", description = "The node to ping.")
    String node;

    /**
     * What NODE answered.
     *
     * @param group                    the group
     * @param node                     the node
     * @param hostPort                 its replication address
     * @param state                    its state, as it says
     * @param master                   the master it knows, or null
     * @param jeVersion                its JE version
     * @param logVersion               its JE log format version
     * @param transactionEndVlsn       VLSN of its last transaction end (commit or abort)
     * @param masterTransactionEndVlsn the master's last transaction end VLSN as it knows it
     * @param activeFeeders            replicas it feeds (a master)
     * @param systemLoad               its system load average
     */
    record PingAnswer(String group, String node, String hostPort, String state, String master, String jeVersion,
                      int logVersion, long transactionEndVlsn, long masterTransactionEndVlsn, int activeFeeders,
                      double systemLoad) implements Result {
        @Override
        public String text() {
            return String.join("\n",
                    "Current state of node: " + node + " from group: " + group + " (" + hostPort + ")",
                    "  Current state: " + state,
                    "  Current master: " + (master == null ? "" : master),
                    "  Current JE version: " + jeVersion,
                    "  Current log version: " + logVersion,
                    "  Current transaction end (abort or commit) VLSN: " + transactionEndVlsn,
                    "  Current master transaction end (abort or commit) VLSN: " + masterTransactionEndVlsn,
                    "  Current active feeders on node: " + activeFeeders,
                    "  Current system load average: " + String.format(Locale.ROOT, "%.2f", systemLoad), "");
        }

        @Override
        public Object json() {
            return this;
        }
    }

    @Override
    Result execute(ReplicatedStoreClient store) {
        NodeCheck.requireMember(store, node);
        CompositeData answer = store.ping(node);
        String master = (String) answer.get("MasterName");
        return new PingAnswer(store.groupName(), (String) answer.get("NodeName"), (String) answer.get("NodeHostPort"),
                (String) answer.get("NodeState"), master == null || master.isEmpty() ? null : master,
                (String) answer.get("JEVersion"), (Integer) answer.get("LogVersion"),
                (Long) answer.get("TransactionEndVLSN"), (Long) answer.get("MasterTransactionEndVLSN"),
                (Integer) answer.get("ActiveFeeders"), (Double) answer.get("SystemLoad"));
    }
}
