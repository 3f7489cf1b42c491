package org.tandembroker.management.ha;

import com.sleepycat.je.rep.NodeState;
import com.sleepycat.je.rep.NodeType;
import com.sleepycat.je.rep.ReplicationNode;
import com.sleepycat.je.rep.util.DbPing;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.tandembroker.store.bdbha.GroupMember;

/**
 * Asks another node of a replication group for its state over JE's service port (JE's {@link DbPing}): what the
 * node itself says, not what this node believes. Blocks the caller for at most the timeout (per attempt to
 * connect and to read); call it from an operator's thread (a JMX call), never from a broker thread.
 */
public final class NodePing {

    /**
     * What a node answered.
     *
     * @param nodeName            the node
     * @param state               MASTER, REPLICA, UNKNOWN, DETACHED
     * @param masterName          the master it knows, or empty
     * @param jeVersion           its JE version
     * @param logVersion          its JE log format version
     * @param transactionEndVlsn  the VLSN of its last transaction end
     * @param masterTransactionEndVlsn the master's last transaction end VLSN as the node knows it
     * @param activeFeeders       replicas it feeds (on a master)
     * @param systemLoad          its system load average
     */
    public record Answer(String nodeName, String state, Optional<String> masterName, String jeVersion, int logVersion,
                         long transactionEndVlsn, long masterTransactionEndVlsn, int activeFeeders,
                         double systemLoad) {

        /** One line, in the order of JE's DbPing output. */
        public String describe(String groupName) {
            return "node " + nodeName + " of group " + groupName + ": state " + state + ", master "
                    + masterName.orElse("(none known)") + ", JE " + jeVersion + ", log version " + logVersion
                    + ", transaction end VLSN " + transactionEndVlsn + ", master transaction end VLSN "
                    + masterTransactionEndVlsn + ", active feeders " + activeFeeders + ", system load "
                    + String.format(java.util.Locale.ROOT, "%.2f", systemLoad);
        }
    }

    private NodePing() {
    }

    /**
     * Pings {@code member} of {@code groupName}.
     *
     * @throws Exception (an {@code IOException} or JE's {@code ServiceConnectFailedException}) when the node does
     *                   not answer within {@code timeoutMillis}
     */
    public static Answer ping(GroupMember member, String groupName, int timeoutMillis) throws Exception {
        int colon = member.hostPort().lastIndexOf(':');
        String host = member.hostPort().substring(0, colon);
        int port = Integer.parseInt(member.hostPort().substring(colon + 1));
        NodeState state = new DbPing(new Node(member.name(), host, port), groupName, timeoutMillis).getNodeState();
        String master = state.getMasterName();
        return new Answer(state.getNodeName(), String.valueOf(state.getNodeState()),
                master == null || master.isEmpty() ? Optional.empty() : Optional.of(master),
                String.valueOf(state.getJEVersion()), state.getLogVersion(), state.getCurrentTxnEndVLSN(),
                state.getKnownMasterTxnEndVLSN(), state.getActiveFeeders(), state.getSystemLoad());
    }

    /** The address of a node as DbPing wants it. */
    private record Node(String name, String host, int port) implements ReplicationNode {
        @Override
        public String getName() {
            return name;
        }

        @Override
        public NodeType getType() {
            return NodeType.ELECTABLE;
        }

        @Override
        public InetSocketAddress getSocketAddress() {
            return new InetSocketAddress(host, port);
        }

        @Override
        public String getHostName() {
            return host;
        }

        @Override
        public int getPort() {
            return port;
        }
    }
}
