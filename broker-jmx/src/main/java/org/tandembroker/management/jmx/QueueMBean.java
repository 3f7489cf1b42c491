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
}
