package org.tandembroker.core.store;

/**
 * Receives a store's configuration records during {@link MessageStore#recover}, on the thread that called it.
 * Messages and queue entries are not replayed here: the virtual host reads them afterwards, page by page, through
 * the {@link StoredEntries} that {@code recover} returns.
 */
@FunctionalInterface
public interface RecoveryHandler {

    /** A stored exchange, queue or binding. */
    void configRecord(ConfigRecord record);
}
