package org.tandembroker.management.jmx;

import java.util.Map;
import java.util.Set;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.vhost.ManagedVirtualHost;
import org.tandembroker.core.vhost.SubscriptionTerms;

/** {@link QueueMBean} over one {@link BrokerQueue} instance (a failover recovers new instances: a new bean). */
final class QueueBean implements QueueMBean {
    private final String virtualHost;
    private final BrokerQueue queue;
    /** Fixed for the queue's life (a subscription replaced with other terms is a new queue). */
    private final String subscription;

    QueueBean(ManagedVirtualHost host, BrokerQueue queue) {
        this.virtualHost = host.name();
        this.queue = queue;
        this.subscription = host.subscriptionOf(queue.name()).map(SubscriptionTerms::describe).orElse("");
    }

    static DescribedMBean<QueueMBean> described(QueueBean bean) {
        return DescribedMBean.of(bean, QueueMBean.class, "Queue '" + bean.queue.name() + "' of virtual host '"
                        + bean.virtualHost + "'",
                Map.of("DepthMessages", "Messages on the queue, including delivered and unsettled ones",
                        "DepthBytes", "Content bytes on the queue",
                        "MessagesIn", "Messages enqueued",
                        "MessagesOut", "Messages removed (consumed, expired, dead-lettered)",
                        "Subscription", "Whose topic subscription this queue holds, and its topic and selector;"
                                + " empty for other queues"),
                Map.of(), Set.of());
    }

    BrokerQueue queue() {
        return queue;
    }

    @Override
    public String getName() {
        return queue.name();
    }

    @Override
    public String getVirtualHost() {
        return virtualHost;
    }

    @Override
    public boolean isDurable() {
        return queue.isDurable();
    }

    @Override
    public boolean isAutoDelete() {
        return queue.isAutoDelete();
    }

    @Override
    public String getSubscription() {
        return subscription;
    }

    @Override
    public long getDepthMessages() {
        return queue.depthMessages();
    }

    @Override
    public long getDepthBytes() {
        return queue.depthBytes();
    }

    @Override
    public int getConsumerCount() {
        return queue.consumerCount();
    }

    @Override
    public long getMessagesIn() {
        return queue.enqueuedTotal();
    }

    @Override
    public long getMessagesOut() {
        return queue.dequeuedTotal();
    }

    @Override
    public long getBytesIn() {
        return queue.enqueuedBytes();
    }

    @Override
    public long getBytesOut() {
        return queue.dequeuedBytes();
    }

    @Override
    public long getMessagesBrowsed() {
        return queue.browsedTotal();
    }

    @Override
    public long getMessagesReplaced() {
        return queue.lastValueReplacementsTotal();
    }

    @Override
    public boolean isPriorityOrder() {
        return queue.config().options().priority();
    }

    @Override
    public String getLastValueKey() {
        return queue.config().options().lastValueKey();
    }

    @Override
    public int getMessagesDelayed() {
        return queue.delayedCount();
    }

    @Override
    public long getMessagesPaged() {
        return queue.pagedCount();
    }

    @Override
    public int getActiveGroups() {
        return queue.activeGroupCount();
    }
}
