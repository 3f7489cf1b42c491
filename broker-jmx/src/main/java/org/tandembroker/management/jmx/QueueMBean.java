package org.tandembroker.management.jmx;

/**
 * A queue ({@code org.tandembroker:type=Queue,virtualHost=<virtual host>,name=<queue>}). Counts are since the queue
 * was created or recovered on this node.
 */
public interface QueueMBean {

    String getName();

    String getVirtualHost();

    boolean isDurable();

    boolean isAutoDelete();

    /**
     * For the queue of a named topic subscription (JMS durable or shared): whose it is and what it subscribes to,
     * e.g. {@code durable subscription 'p' of client 'app-1' to topic 'prices'}; empty for any other queue.
     */
    String getSubscription();

    /** Messages on the queue, including those delivered and not yet settled. */
    long getDepthMessages();

    /** Their content bytes. */
    long getDepthBytes();

    int getConsumerCount();

    /** Messages enqueued. */
    long getMessagesIn();

    /** Messages removed (consumed, expired, dead-lettered). */
    long getMessagesOut();

    /** Content bytes of the messages enqueued. */
    long getBytesIn();

    /** Content bytes of the messages removed. */
    long getBytesOut();

    /** Copies delivered to browsers (JMS QueueBrowser, AMQP distribution-mode copy); browsing takes nothing. */
    long getMessagesBrowsed();

    /** Messages a newer one with the same last-value key replaced before delivery (removed as if consumed). */
    long getMessagesReplaced();

    /** Whether the queue delivers higher JMS priority first (false: one FIFO order). */
    boolean isPriorityOrder();

    /** The application property keying a last-value queue, or null for an ordinary queue. */
    String getLastValueKey();

    /** Messages waiting for their delivery time (JMS delivery delay); they are counted in the depth too. */
    int getMessagesDelayed();

    /**
     * Messages beyond the queue's heap window ({@code <memory queueWindow>}), kept in the store only until the queue
     * reads them back; they are counted in the depth too.
     */
    long getMessagesPaged();

    /** Message groups (JMSXGroupID) assigned to a consumer now. */
    int getActiveGroups();
}
