package org.tandembroker.management.jmx;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.management.disk.DiskSpaceGuard;
import org.tandembroker.management.store.DiskFigures;
import org.tandembroker.management.store.LatestFigures;
import org.tandembroker.management.store.StoreFigures;

/** {@link VirtualHostMBean} over a {@link BrokerVirtualHost}; reads live counters, and JE figures from the sampler. */
final class VirtualHostBean implements VirtualHostMBean {
    private static final Logger LOG = LoggerFactory.getLogger(VirtualHostBean.class);

    private final BrokerVirtualHost host;
    private final LatestFigures figures;
    private final DiskSpaceGuard guard;

    VirtualHostBean(BrokerVirtualHost host, LatestFigures figures, DiskSpaceGuard guard) {
        this.host = host;
        this.figures = figures;
        this.guard = guard;
    }

    static DescribedMBean<VirtualHostMBean> described(VirtualHostBean bean) {
        return DescribedMBean.of(bean, VirtualHostMBean.class, "Virtual host '" + bean.host.name() + "'",
                Map.ofEntries(
                        Map.entry("State", "ACTIVE, PASSIVE or STOPPED"),
                        Map.entry("StoreRole", "STANDALONE, MASTER, REPLICA, UNKNOWN, DETACHED, CLOSED"),
                        Map.entry("Connections", "Open client connections (arguments of closeConnection)"),
                        Map.entry("MessagesIn", "Messages accepted from publishers"),
                        Map.entry("BytesIn", "Content bytes of messages accepted from publishers"),
                        Map.entry("MessagesOut", "Messages removed from the current queues"),
                        Map.entry("PublishRefusal", "Why publishes are refused now; empty when accepted"),
                        Map.entry("AvailableLogSize", "Bytes the store may still write (-1 unknown)"),
                        Map.entry("closeConnection", "Close a client connection, named as in Connections")),
                Map.of("closeConnection", List.of("connection")), Set.of());
    }

    @Override
    public String getName() {
        return host.name();
    }

    @Override
    public String getState() {
        return host.state().name();
    }

    @Override
    public String getStoreType() {
        return host.config().store().type();
    }

    @Override
    public String getStoreRole() {
        return host.store().map(s -> s.status().role()).orElse("CLOSED");
    }

    @Override
    public boolean isStoreWritable() {
        return host.store().map(s -> s.status().writable()).orElse(false);
    }

    @Override
    public String getStoreStatus() {
        return host.store().map(s -> s.status().description()).orElse("no open store");
    }

    @Override
    public int getConnectionCount() {
        return host.connectionCount();
    }

    @Override
    public String[] getConnections() {
        return host.connectionDescriptions().toArray(String[]::new);
    }

    @Override
    public int getQueueCount() {
        return host.queues().size();
    }

    @Override
    public long getMessagesIn() {
        return host.publishStatistics().messagesIn();
    }

    @Override
    public long getBytesIn() {
        return host.publishStatistics().bytesIn();
    }

    @Override
    public long getMessagesOut() {
        return queues().stream().mapToLong(BrokerQueue::dequeuedTotal).sum();
    }

    @Override
    public long getQueueDepthMessages() {
        return queues().stream().mapToLong(BrokerQueue::depthMessages).sum();
    }

    @Override
    public long getQueueDepthBytes() {
        return queues().stream().mapToLong(BrokerQueue::depthBytes).sum();
    }

    private Collection<BrokerQueue> queues() {
        return host.queues().values();
    }

    @Override
    public long getPublishesRefused() {
        return host.publishStatistics().publishesRefused();
    }

    @Override
    public String getPublishRefusal() {
        return host.publishRefusal().orElse("");
    }

    @Override
    public boolean isDiskSpaceLow() {
        return guard.isLow(host.name());
    }

    @Override
    public long getAvailableLogSize() {
        StoreFigures latest = figures.of(host.name());
        return latest.disk().map(DiskFigures::available).orElse(-1L);
    }

    @Override
    public long getTotalLogSize() {
        return figures.of(host.name()).disk().map(DiskFigures::total).orElse(-1L);
    }

    @Override
    public int closeConnection(String connection) {
        int closed = host.closeConnection(connection, "closed by an operator over JMX");
        if (closed == 0) {
            throw new IllegalArgumentException("no connection '" + connection + "' in virtual host '" + host.name()
                    + "'; the attribute Connections lists them");
        }
        LOG.info("Virtual host '{}': connection {} closed by an operator over JMX", host.name(), connection);
        return closed;
    }
}
