package org.tandembroker.store.bdbha;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import org.tandembroker.core.store.replication.GroupMember;
import org.tandembroker.core.store.replication.MemberState;
import org.tandembroker.core.store.replication.PingAnswer;
import org.tandembroker.core.store.replication.ReplicaLag;
import org.tandembroker.core.store.replication.ReplicationControl;

/**
 * {@link ReplicationControl} of a {@link ReplicatedMessageStore}: its group administration and what it knows of its
 * group, with this module's records and state names turned into the core's. Holds no state of its own; the store's
 * threads are the store's business (see {@link ReplicatedEnvironmentFacade}).
 */
final class ReplicatedStoreControl implements ReplicationControl {
    private final ReplicatedMessageStore store;

    ReplicatedStoreControl(ReplicatedMessageStore store) {
        this.store = store;
    }

    @Override
    public String groupName() {
        return store.groupName();
    }

    @Override
    public String nodeName() {
        return store.nodeName();
    }

    @Override
    public String nodeHostPort() {
        return store.nodeHostPort();
    }

    @Override
    public String helperHostPort() {
        return store.helperHostPort();
    }

    @Override
    public MemberState nodeState() {
        return nodeState(store.nodeState());
    }

    /** JE's four states; the facade's transient ones (opening, restarting) are UNKNOWN, a closed node DETACHED. */
    static MemberState nodeState(String facadeState) {
        return switch (facadeState) {
            case "MASTER" -> MemberState.MASTER;
            case "REPLICA" -> MemberState.REPLICA;
            case "DETACHED", "CLOSED" -> MemberState.DETACHED;
            default -> MemberState.UNKNOWN;
        };
    }

    /** A member's state as the facade reports it: an arbiter's, or a node's state as {@link #nodeState(String)}. */
    static MemberState memberState(String facadeState) {
        return facadeState.equals("ARBITER") ? MemberState.ARBITER : nodeState(facadeState);
    }

    @Override
    public String durability() {
        return store.durability();
    }

    @Override
    public boolean coalescingSync() {
        return store.coalescingSync();
    }

    @Override
    public Optional<String> masterName() {
        return store.masterName();
    }

    @Override
    public List<GroupMember> groupMembers() {
        return store.groupMembers().stream()
                .map(m -> new GroupMember(m.name(), m.hostPort(), m.type(),
                        m.state().map(ReplicatedStoreControl::memberState)))
                .toList();
    }

    @Override
    public SortedMap<String, ReplicaLag> replicaLags() {
        return store.replicaLags();
    }

    @Override
    public boolean isDesignatedPrimary() {
        return store.isDesignatedPrimary();
    }

    @Override
    public CompletableFuture<Void> setDesignatedPrimary(boolean designatedPrimary) {
        return store.setDesignatedPrimary(designatedPrimary);
    }

    @Override
    public CompletableFuture<Void> setNodePriority(int priority) {
        return store.setNodePriority(priority);
    }

    @Override
    public CompletableFuture<Void> removeNodeFromGroup(String nodeName) {
        return store.removeNodeFromGroup(nodeName);
    }

    @Override
    public CompletableFuture<Void> updateAddress(String nodeName, String host, int port) {
        return store.updateAddress(nodeName, host, port);
    }

    @Override
    public CompletableFuture<String> transferMaster(String nodeName, int timeoutSeconds) {
        return store.transferMaster(nodeName, timeoutSeconds);
    }

    @Override
    public PingAnswer ping(GroupMember member, int timeoutMillis) throws IOException {
        return NodePing.ping(member, store.groupName(), timeoutMillis, store.networkConfig());
    }
}
