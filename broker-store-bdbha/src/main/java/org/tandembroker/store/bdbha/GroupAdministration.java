package org.tandembroker.store.bdbha;

import org.tandembroker.core.store.replication.ReplicaLag;
import com.sleepycat.je.StatsConfig;
import com.sleepycat.je.rep.NodeType;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import com.sleepycat.je.rep.ReplicatedEnvironmentStats;
import com.sleepycat.je.rep.ReplicationGroup;
import com.sleepycat.je.rep.ReplicationMutableConfig;
import com.sleepycat.je.rep.ReplicationNode;
import com.sleepycat.je.rep.util.ReplicationGroupAdmin;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

/**
 * The replication group as operators see and change it (spec 1.6.8): its members and their lag, this node's
 * designated-primary flag and priority, removing a member, moving one to a new address, transferring the master
 * role. Changes run on the {@code ha-<vhost>} thread ({@link NodeRoleMachine#call}) against the live environment,
 * whose values are the source of truth; the readings run on the caller's thread and are empty while the
 * environment is being replaced. The designation itself is a role event ({@link NodeRoleMachine#designate}),
 * which applies it here.
 */
final class GroupAdministration {
    private static final Logger LOG = LoggerFactory.getLogger(GroupAdministration.class);

    private final ReplicatedStoreSettings settings;
    private final ReplicatedEnvironmentFacade facade;
    private final NodeRoleMachine<?> machine;

    GroupAdministration(ReplicatedStoreSettings settings, ReplicatedEnvironmentFacade facade,
                        NodeRoleMachine<?> machine) {
        this.settings = settings;
        this.facade = facade;
        this.machine = machine;
    }

    // ---- changes (on the role thread) ----

    /** Applies the designated-primary flag to the open environment; nothing when none is open. Role thread. */
    void applyDesignation(boolean designated) {
        assert machine.owningThread().isCurrent() : machine.owningThread().violation();
        Optional<ReplicatedEnvironment> env = validEnvironment();
        if (env.isPresent()) {
            env.get().setRepMutableConfig(env.get().getRepMutableConfig().setDesignatedPrimary(designated));
        }
    }

