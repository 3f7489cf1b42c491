package org.tandembroker.management.jmx;

/**
 * A virtual host ({@code org.tandembroker:type=VirtualHost,name=<virtual host>}): state, store, connections and
 * traffic. Message counts are since the host became active on this node.
 */
public interface VirtualHostMBean {

    String getName();

    /** ACTIVE, PASSIVE or STOPPED. */
    String getState();

    /** bdb, bdb-ha, memory. */
    String getStoreType();

    /** STANDALONE, MASTER, REPLICA, UNKNOWN, DETACHED, CLOSED. */
    String getStoreRole();

    boolean isStoreWritable();

    /** The store's one-line status. */
    String getStoreStatus();

    int getConnectionCount();

    /** Each open client connection, e.g. {@code /10.0.0.5:53122 (alice)}: the argument of closeConnection. */
    String[] getConnections();

    int getQueueCount();

    /** Messages accepted from publishers. */
    long getMessagesIn();

    /** Their content bytes. */
    long getBytesIn();

    /** Messages removed from the current queues (consumed, expired, dead-lettered). */
    long getMessagesOut();

    /** Messages on all queues. */
    long getQueueDepthMessages();

    /** Content bytes on all queues. */
    long getQueueDepthBytes();

    /** Publishes refused below the disk watermark. */
    long getPublishesRefused();

    /** Why publishes are refused now; empty when they are accepted. */
    String getPublishRefusal();

    /** Whether the store is below the disk watermark. */
    boolean isDiskSpaceLow();

    /** Bytes the store may still write before JE's disk limits stop it (-1 unknown). */
    long getAvailableLogSize();

    /** Bytes of the store's log files (-1 unknown). */
    long getTotalLogSize();

    /** Closes the client connection that {@link #getConnections()} lists as {@code connection}; returns how many. */
    int closeConnection(String connection);
}
