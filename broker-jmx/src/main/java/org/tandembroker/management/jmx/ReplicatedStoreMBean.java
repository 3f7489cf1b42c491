package org.tandembroker.management.jmx;

import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * The JMX face of a virtual host's replicated store, registered as
 * {@code org.apache.qpid:type=BDBHAMessageStore,name=<virtual host>}: spec 1.6.8's attributes and operations, with
 * their names, plus a few of Tandem's. Failures reach the client as standard exceptions
 * ({@link IllegalStateException}, {@link IllegalArgumentException}) with one line saying what to do.
 */
public interface ReplicatedStoreMBean {

    /** Name identifying the group. */
    String getGroupName();

    /** Unique name identifying the node within the group. */
    String getNodeName();

    /** Host/port used to replicate data between this node and others in the group. */
    String getNodeHostPort();

    /** Host/port used to allow a new node to discover other group members. */
    String getHelperHostPort();

    /** Current state of the node: MASTER, REPLICA, UNKNOWN or DETACHED. */
    String getNodeState();

    /** Node replication durability: the triplet, e.g. {@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY}. */
    String getReplicationPolicy();

    /** The same as {@link #getReplicationPolicy()} (the name the spec's monitoring section and Qpid used). */
    String getDurability();

    /** Designated primary flag (two-node groups). */
    boolean isDesignatedPrimary();

    /**
     * Sets the designated primary flag. Setting it true is refused while the other node of the pair still answers
     * as MASTER (a split brain); {@link #designatePrimary(boolean)} with {@code force} overrides that check.
     */
    void setDesignatedPrimary(boolean designatedPrimary);

    /** Coalescing sync flag. */
    boolean isCoalescingSync();

    /**
     * Every node of the group, attached or not: NodeName, NodeHostPort (the spec's columns, index NodeName),
     * NodeType, NodeState (as this node knows it; empty when unknown) and, on the master, each replica's
     * ReplicationLag (VLSNs) and ReplicationDelayMillis (-1 when unknown).
     */
    TabularData getAllNodesInGroup();

    /** The master this node knows, or empty. */
    String getMasterName();

    /** The store's status line (role, writable, replicas, durability). */
    String getStatus();

    /** Whether this node's store is below the disk watermark (on a replica: at risk of falling behind). */
    boolean isDiskSpaceLow();

    /** Bytes the store may still write before JE's disk limits stop it (-1 unknown). */
    long getAvailableLogSize();

    /** Bytes of cleaned log files kept for replicas that may need them (-1 unknown). */
    long getReservedLogSize();

    /** Bytes of reserved log files in use by a replica or a backup (-1 unknown). */
    long getProtectedLogSize();

    /** Bytes of log files holding live data (-1 unknown). */
    long getActiveLogSize();

    /** Remove an existing node from the group (a stopped node; not the master). */
    void removeNodeFromGroup(String nodeName);

    /** Update the address of another node. The node must be in a STOPPED state. */
    void updateAddress(String nodeName, String newHostName, int newPort);

    /**
     * Designates this node primary. With {@code force} false this is the {@code DesignatedPrimary} attribute's
     * checked form; with {@code force} true the check that the other node is not MASTER is skipped (the operator
     * takes responsibility for a split brain). Each other node gets a few seconds to answer (a stopped or hung
     * process does not: it is named in the result, and in the refusal when another node answered as MASTER).
     *
     * @return one line: the designation and what the other nodes answered (or that they were not asked)
     */
    String designatePrimary(boolean force);

    /**
     * Moves the master role to {@code nodeName}, a running replica (asked of any node of the group): JE waits up to
     * {@code timeoutSeconds} (1 to 3600) for it to catch up, makes it master and the former master its replica, so
     * the group keeps a master throughout (a rolling restart, a certificate rotation). Returns the new master.
     */
    String transferMaster(String nodeName, int timeoutSeconds);

    /** JE's DbPing view of a node of the group (state, master, VLSNs), asked over the network. Read only. */
    String pingNode(String nodeName);

    /**
     * {@link #pingNode(String)} as data (what {@code ha-admin ping} shows): NodeName, NodeHostPort, NodeState,
     * MasterName (empty when none known), JEVersion, LogVersion, TransactionEndVLSN, MasterTransactionEndVLSN,
     * ActiveFeeders, SystemLoad. Read only.
     */
    CompositeData pingNodeDetails(String nodeName);
}
