package org.tandembroker.core.store;

import java.util.UUID;

/** Receives a store's durable records during {@link MessageStore#recover}, in the order of the methods. */
public interface RecoveryHandler {

    void configRecord(ConfigRecord record);

    /** A stored message; content is loaded later with {@link MessageStore#loadContent(long)} when needed. */
    void message(long messageId, byte[] metadata, int contentSize);

    /** A queue entry, in enqueue order per queue. */
    void queueEntry(UUID queueId, long messageId);
}
