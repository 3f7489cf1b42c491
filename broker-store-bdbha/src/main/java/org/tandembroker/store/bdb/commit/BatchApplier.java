package org.tandembroker.store.bdb.commit;

import java.util.List;
import java.util.function.LongConsumer;

/**
 * An applier pool's seam to the store: commits several units of work as ONE transaction (all or none) and returns
 * where its commit record is in the log, or {@link CoalescingCommitter#NO_POSITION} (the commit then waits for a
 * flush that starts after it was applied); throws when it did not commit. One transaction per batch is what makes
 * a replicated commit cheap: one commit record, one replication message, one replay and one acknowledgement for
 * the whole batch.
 *
 * <p>{@code logged} may be told that position as soon as the commit record is in the log while the commit still
 * waits (for replica acknowledgements): the flusher then starts a flush at once, so the fsync runs during that
 * wait instead of after it. Called at most once, on the applier's thread; it never blocks.
 *
 * @param <T> a unit of work
 */
@FunctionalInterface
public interface BatchApplier<T> {
    long apply(List<T> batch, LongConsumer logged);
}
