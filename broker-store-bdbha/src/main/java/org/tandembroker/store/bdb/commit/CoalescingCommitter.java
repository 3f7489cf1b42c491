package org.tandembroker.store.bdb.commit;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.tandembroker.core.BrokerException;

/**
 * Group commit ("coalescing sync"): commits are applied without waiting for the disk, then one fsync makes every
 * commit applied meanwhile durable, then their futures complete. Commits that arrive while a flush runs form the
 * next batch, so the number of fsyncs follows the disk's speed, not the commit rate; there is no timer and no
 * batch threshold.
 *
 * <p>Both implementations keep one contract: a future of {@link #submit} completes only after its work committed
 * and, when a flush is required, after a flush that started once it was applied (in HA, the commit itself waited
 * for the replicas' acknowledgements); it never completes before the future of an earlier {@link #submit}, so a
 * publisher's messages reach their queue in order. Futures complete on the committer's threads, never on a
 * caller's: a slow dependent stage must use an {@code *Async} variant. No committer thread is ever interrupted
 * (JE invalidates an environment whose thread is interrupted during I/O): {@link #close()} stops them with a
 * poison pill.
 *
 * @param <T> a unit of work (one transaction's changes)
 */
public interface CoalescingCommitter<T> extends AutoCloseable {

    /** A log position (e.g. a JE LSN) that orders log writes, when it is unknown. */
    long NO_POSITION = -1;

    /**
     * One thread named {@code threadName} applies each submission as its own transaction with {@code applier}
     * (which throws when it did not commit), runs {@code flushLog} (one fsync for everything applied so far) and
     * completes the futures (the standalone store).
     */
    static <T> CoalescingCommitter<T> singleThread(String threadName, Consumer<T> applier, Runnable flushLog,
                                                   CommitOutcomes outcomes) {
        return new SingleThreadCommitter<>(threadName, applier, flushLog, outcomes);
    }

    /**
     * Up to {@code appliers} threads apply, for appliers that block (the replicated store, which waits for replica
     * acknowledgements), and one flusher thread flushes {@code log} and completes ordered futures. An applier takes up
     * to {@code maxBatch} queued submissions and commits them as one transaction: ordered ones together, unordered ones
     * together, never mixed. It takes unordered ones whenever there are any, ordered ones once no other applier commits
     * ordered ones, or at once when a full batch of them waits: so the submissions that arrive while a transaction
     * waits for its acknowledgements gather into the next one, and ordered transactions overlap only when a round trip
     * outlasts a full batch's arrival. A batch that fails fails every submission in it with the same error. The number
     * of transactions thus follows the replication round trip, not the commit rate.
     *
     * <p>With log positions ({@link BatchApplier}, {@link FlushableLog}), a commit whose record a finished flush
     * already covered completes as soon as its applier returns, and a commit record reported early starts a flush
     * at once, so the fsync overlaps the acknowledgement round trip instead of following it.
     */
    static <T> CoalescingCommitter<T> applierPool(String threadName, int appliers, int maxBatch,
                                                  BatchApplier<T> applier, FlushableLog log,
                                                  CommitOutcomes outcomes) {
        return applierPool(threadName, appliers, maxBatch, maxBatch, applier, log, outcomes);
    }

    /**
     * As above, but a second ordered batch starts alongside one being committed once {@code overlapAt} ordered
     * submissions wait (above: a full batch). 1 suits commits that sync by themselves: JE shares an fsync only
     * between transactions that commit at the same time, on the master and on a replica that syncs.
     */
    static <T> CoalescingCommitter<T> applierPool(String threadName, int appliers, int maxBatch, int overlapAt,
                                                  BatchApplier<T> applier, FlushableLog log,
                                                  CommitOutcomes outcomes) {
        if (appliers < 1) {
            throw new IllegalArgumentException("appliers must be at least 1: " + appliers);
        }
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1: " + maxBatch);
        }
        return new ApplierPoolCommitter<>(threadName, appliers, maxBatch, overlapAt, applier, log, outcomes);
    }

    /** Starts the threads. Submissions made before are kept and applied. */
    void start();

    /**
     * Queues {@code work}. The future completes after the work is applied and, when {@code flushRequired}, after
     * a flush that followed it, and never before the future of an earlier {@code submit}; or fails with what
     * {@link CommitOutcomes#failed} returns; or with {@link BrokerException} {@code NOT_ACTIVE} when the committer
     * closed before applying it.
     */
    CompletableFuture<Void> submit(T work, boolean flushRequired);

    /**
     * Queues {@code work} that needs no flush and whose future completes as soon as it is applied, regardless of
     * earlier submissions still being applied or flushed (e.g. a consumer's removals, which must not wait behind
     * slow commits).
     */
    CompletableFuture<Void> submitUnordered(T work);

    /** True when {@code thread} is one of this committer's threads. */
    boolean runsOn(Thread thread);

    /** Counters so far. */
    CommitterStats stats();

    /**
     * Stops applying: queued submissions fail with {@code NOT_ACTIVE}; work already applied is flushed and
     * completed. Waits for the threads to finish, unless called from one of them (e.g. from a future's
     * completion), in which case they finish by themselves. Idempotent.
     */
    @Override
    void close();
}
