package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.VirtualHostState;
import org.tandembroker.store.bdbha.HaGroup.Node;

/**
 * Two virtual hosts on a two-node group, in one JVM: a master serving and a replica, and the operator's failover
 * (the master's host stops; the replica is designated and takes over). For tests of what a feature's state looks like
 * on the node that takes over.
 */
final class VirtualHostPair implements AutoCloseable {
    private final VirtualHostConfig config;
    private final HaGroup group;
    private final ExecutorService queuePool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private final List<BrokerVirtualHost> hosts = new ArrayList<>();
    private BrokerVirtualHost master;
    private BrokerVirtualHost replica;
    private Node second;

    private VirtualHostPair(Path work, String groupName, VirtualHostConfig config) {
        this.config = config;
        this.group = new HaGroup(work, groupName);
    }

    /** Starts the master's host, waits until it serves, then the replica's, until it is passive. */
    static VirtualHostPair start(Path work, String groupName, VirtualHostConfig config) {
        VirtualHostPair pair = new VirtualHostPair(work, groupName, config);
        Node first = pair.group.prepare("first", HaGroup.options());
        pair.master = pair.host(first);
        await().atMost(ROLE_DEADLINE).until(() -> pair.master.state() == VirtualHostState.ACTIVE);
        pair.second = pair.group.prepare("second", HaGroup.options());
        pair.replica = pair.host(pair.second);
        assertThat(pair.replica.firstRoleDecided()).succeedsWithin(ROLE_DEADLINE)
                .isEqualTo(VirtualHostState.PASSIVE);
        return pair;
    }

    BrokerVirtualHost master() {
        return master;
    }

    BrokerVirtualHost replica() {
        return replica;
    }

    /** The master's host stops; an operator designates the replica, which takes over. Returns it, serving. */
    BrokerVirtualHost failOver() {
        master.stop().join();
        hosts.remove(master);
        await().atMost(ROLE_DEADLINE).until(() -> second.store.nodeState().equals("UNKNOWN"));
        assertThat(second.store.setDesignatedPrimary(true)).succeedsWithin(ROLE_DEADLINE);
        await().atMost(ROLE_DEADLINE).until(() -> replica.state() == VirtualHostState.ACTIVE);
        return replica;
    }

    private BrokerVirtualHost host(Node node) {
        BrokerVirtualHost host = new BrokerVirtualHost(config, node::newStore, node.operationalLog,
                new ContentBudget(64L * 1024 * 1024), queuePool, housekeeping);
        hosts.add(host);
        host.start();
        return host;
    }

    @Override
    public void close() {
        hosts.forEach(host -> host.stop().join());
        group.close();
        queuePool.shutdownNow();
        housekeeping.shutdownNow();
    }
}
