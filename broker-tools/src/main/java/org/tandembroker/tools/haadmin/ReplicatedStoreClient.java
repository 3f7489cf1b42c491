package org.tandembroker.tools.haadmin;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.tandembroker.tools.JmxSession;
import org.tandembroker.tools.ToolFailure;

/**
 * The {@code org.apache.qpid:type=BDBHAMessageStore,name=<vhost>} MBean of one node, over a {@link JmxSession}:
 * its attributes and operations as typed calls. The first call checks that the MBean is there and otherwise fails
 * with a usage error that lists the broker's virtual hosts and their stores.
 *
 * <p><b>Threads.</b> One caller at a time (the command's worker thread).
 */
final class ReplicatedStoreClient {
    static final String DOMAIN = "org.apache.qpid";
    static final String TYPE = "BDBHAMessageStore";

    private final JmxSession session;
    private final String virtualHost;
    private final ObjectName name;
    private boolean checked;

    ReplicatedStoreClient(JmxSession session, String virtualHost) {
        this.session = session;
        this.virtualHost = virtualHost;
        this.name = objectName(virtualHost);
    }

    /** One row of {@code AllNodesInGroup}; lag and delay are null when unknown (only the master knows them). */
    record Member(String name, String hostPort, String type, String state, Long lagVlsns, Long delayMillis) {
    }

    String virtualHost() {
        return virtualHost;
    }

    String address() {
        return session.address();
    }

    String groupName() {
        return (String) attribute("GroupName");
    }

    String nodeName() {
        return (String) attribute("NodeName");
    }

    String nodeState() {
        return (String) attribute("NodeState");
    }

    /** The master this node knows; empty when none. */
    String masterName() {
        return (String) attribute("MasterName");
    }

    boolean designatedPrimary() {
        return (Boolean) attribute("DesignatedPrimary");
    }

    /** {@code AllNodesInGroup}, sorted by name. */
    List<Member> members() {
        TabularData table = (TabularData) attribute("AllNodesInGroup");
        List<Member> members = new ArrayList<>();
        for (Object row : table.values()) {
            CompositeData data = (CompositeData) row;
            members.add(new Member((String) data.get("NodeName"), (String) data.get("NodeHostPort"),
                    (String) data.get("NodeType"), (String) data.get("NodeState"),
                    known((Long) data.get("ReplicationLag")), known((Long) data.get("ReplicationDelayMillis"))));
        }
        members.sort(Comparator.comparing(Member::name));
        return members;
    }

    /** Sets {@code DesignatedPrimary}: the broker refuses {@code true} while another node answers as MASTER. */
    void setDesignatedPrimary(boolean designated) {
        requireStore();
        session.setAttribute(name, "DesignatedPrimary", designated);
    }

    /**
     * {@code designatePrimary(force)}: the broker refuses (without {@code force}) while another node answers as
     * MASTER; returns its account of what the other nodes answered.
     */
    String designatePrimary(boolean force) {
        return String.valueOf(invoke("designatePrimary", new Object[] {force}, boolean.class.getName()));
    }

    void removeNodeFromGroup(String node) {
        invoke("removeNodeFromGroup", new Object[] {node}, String.class.getName());
    }

    void updateAddress(String node, String host, int port) {
        invoke("updateAddress", new Object[] {node, host, port}, String.class.getName(), String.class.getName(),
                int.class.getName());
    }

    /** {@code transferMaster(node, timeoutSeconds)}: returns the new master's name. */
    String transferMaster(String node, int timeoutSeconds) {
        return (String) invoke("transferMaster", new Object[] {node, timeoutSeconds}, String.class.getName(),
                int.class.getName());
    }

    /** {@code pingNodeDetails(node)}: what the node answers JE's DbPing, asked from this node. */
    CompositeData ping(String node) {
        return (CompositeData) invoke("pingNodeDetails", new Object[] {node}, String.class.getName());
    }

    private Object attribute(String attribute) {
        requireStore();
        return session.getAttribute(name, attribute);
    }

    private Object invoke(String operation, Object[] parameters, String... signature) {
        requireStore();
        return session.invoke(name, operation, parameters, signature);
    }

    private void requireStore() {
        if (checked) {
            return;
        }
        if (!session.isRegistered(name)) {
            throw ToolFailure.usage("virtual host '" + virtualHost + "' at " + session.address() + " has no "
                    + TYPE + " MBean (" + name + "): it is not a bdb-ha virtual host, or there is none of that name. "
                    + "The broker's virtual hosts: " + virtualHosts() + " (choose with --vhost)");
        }
        checked = true;
    }

    private String virtualHosts() {
        List<String> hosts = new ArrayList<>();
        try {
            for (ObjectName host : session.queryNames(new ObjectName("org.tandembroker:type=VirtualHost,*"))) {
                hosts.add(host.getKeyProperty("name") + " (" + session.getAttribute(host, "StoreType") + ")");
            }
        } catch (MalformedObjectNameException | ToolFailure e) {
            return "(cannot list them: " + e.getMessage() + ")";
        }
        return hosts.isEmpty() ? "none" : hosts.stream().sorted().collect(Collectors.joining(", "));
    }

    private static Long known(Long value) {
        return value == null || value < 0 ? null : value;
    }

    static ObjectName objectName(String virtualHost) {
        String value = virtualHost.chars().anyMatch(c -> ",=:\"*?\n\\".indexOf(c) >= 0)
                ? ObjectName.quote(virtualHost) : virtualHost;
        try {
            return new ObjectName(DOMAIN + ":type=" + TYPE + ",name=" + value);
        } catch (MalformedObjectNameException e) {
            throw ToolFailure.usage("--vhost '" + virtualHost + "' is not a usable name: " + e.getMessage());
        }
    }
}
