package org.tandembroker.management.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.replication.ReplicaLag;
import org.tandembroker.core.store.replication.ReplicationControl;
import org.tandembroker.core.vhost.ManagedVirtualHost;
import org.tandembroker.core.vhost.VirtualHostStanding;

/**
 * What the health endpoint says about this node: whether it serves clients (every virtual host standalone or
 * master), whether it is ready (every virtual host serving or a replica: the {@code BRK-1004} sense), and per
 * virtual host its standing, the store's role, the group, the master and, on a master, each replica's lag.
 *
 * <p><b>Threads.</b> Any thread; reads only what the hosts and stores publish for any thread (never blocks on a
 * store or on the network).
 */
final class HealthReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<ManagedVirtualHost> hosts;
    private final BooleanSupplier brokerReady;

    HealthReport(List<ManagedVirtualHost> hosts, BooleanSupplier brokerReady) {
        this.hosts = List.copyOf(hosts);
        this.brokerReady = brokerReady;
    }

    /** Every virtual host serves clients on this node (standalone, or master with its quorum). */
    boolean serving() {
        return hosts.stream().allMatch(host -> host.standing() == VirtualHostStanding.SERVING);
    }

    /** Every virtual host serves or is a replica of its group (the broker's {@code Ready}). */
    boolean ready() {
        return brokerReady.getAsBoolean() && hosts.stream().allMatch(host -> host.standing().ready());
    }

    /** The whole report as JSON. */
    byte[] json() {
        ObjectNode root = JSON.createObjectNode();
        boolean ready = ready();
        root.put("status", serving() ? "serving" : ready ? "replica" : "not-ready");
        root.put("live", true);
        root.put("ready", ready);
        root.put("serving", serving());
        ArrayNode list = root.putArray("virtualHosts");
        for (ManagedVirtualHost host : hosts) {
            ObjectNode node = list.addObject();
            node.put("name", host.name());
            VirtualHostStanding standing = host.standing();
            node.put("standing", standing.name());
            node.put("serving", standing == VirtualHostStanding.SERVING);
            node.put("reason", host.standingReason());
            node.put("storeType", host.config().store().type());
            Optional<MessageStore> store = host.store();
            store.ifPresent(s -> node.put("role", s.status().role()));
            store.flatMap(MessageStore::replication).ifPresent(control -> replication(node, control));
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write the health report: " + e, e);
        }
    }

    private static void replication(ObjectNode node, ReplicationControl control) {
        ObjectNode group = node.putObject("replication");
        group.put("group", control.groupName());
        group.put("node", control.nodeName());
        group.put("nodeState", control.nodeState().name());
        control.masterName().ifPresentOrElse(master -> group.put("master", master), () -> group.putNull("master"));
        group.put("designatedPrimary", control.isDesignatedPrimary());
        ArrayNode lags = group.putArray("replicaLags");
        for (ReplicaLag lag : control.replicaLags().values()) {
            ObjectNode entry = lags.addObject();
            entry.put("replica", lag.nodeName());
            entry.put("lagVlsns", lag.vlsnLag());
            entry.put("delayMillis", lag.delayMillis());
        }
    }
}
