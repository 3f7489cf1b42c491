package org.tandembroker.store.bdbha;

import java.util.concurrent.TimeUnit;

/**
 * Keeps consumers' removals from running far ahead of the replicas.
 *
 * <p>Removals commit without waiting for acknowledgements (docs/ha.md), so while consumers drain a deep queue and
 * nobody publishes, nothing slows the master to the replicas' pace. A replica that replays the removals more
 * slowly than the master makes them falls further behind, until the heartbeat's acknowledgement times out and the
 * master stops serving (measured: 10,000,000 messages drained at about 25,000 msg/s lost the quorum four times).
 *
 * <p>The heartbeat's majority-acknowledged commit measures that lag: the replication stream is ordered, so it is
 * acknowledged only once a majority has replayed everything logged before it. While it has waited more than
 * {@link #LIMIT_MILLIS} for its acknowledgements, a removal about to commit waits until that commit ends
 * (acknowledged, or failed after JE's acknowledgement timeout). Nothing waits while the replicas keep up, and
 * nothing waits for a replica that is not connected (the heartbeat's commit then fails before it asks for
 * acknowledgements).
 *
 * <p><b>Threads.</b> The heartbeat thread reports its commit; the committer's appliers pass removals through.
 * Every field is guarded by this object's monitor.
 */
final class ReplicaLagGate {
    /** How long an acknowledgement may be outstanding before removals wait for it. */
    static final long LIMIT_MILLIS = 500;
    /** The longest a removal waits, should the commit it waits for never report its end. */
    static final long MAX_WAIT_MILLIS = 30_000;

    private final long limitNanos;
    private boolean awaiting;
    private long awaitingSince;
    private long held;

    ReplicaLagGate() {
        this(LIMIT_MILLIS);
    }

    ReplicaLagGate(long limitMillis) {
        this.limitNanos = TimeUnit.MILLISECONDS.toNanos(limitMillis);
    }

    /** A majority-acknowledged commit starts waiting for its acknowledgements. */
    synchronized void awaitingAcknowledgements() {
        awaiting = true;
        awaitingSince = System.nanoTime();
    }

    /** That commit ended: acknowledged or failed. */
    synchronized void acknowledgementsEnded() {
        awaiting = false;
        notifyAll();
    }

    /**
     * Returns at once unless the replicas lag by more than the limit; then returns when the commit that shows it
     * ends (at most {@link #MAX_WAIT_MILLIS}). An interrupt ends the wait and stays set.
     */
    synchronized void passRemoval() {
        if (!awaiting || System.nanoTime() - awaitingSince < limitNanos) {
            return;
        }
        held++;
        long since = awaitingSince;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS);
        while (awaiting && awaitingSince == since) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** How many removal batches have waited so far. */
    synchronized long held() {
        return held;
    }
}
