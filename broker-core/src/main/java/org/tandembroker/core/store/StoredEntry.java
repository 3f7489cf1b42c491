package org.tandembroker.core.store;

/**
 * One stored queue entry and its message, as {@link StoredEntries#entries} reads it.
 *
 * @param messageId   the message's id
 * @param metadata    the message's metadata bytes as stored ({@link StoreTransaction#storeMessage}), or null when
 *                    the entry names a message the store does not hold (a damaged store: the entry is useless)
 * @param contentSize the size of the message's content in bytes (0 when {@code metadata} is null)
 * @param content     the content, when the store read it with the metadata anyway (a small body kept in the same
 *                    record, read by {@link MessageStore#readMessages}); null otherwise: it is read later with
 *                    {@link MessageStore#loadContent(long)}
 */
public record StoredEntry(long messageId, byte[] metadata, int contentSize, byte[] content) {

    /** An entry whose content is read later. */
    public StoredEntry(long messageId, byte[] metadata, int contentSize) {
        this(messageId, metadata, contentSize, null);
    }
}