    /** Sets {@code je.rep.node.priority} at run time (0: never master). */
    CompletableFuture<Void> setNodePriority(int priority) {
        if (priority < 0) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.INVALID_FIELD,
                    "a node priority is 0 (never master) or more: " + priority));
        }
        return machine.call(() -> {
            ReplicatedEnvironment env = requireEnvironment();
            env.setRepMutableConfig(env.getRepMutableConfig().setNodePriority(priority));
            LOG.info("Node {}: election priority set to {}", settings.nodeName(), priority);
            return null;
        });
    }

    /** Removes a node (not alive, not the master) from the group's membership. */
    CompletableFuture<Void> removeNodeFromGroup(String nodeName) {
        return machine.call(() -> {
            groupAdmin().removeMember(nodeName);
            LOG.info("Node {}: removed node {} from group {}", settings.nodeName(), nodeName, settings.groupName());
            return null;
        });
    }

    /** Changes the address of a node that is not running (spec 1.6.8). */
    CompletableFuture<Void> updateAddress(String nodeName, String host, int port) {
        return machine.call(() -> {
            groupAdmin().updateAddress(nodeName, host, port);
            LOG.info("Node {}: node {} of group {} now at {}:{}", settings.nodeName(), nodeName,
                    settings.groupName(), host, port);
            return null;
        });
    }

    /** Moves the master role to {@code nodeName} once it has caught up; completes with the new master's name. */
    CompletableFuture<String> transferMaster(String nodeName, int timeoutSeconds) {
        return machine.call(() -> groupAdmin().transferMaster(Set.of(nodeName), timeoutSeconds, TimeUnit.SECONDS,
                false));
    }

    private ReplicationGroupAdmin groupAdmin() {
        Set<InetSocketAddress> helpers = new HashSet<>();
        validEnvironment().ifPresent(env ->
                env.getGroup().getElectableNodes().forEach(node -> helpers.add(node.getSocketAddress())));
        for (String helper : settings.helperHostPorts()) {
            int colon = helper.lastIndexOf(':');
            helpers.add(new InetSocketAddress(helper.substring(0, colon),
                    Integer.parseInt(helper.substring(colon + 1))));
        }
        return new ReplicationGroupAdmin(settings.groupName(), helpers, facade.networkConfig());
    }

    private ReplicatedEnvironment requireEnvironment() {
        return validEnvironment().orElseThrow(() -> new BrokerException(ErrorKind.NOT_ACTIVE, "node "
                + settings.nodeName() + " has no open replicated environment (" + machine.role().reported() + ")"));
    }

    private Optional<ReplicatedEnvironment> validEnvironment() {
        return facade.environment().filter(ReplicatedEnvironment::isValid);
    }

    // ---- readings (any thread) ----

    /** The live designated-primary flag as JE has it; the last value set while the environment is replaced. */
    boolean isDesignatedPrimary() {
        try {
            Optional<ReplicatedEnvironment> env = validEnvironment();
            if (env.isPresent()) {
                return Boolean.parseBoolean(env.get().getRepMutableConfig()
                        .getConfigParam(ReplicationMutableConfig.DESIGNATED_PRIMARY));
            }
        } catch (RuntimeException e) {
            // being replaced: fall back to the last value set
        }
        return machine.designatedPrimary();
    }

    /** The group's electable nodes as the open environment knows them; empty while it is unreadable. */
    OptionalInt electableNodes() {
        try {
            Optional<ReplicatedEnvironment> env = validEnvironment();
            return env.isEmpty() ? OptionalInt.empty() : OptionalInt.of(env.get().getGroup().getElectableNodes().size());
        } catch (RuntimeException e) {
            return OptionalInt.empty(); // the group is unreadable while the environment changes
        }
    }

    /** The group's members as this node knows them, sorted by name; empty while the environment is not open. */
    List<GroupMember> members() {
        Optional<ReplicatedEnvironment> env = facade.environment();
        if (env.isEmpty()) {
            return List.of();
        }
        try {
            ReplicationGroup group = env.get().getGroup();
            NodeRole ownRole = machine.role();
            String currentMaster = machine.masterName().orElse(null);
            Set<String> connectedReplicas = ownRole == NodeRole.MASTER ? replicaLags().keySet() : Set.of();
            List<GroupMember> result = new ArrayList<>();
            for (ReplicationNode node : group.getNodes()) {
                Optional<String> state;
                if (node.getName().equals(settings.nodeName())) {
                    state = Optional.of(ownRole.reported());
                } else if (node.getName().equals(currentMaster)) {
                    state = Optional.of(NodeRole.MASTER.name());
                } else if (connectedReplicas.contains(node.getName())) {
                    state = Optional.of(node.getType() == NodeType.ARBITER ? "ARBITER" : NodeRole.REPLICA.name());
                } else {
                    state = Optional.empty();
                }
                result.add(new GroupMember(node.getName(), node.getHostName() + ":" + node.getPort(),
                        node.getType().name(), state));
            }
            result.sort(Comparator.comparing(GroupMember::name));
            return List.copyOf(result);
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** On the master: each connected replica's lag; empty elsewhere. */
    SortedMap<String, ReplicaLag> replicaLags() {
        Optional<ReplicatedEnvironment> env = facade.environment();
        SortedMap<String, ReplicaLag> result = new TreeMap<>();
        if (env.isEmpty() || machine.role() != NodeRole.MASTER) {
            return result;
        }
        try {
            ReplicatedEnvironmentStats stats = env.get().getRepStats(new StatsConfig());
            if (stats == null) {
                return result;
            }
            Map<String, Long> vlsnLags = stats.getReplicaVLSNLagMap();
            Map<String, Long> delays = stats.getReplicaDelayMap();
            Set<String> names = new HashSet<>();
            if (vlsnLags != null) {
                names.addAll(vlsnLags.keySet());
            }
            if (delays != null) {
                names.addAll(delays.keySet());
            }
            for (String name : names) {
                result.put(name, new ReplicaLag(name,
                        vlsnLags == null ? -1 : vlsnLags.getOrDefault(name, -1L),
                        delays == null ? -1 : delays.getOrDefault(name, -1L)));
            }
        } catch (RuntimeException e) {
            result.clear();
        }
        return result;
    }
}
