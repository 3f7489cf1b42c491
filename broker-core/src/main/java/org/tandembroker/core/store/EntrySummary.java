package org.tandembroker.core.store;

import org.tandembroker.core.message.MetadataCodec;

/**
 * What a queue needs to know of a stored entry beyond its heap window until it reads the message back: where it
 * goes in line and what it counts, as {@link StoredEntries#summaries} reads it.
 *
 * @param messageId     the message's id
 * @param messageStored false when the entry names a message the store does not hold (a damaged store: the entry is
 *                      useless); a store that keeps the summary with the entry may say true and let the read-back
 *                      find out
 * @param priority      the message's priority (0 when not stored)
 * @param contentSize   the size of its content in bytes (0 when not stored)
 */
public record EntrySummary(long messageId, boolean messageStored, int priority, int contentSize) {

    /** The summary of an entry read with its metadata; an unreadable metadata counts as a missing message. */
    public static EntrySummary of(StoredEntry entry) {
        if (entry.metadata() != null) {
            try {
                return new EntrySummary(entry.messageId(), true, MetadataCodec.priority(entry.metadata()),
                        entry.contentSize());
            } catch (RuntimeException unreadable) {
                // counted as missing, as the entry of an unreadable message is when read with its metadata
            }
        }
        return new EntrySummary(entry.messageId(), false, 0, 0);
    }
}
