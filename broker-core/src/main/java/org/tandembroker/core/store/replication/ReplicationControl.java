package org.tandembroker.core.store.replication;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;

/**
 * The operator's handle on a replicated store's group (spec 1.6.8): what this node knows of the group, and the
 * group administration. A replicated store offers it through
 * {@link org.tandembroker.core.store.MessageStore#replication()}; nothing here names the store's engine.
 *
 * <p><b>Threads.</b> Any thread (management calls it from its connection threads). Reads return what this node knows
 * now and never block; they return empty results while the store is not open. Changes run on the store's own thread
 * and complete their future once applied (or failed with a {@link org.tandembroker.core.BrokerException} saying
 * why). {@link #ping} blocks its caller for at most its timeout.
 */
public interface ReplicationControl {

    /** The name identifying the group. */
    String groupName();

    /** This node's unique name within the group. */
    String nodeName();

    /** Where this node replicates ({@code host:port}). */
    String nodeHostPort();

    /** Where a new node discovers the group's members ({@code host:port}, comma-separated). */
    String helperHostPort();

    /** This node's state; {@link MemberState#UNKNOWN} while it opens or restarts, DETACHED once closed. */
    MemberState nodeState();

    /** The replication durability, e.g. {@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY}. */
    String durability();

    /** Whether the store coalesces the fsyncs of concurrent commits. */
    boolean coalescingSync();

    /** The master this node knows, when one is known. */
    Optional<String> masterName();

    /** Every member of the group, attached or not, by name. */
    List<GroupMember> groupMembers();

    /** On the master: how far each connected replica is behind, by replica name; empty elsewhere. */
    SortedMap<String, ReplicaLag> replicaLags();

    /** The live designated-primary flag (two-node groups): configured, then changed at run time. */
    boolean isDesignatedPrimary();

    /** Sets the designated-primary flag. Checks nothing: whether it is safe is the caller's decision. */
    CompletableFuture<Void> setDesignatedPrimary(boolean designatedPrimary);

    /** Sets this node's election priority (0: never master). */
    CompletableFuture<Void> setNodePriority(int priority);

    /** Removes a stopped node from the group. */
    CompletableFuture<Void> removeNodeFromGroup(String nodeName);

    /** Changes the replication address of a stopped node. */
    CompletableFuture<Void> updateAddress(String nodeName, String host, int port);

    /** Moves the master role to {@code nodeName}; completes with the new master's name. */
    CompletableFuture<String> transferMaster(String nodeName, int timeoutSeconds);

    /**
     * Asks {@code member} for its state over the group's own service port: what the node itself says, not what
     * this node believes. Blocks for at most {@code timeoutMillis} per attempt to connect and to read.
     *
     * @throws IOException when the node does not answer in time (down, or unreachable from here)
     */
    PingAnswer ping(GroupMember member, int timeoutMillis) throws IOException;
}
