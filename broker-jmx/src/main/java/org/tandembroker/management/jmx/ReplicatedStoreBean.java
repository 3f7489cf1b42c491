package org.tandembroker.management.jmx;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenDataException;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import javax.management.openmbean.TabularData;
import javax.management.openmbean.TabularDataSupport;
import javax.management.openmbean.TabularType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.replication.GroupMember;
import org.tandembroker.core.store.replication.MemberState;
import org.tandembroker.core.store.replication.PingAnswer;
import org.tandembroker.core.store.replication.ReplicaLag;
import org.tandembroker.core.store.replication.ReplicationControl;
import org.tandembroker.core.vhost.ManagedVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;
import org.tandembroker.management.ha.PrimaryDesignation;
import org.tandembroker.management.store.DiskFigures;
import org.tandembroker.management.store.LatestFigures;

/**
 * {@link ReplicatedStoreMBean} over the {@link ReplicationControl} a virtual host's replicated store offers. It
 * holds the virtual host, not the store: an operator may passivate and reactivate the host, which opens a new store.
 *
 * <p><b>Threads.</b> RMI's connection threads; blocking calls (group administration, pings) wait at most
 * {@link #ADMIN_TIMEOUT_SECONDS} for the store's own thread.
 */
final class ReplicatedStoreBean implements ReplicatedStoreMBean {
    static final long ADMIN_TIMEOUT_SECONDS = 60;
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedStoreBean.class);

    static final String NODE_NAME = "NodeName";
    static final String NODE_HOST_PORT = "NodeHostPort";
    static final String NODE_TYPE = "NodeType";
    static final String NODE_STATE = "NodeState";
    static final String REPLICATION_LAG = "ReplicationLag";
    static final String REPLICATION_DELAY_MILLIS = "ReplicationDelayMillis";
    private static final CompositeType NODE_ROW;
    private static final TabularType NODE_TABLE;
    private static final String[] PING_ITEMS = {"NodeName", "NodeHostPort", "NodeState", "MasterName", "JEVersion",
            "LogVersion", "TransactionEndVLSN", "MasterTransactionEndVLSN", "ActiveFeeders", "SystemLoad",
            "ManagementAddress"};
    private static final CompositeType PING_ANSWER;

    static {
        try {
            NODE_ROW = new CompositeType("GroupMember", "Replication group member",
                    new String[] {NODE_NAME, NODE_HOST_PORT, NODE_TYPE, NODE_STATE, REPLICATION_LAG,
                            REPLICATION_DELAY_MILLIS},
                    new String[] {"Unique node name", "Node host / port", "ELECTABLE, ARBITER, SECONDARY, MONITOR",
                            "MASTER, REPLICA, ARBITER, UNKNOWN, DETACHED as this node knows it; empty: unknown",
                            "On the master: replication stream entries (VLSNs) the replica has not acknowledged; -1 "
                                    + "unknown",
                            "On the master: how old the last transaction the replica acknowledged was, in ms; -1 "
                                    + "unknown"},
                    new OpenType<?>[] {SimpleType.STRING, SimpleType.STRING, SimpleType.STRING, SimpleType.STRING,
                            SimpleType.LONG, SimpleType.LONG});
            NODE_TABLE = new TabularType("GroupMembers", "Replication group members", NODE_ROW,
                    new String[] {NODE_NAME});
            PING_ANSWER = new CompositeType("NodePing", "What a node answered JE's DbPing", PING_ITEMS,
                    new String[] {"The node's name", "Its replication host / port", "MASTER, REPLICA, UNKNOWN, "
                            + "DETACHED as the node itself says", "The master it knows; empty: none",
                            "Its JE version", "Its JE log format version", "VLSN of its last transaction end",
                            "The master's last transaction end VLSN as it knows it", "Replicas it feeds",
                            "Its system load average",
                            "host:port of its broker's JMX connector as it publishes it; empty: none"},
                    new OpenType<?>[] {SimpleType.STRING, SimpleType.STRING, SimpleType.STRING, SimpleType.STRING,
                            SimpleType.STRING, SimpleType.INTEGER, SimpleType.LONG, SimpleType.LONG,
                            SimpleType.INTEGER, SimpleType.DOUBLE, SimpleType.STRING});
        } catch (OpenDataException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ManagedVirtualHost host;
    private final LatestFigures figures;
    private final DiskSpaceGuard guard;

    ReplicatedStoreBean(ManagedVirtualHost host, LatestFigures figures, DiskSpaceGuard guard) {
        this.host = host;
        this.figures = figures;
        this.guard = guard;
    }

    static DescribedMBean<ReplicatedStoreMBean> described(ReplicatedStoreBean bean) {
        return DescribedMBean.of(bean, ReplicatedStoreMBean.class,
                "The replicated (BDB HA) store of virtual host '" + bean.host.name() + "' (spec 1.6.8)",
                Map.ofEntries(
                        Map.entry("GroupName", "Name identifying the group"),
                        Map.entry("NodeName", "Unique name identifying the node within the group"),
                        Map.entry("NodeHostPort", "Host/port used to replicate data between this node and others in "
                                + "the group"),
                        Map.entry("HelperHostPort", "Host/port used to allow a new node to discover other group "
                                + "members"),
                        Map.entry("NodeState", "Current state of the node: MASTER, REPLICA, UNKNOWN, DETACHED"),
                        Map.entry("ReplicationPolicy", "Node replication durability"),
                        Map.entry("Durability", "Node replication durability (same as ReplicationPolicy)"),
                        Map.entry("DesignatedPrimary", "Designated primary flag. Applicable to the two node case. "
                                + "Setting it true is refused while the other node still answers as MASTER"),
                        Map.entry("CoalescingSync", "Coalescing sync flag"),
                        Map.entry("AllNodesInGroup", "All nodes within the group, attached or not"),
                        Map.entry("MasterName", "The master this node knows; empty when none"),
                        Map.entry("Status", "The store's status line"),
                        Map.entry("DiskSpaceLow", "Whether the store is below the disk watermark"),
                        Map.entry("AvailableLogSize", "Bytes the store may still write before JE's disk limits "
                                + "stop it (-1 unknown)"),
                        Map.entry("ReservedLogSize", "Bytes of cleaned log files kept for replicas (-1 unknown)"),
                        Map.entry("ProtectedLogSize", "Bytes of reserved log files in use (-1 unknown)"),
                        Map.entry("ActiveLogSize", "Bytes of log files with live data (-1 unknown)"),
                        Map.entry("removeNodeFromGroup", "Remove an existing node from the group"),
                        Map.entry("updateAddress", "Update the address of another node. The node must be in a "
                                + "STOPPED state"),
                        Map.entry("designatePrimary", "Designate this node primary; force=true skips the check that "
                                + "the other node is not MASTER (split-brain risk). Returns what the other nodes "
                                + "answered"),
                        Map.entry("transferMaster", "Move the master role to a running replica once it has caught "
                                + "up (waiting up to timeoutSeconds); returns the new master"),
                        Map.entry("pingNode", "JE's DbPing view of a node: state, master, VLSNs"),
                        Map.entry("pingNodeDetails", "JE's DbPing view of a node as data: state, master, VLSNs")),
                Map.of("removeNodeFromGroup", List.of("nodeName"),
                        "updateAddress", List.of("nodeName", "newHostName", "newPort"),
                        "designatePrimary", List.of("force"),
                        "transferMaster", List.of("nodeName", "timeoutSeconds"),
                        "pingNode", List.of("nodeName"),
                        "pingNodeDetails", List.of("nodeName")),
                Set.of("pingNode", "pingNodeDetails"));
    }

    /** The host's open replicated store. */
    private MessageStore openStore() {
        return host.store().filter(s -> s.replication().isPresent())
                .orElseThrow(() -> new IllegalStateException("virtual host '" + host.name() + "' has no open "
                        + "bdb-ha store now (" + host.state() + "); activate it first"));
    }

    private ReplicationControl store() {
        return openStore().replication().orElseThrow();
    }

    @Override
    public String getGroupName() {
        return store().groupName();
    }

    @Override
    public String getNodeName() {
        return store().nodeName();
    }

    @Override
    public String getNodeHostPort() {
        return store().nodeHostPort();
    }

    @Override
    public String getHelperHostPort() {
        return store().helperHostPort();
    }

    @Override
    public String getNodeState() {
        return host.store().flatMap(MessageStore::replication).map(r -> r.nodeState().name()).orElse("DETACHED");
    }

    @Override
    public String getReplicationPolicy() {
        return store().durability();
    }

    @Override
    public String getDurability() {
        return getReplicationPolicy();
    }

    @Override
    public boolean isDesignatedPrimary() {
        return store().isDesignatedPrimary();
    }

    @Override
    public void setDesignatedPrimary(boolean designatedPrimary) {
        designate(designatedPrimary, false);
    }

    @Override
    public String designatePrimary(boolean force) {
        return designate(true, force);
    }

    private String designate(boolean designated, boolean force) {
        ReplicationControl store = store();
        String account = "";
        if (designated && !force) {
            PrimaryDesignation.Check check = PrimaryDesignation.check(store);
            Optional<String> risk = check.splitBrainRisk();
            if (risk.isPresent()) {
                LOG.warn("Node {}: {}", store.nodeName(), risk.get());
                throw new IllegalStateException(risk.get());
            }
            account = "checked the other nodes first: " + check.account();
            if (!check.silent().isEmpty()) {
                LOG.warn("Node {}: designated primary; {}", store.nodeName(), check.account());
            }
        }
        if (designated && force) {
            account = "forced: the other nodes were not asked";
            LOG.warn("Node {}: designated primary by force, without checking that no other node is master",
                    store.nodeName());
        }
        await(store.setDesignatedPrimary(designated), "set designated primary " + designated + " on node "
                + store.nodeName());
        return designated ? "node " + store.nodeName() + " is designated primary; " + account
                : "node " + store.nodeName() + " is not designated primary";
    }

    @Override
    public boolean isCoalescingSync() {
        return store().coalescingSync();
    }

    @Override
    public TabularData getAllNodesInGroup() {
        ReplicationControl store = store();
        SortedMap<String, ReplicaLag> lags = store.replicaLags();
        TabularDataSupport table = new TabularDataSupport(NODE_TABLE);
        for (GroupMember member : store.groupMembers()) {
            ReplicaLag lag = lags.get(member.name());
            try {
                table.put(new CompositeDataSupport(NODE_ROW,
                        new String[] {NODE_NAME, NODE_HOST_PORT, NODE_TYPE, NODE_STATE, REPLICATION_LAG,
                                REPLICATION_DELAY_MILLIS},
                        new Object[] {member.name(), member.hostPort(), member.type(),
                                member.state().map(MemberState::name).orElse(""),
                                lag == null ? -1L : lag.vlsnLag(), lag == null ? -1L : lag.delayMillis()}));
            } catch (OpenDataException e) {
                throw new IllegalStateException("cannot describe node " + member.name() + ": " + e.getMessage(), e);
            }
        }
        return table;
    }

    @Override
    public String getMasterName() {
        return store().masterName().orElse("");
    }

    @Override
    public String getStatus() {
        return openStore().status().description();
    }

    @Override
    public boolean isDiskSpaceLow() {
        return guard.isLow(host.name());
    }

    @Override
    public long getAvailableLogSize() {
        return disk().map(DiskFigures::available).orElse(-1L);
    }

    @Override
    public long getReservedLogSize() {
        return disk().map(DiskFigures::reserved).orElse(-1L);
    }

    @Override
    public long getProtectedLogSize() {
        return disk().map(DiskFigures::protectedBytes).orElse(-1L);
    }

    @Override
    public long getActiveLogSize() {
        return disk().map(DiskFigures::active).orElse(-1L);
    }

    private Optional<DiskFigures> disk() {
        return figures.of(host.name()).disk();
    }

    @Override
    public void removeNodeFromGroup(String nodeName) {
        ReplicationControl store = store();
        GroupMember member = member(store, nodeName);
        if (nodeName.equals(store.nodeName())) {
            throw new IllegalStateException("node " + nodeName + " is this node; remove it from another node of "
                    + "group " + store.groupName() + " after stopping this broker");
        }
        requireStopped(store, member, "removed from the group");
        await(store.removeNodeFromGroup(nodeName), "remove node " + nodeName + " from group " + store.groupName());
        LOG.info("Node {}: node {} removed from group {} over JMX", store.nodeName(), nodeName, store.groupName());
    }

    @Override
    public String transferMaster(String nodeName, int timeoutSeconds) {
        ReplicationControl store = store();
        GroupMember member = member(store, nodeName);
        if (timeoutSeconds < 1 || timeoutSeconds > 3600) {
            throw new IllegalArgumentException("timeoutSeconds " + timeoutSeconds + " is outside 1-3600");
        }
        if (!member.type().equals("ELECTABLE")) {
            throw new IllegalArgumentException("node " + nodeName + " is " + member.type() + ": only an electable "
                    + "node can be master");
        }
        if (store.masterName().filter(nodeName::equals).isPresent()) {
            throw new IllegalStateException("node " + nodeName + " is the master already");
        }
        String what = "transfer the master of group " + store.groupName() + " to node " + nodeName;
        try {
            String master = store.transferMaster(nodeName, timeoutSeconds)
                    .get(timeoutSeconds + ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            LOG.info("Node {}: master of group {} transferred to {} over JMX", store.nodeName(), store.groupName(),
                    master);
            return master;
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot " + what + ": " + BrokerException.from(e.getCause()).getMessage());
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot " + what + ": no answer within " + timeoutSeconds + " + "
                    + ADMIN_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("cannot " + what + ": interrupted");
        }
    }

    @Override
    public void updateAddress(String nodeName, String newHostName, int newPort) {
        ReplicationControl store = store();
        if (newHostName == null || newHostName.isBlank()) {
            throw new IllegalArgumentException("newHostName is empty; give the host name or address the node will "
                    + "replicate on");
        }
        if (newPort < 1 || newPort > 65535) {
            throw new IllegalArgumentException("newPort " + newPort + " is not a port (1-65535)");
        }
        GroupMember member = member(store, nodeName);
        if (nodeName.equals(store.nodeName())) {
            throw new IllegalStateException("node " + nodeName + " is this node and it is running: the node must be "
                    + "in a STOPPED state to change its address; stop this broker and update the address from "
                    + "another node of group " + store.groupName() + ", then change nodeHostPort in this node's "
                    + "virtual host file");
        }
        requireStopped(store, member, "given a new address");
        await(store.updateAddress(nodeName, newHostName.trim(), newPort), "update the address of node " + nodeName);
        LOG.info("Node {}: node {} of group {} now at {}:{} (updated over JMX)", store.nodeName(), nodeName,
                store.groupName(), newHostName.trim(), newPort);
    }

    /** Refuses with a clear line when {@code member} still runs (it answers a ping, or this node sees it). */
    private static void requireStopped(ReplicationControl store, GroupMember member, String change) {
        Optional<MemberState> running = member.state().filter(state -> state != MemberState.UNKNOWN
                && state != MemberState.DETACHED);
        if (running.isEmpty()) {
            try {
                running = Optional.of(store.ping(member, PrimaryDesignation.PING_TIMEOUT_MILLIS).state());
            } catch (IOException | RuntimeException e) {
                return; // no answer: stopped (or unreachable; JE checks again)
            }
        }
        throw new IllegalStateException("node " + member.name() + " is running (it is " + running.get() + " at "
                + member.hostPort() + "): the node must be in a STOPPED state to be " + change + "; stop its broker"
                + " first");
    }

    @Override
    public String pingNode(String nodeName) {
        ReplicationControl store = store();
        GroupMember member = member(store, nodeName);
        try {
            return describe(store.ping(member, PrimaryDesignation.PING_TIMEOUT_MILLIS), store.groupName());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("node " + nodeName + " at " + member.hostPort() + " does not answer: "
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse(e.getClass().getSimpleName()));
        }
    }

    @Override
    public CompositeData pingNodeDetails(String nodeName) {
        ReplicationControl store = store();
        GroupMember member = member(store, nodeName);
        PingAnswer answer;
        try {
            answer = store.ping(member, PrimaryDesignation.PING_TIMEOUT_MILLIS);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("node " + nodeName + " at " + member.hostPort() + " does not answer: "
                    + String.valueOf(e.getMessage()).lines().findFirst().orElse(e.getClass().getSimpleName()));
        }
        try {
            return new CompositeDataSupport(PING_ANSWER, PING_ITEMS, new Object[] {answer.nodeName(),
                    member.hostPort(), answer.state().name(), answer.masterName().orElse(""), answer.storeVersion(),
                    answer.logVersion(), answer.transactionEndVlsn(), answer.masterTransactionEndVlsn(),
                    answer.activeFeeders(), answer.systemLoad(), answer.managementAddress().orElse("")});
        } catch (OpenDataException e) {
            throw new IllegalStateException("cannot describe the answer of node " + nodeName + ": " + e.getMessage(), e);
        }
    }

    /** One line, in the order of JE's DbPing output. */
    static String describe(PingAnswer answer, String groupName) {
        return "node " + answer.nodeName() + " of group " + groupName + ": state " + answer.state() + ", master "
                + answer.masterName().orElse("(none known)") + ", JE " + answer.storeVersion() + ", log version "
                + answer.logVersion() + ", transaction end VLSN " + answer.transactionEndVlsn()
                + ", master transaction end VLSN " + answer.masterTransactionEndVlsn() + ", active feeders "
                + answer.activeFeeders() + ", system load "
                + String.format(java.util.Locale.ROOT, "%.2f", answer.systemLoad());
    }

    private static GroupMember member(ReplicationControl store, String nodeName) {
        if (nodeName == null || nodeName.isBlank()) {
            throw new IllegalArgumentException("nodeName is empty");
        }
        List<GroupMember> members = store.groupMembers();
        return members.stream().filter(m -> m.name().equals(nodeName)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node '" + nodeName + "' in group "
                        + store.groupName() + "; its nodes: " + members.stream().map(GroupMember::name)
                        .collect(Collectors.joining(", "))));
    }

    /** Waits for a store operation; its failure becomes an exception every JMX client can read. */
    private static <T> T await(CompletableFuture<T> operation, String what) {
        try {
            return operation.get(ADMIN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            BrokerException failure = BrokerException.from(e.getCause());
            throw new IllegalStateException("cannot " + what + ": " + failure.getMessage());
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot " + what + ": no answer within " + ADMIN_TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("cannot " + what + ": interrupted");
        }
    }
}
