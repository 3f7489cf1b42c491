package org.tandembroker.perftests;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;

/**
 * How far the nodes of a group have got in the replication stream, read over one JMX connection to one node's
 * store MBean ({@code org.apache.qpid:type=BDBHAMessageStore,name=default}), using only what the broker already
 * publishes: {@code pingNodeDetails(node)} (JE's DbPing of any node: its state and the VLSN of its last
 * transaction) and, on the master, {@code AllNodesInGroup}'s {@code ReplicationLag} column (the figure the
 * {@code tandem.ha.replica.lag.vlsn} gauge publishes).
 *
 * <p>Threads: used by one thread at a time; the connection is its own.
 */
public final class CatchUpProbe implements AutoCloseable {
    private final JMXConnector connector;
    private final MBeanServerConnection mbeans;
    private final ObjectName store = HaCluster.storeMBeanName();

    /** What a node answers DbPing: its state and the VLSN of its last transaction, and of its master's. */
    public record Position(String node, String state, long txnEndVlsn, long masterTxnEndVlsn, int activeFeeders) {
        public boolean isReplica() {
            return "REPLICA".equals(state);
        }
    }

    private CatchUpProbe(JMXConnector connector) throws IOException {
        this.connector = connector;
        this.mbeans = connector.getMBeanServerConnection();
    }

    /** A probe through node {@code index}'s JMX. */
    public static CatchUpProbe open(HaCluster cluster, int index) throws IOException {
        JMXConnector connector = cluster.openJmx(index);
        try {
            return new CatchUpProbe(connector);
        } catch (IOException | RuntimeException e) {
            connector.close();
            throw e;
        }
    }

    /**
     * Waits until node 1 is MASTER and every other node REPLICA (as node 1 sees them through DbPing), showing
     * the states on {@code progress}; returns a probe through node 1.
     */
    public static CatchUpProbe awaitRoles(HaCluster cluster, Duration limit, Progress progress) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        CatchUpProbe probe = null;
        String last = "no JMX answer yet";
        try {
            while (true) {
                progress.update("waiting for the group: " + last);
                try {
                    if (probe == null) {
                        probe = open(cluster, 0);
                    }
                    List<String> states = new ArrayList<>();
                    boolean settled = true;
                    for (int i = 0; i < cluster.size(); i++) {
                        String state = probe.ping(cluster.nodeName(i)).state();
                        states.add(cluster.nodeName(i) + "=" + state);
                        settled &= state.equals(i == 0 ? "MASTER" : "REPLICA");
                    }
                    last = String.join(", ", states);
                    if (settled) {
                        CatchUpProbe settledProbe = probe;
                        probe = null;
                        return settledProbe;
                    }
                } catch (Exception e) {
                    last = e.getClass().getSimpleName() + ": " + e.getMessage();
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the group did not settle within " + limit + ": " + last);
                }
                Thread.sleep(100);
            }
        } finally {
            if (probe != null) {
                probe.close();
            }
        }
    }

    /** DbPing of {@code node}, asked by this probe's node; an exception when the node does not answer. */
    public Position ping(String node) throws Exception {
        CompositeData answer = (CompositeData) mbeans.invoke(store, "pingNodeDetails", new Object[] {node},
                new String[] {String.class.getName()});
        return new Position(node, (String) answer.get("NodeState"), (Long) answer.get("TransactionEndVLSN"),
                (Long) answer.get("MasterTransactionEndVLSN"), ((Number) answer.get("ActiveFeeders")).intValue());
    }

    /**
     * On the master: the VLSNs {@code replica} has not acknowledged, as the master reports them; empty when the
     * master knows no figure for it (the replica is not connected, or this node is not the master).
     */
    public OptionalLong replicationLag(String replica) throws Exception {
        TabularData nodes = (TabularData) mbeans.getAttribute(store, "AllNodesInGroup");
        for (Object row : nodes.values()) {
            CompositeData member = (CompositeData) row;
            if (replica.equals(member.get("NodeName"))) {
                long lag = (Long) member.get("ReplicationLag");
                return lag < 0 ? OptionalLong.empty() : OptionalLong.of(lag);
            }
        }
        return OptionalLong.empty();
    }

    /** This node's {@code NodeState}: MASTER, REPLICA, UNKNOWN or DETACHED. */
    public String nodeState() throws Exception {
        return String.valueOf(mbeans.getAttribute(store, "NodeState"));
    }

    /** Sets {@code DesignatedPrimary} on this probe's node. */
    public void designatePrimary(boolean designated) throws Exception {
        mbeans.setAttribute(store, new Attribute("DesignatedPrimary", designated));
    }

    @Override
    public void close() throws IOException {
        connector.close();
    }
}
