package org.tandembroker.store.bdb;

import com.sleepycat.je.DbInternal;
import com.sleepycat.je.Environment;
import com.sleepycat.je.Transaction;
import com.sleepycat.je.txn.Txn;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.store.bdb.commit.CoalescingCommitter;

/**
 * Where records are in JE's log (LSNs), so that a group commit can tell whether a flush already made a commit
 * durable: the LSN of a transaction's commit record, and the LSN of the last record written so far. Every record
 * at or below the end read before {@code flushLog(true)} is on disk once that flush returns (JE's flush writes
 * every buffer allocated before it, waiting for copies still in progress).
 *
 * <p>JE 18.3 keeps both internal: the commit LSN is a field of its {@code Txn}, read here through a
 * {@link VarHandle}; the end of the log is {@code FileManager.getLastUsedLsn()}. When a JE upgrade removes either,
 * the positions become {@link CoalescingCommitter#NO_POSITION} (a warning says so once) and the committer falls
 * back to flushing after every commit, which is correct, only slower. {@code JeLogPositionTest} fails on such an
 * upgrade, so it cannot go unnoticed.
 *
 * <p>Threads: stateless; any thread.
 */
public final class JeLogPosition {
    private static final Logger LOG = LoggerFactory.getLogger(JeLogPosition.class);
    private static final VarHandle COMMIT_LSN = commitLsnHandle();

    private JeLogPosition() {
    }

    /** True when JE's commit LSNs can be read (the committer overlaps fsyncs with acknowledgement waits). */
    public static boolean available() {
        return COMMIT_LSN != null;
    }

    /** JE's own transaction behind {@code txn}; take it before {@code commit()}, which drops it. */
    public static Txn internal(Transaction txn) {
        return DbInternal.getTxn(txn);
    }

    /** The LSN of the commit record of {@code committed} (after its commit), or NO_POSITION. */
    public static long commitPosition(Txn committed) {
        if (COMMIT_LSN == null || committed == null) {
            return CoalescingCommitter.NO_POSITION;
        }
        long lsn = (long) COMMIT_LSN.getVolatile(committed);
        return lsn < 0 ? CoalescingCommitter.NO_POSITION : lsn;
    }

    /** The LSN of the last record written to {@code environment}'s log so far, or NO_POSITION. */
    public static long end(Environment environment) {
        if (COMMIT_LSN == null) {
            return CoalescingCommitter.NO_POSITION;
        }
        long lsn = DbInternal.getNonNullEnvImpl(environment).getFileManager().getLastUsedLsn();
        return lsn < 0 ? CoalescingCommitter.NO_POSITION : lsn;
    }

    private static VarHandle commitLsnHandle() {
        try {
            return MethodHandles.privateLookupIn(Txn.class, MethodHandles.lookup())
                    .findVarHandle(Txn.class, "commitLsn", long.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("Cannot read JE's commit LSNs ({}): group commits will flush after every replicated commit"
                    + " instead of overlapping the fsync with the wait for replica acknowledgements", e.toString());
            return null;
        }
    }
}
