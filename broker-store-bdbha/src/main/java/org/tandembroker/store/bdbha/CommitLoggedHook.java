package org.tandembroker.store.bdbha;

import com.sleepycat.je.TransactionConfig;
import com.sleepycat.je.dbi.EnvironmentImpl;
import com.sleepycat.je.log.LogItem;
import com.sleepycat.je.rep.impl.node.NameIdPair;
import com.sleepycat.je.rep.txn.MasterTxn;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a committing thread the moment its replicated transaction's commit record is in the log, before JE
 * waits for the replicas' acknowledgements, so that the group commit's fsync can run during that wait instead
 * of after it (see {@code BatchApplier}).
 *
 * <p>JE 18.3 has no public callback between writing a master's commit record and awaiting its acknowledgements.
 * It creates every master transaction through {@code MasterTxn}'s factory, which it lets tests replace; {@link
 * #install()} replaces it with one whose transactions, in {@code postLogCommitHook} (called right after the commit
 * record is logged, before the acknowledgement wait), pass the record's LSN to the listener that the committing
 * thread registered with {@link #whileCommitting}. Transactions on threads without a listener (the quorum
 * heartbeat, removals, JE's own) behave exactly as JE's. The factory is JVM-wide; installing it again is a
 * no-op. If a JE upgrade changes this, {@code CommitLoggedHookTest} fails, and the committer still works
 * without the notice (the fsync then follows the acknowledgements, as before).
 *
 * <p>Threads: the listener runs on the committing thread inside JE's commit; it must not block. If it throws,
 * the commit goes on (the exception is logged): the notice only saves time.
 */
final class CommitLoggedHook {
    private static final Logger LOG = LoggerFactory.getLogger(CommitLoggedHook.class);
    private static final ThreadLocal<LongConsumer> LISTENER = new ThreadLocal<>();
    private static boolean installed;

    private CommitLoggedHook() {
    }

    /** Makes JE create master transactions that report their commit record (once per JVM). */
    static synchronized void install() {
        if (installed) {
            return;
        }
        try {
            MasterTxn.setFactory(new Factory());
            installed = true;
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("Cannot watch JE's commit records ({}): the group commit's fsync will follow replica"
                    + " acknowledgements instead of overlapping them", e.toString());
        }
    }

    /** Runs {@code commit} with {@code logged} told the LSN of each replicated commit record it writes. */
    static <R> R whileCommitting(LongConsumer logged, Supplier<R> commit) {
        LongConsumer previous = LISTENER.get();
        LISTENER.set(logged);
        try {
            return commit.get();
        } finally {
            if (previous == null) {
                LISTENER.remove();
            } else {
                LISTENER.set(previous);
            }
        }
    }

    private static final class Factory implements MasterTxn.MasterTxnFactory {
        @Override
        public MasterTxn create(EnvironmentImpl environment, TransactionConfig config, NameIdPair node) {
            return new ReportingMasterTxn(environment, config, node);
        }

        @Override
        public MasterTxn createNullTxn(EnvironmentImpl environment, TransactionConfig config, NameIdPair node) {
            // As JE's own factory: a transaction that logs its commit with no changes (it carries the DTVLSN).
            return new ReportingMasterTxn(environment, config, node) {
                @Override
                protected boolean updateLoggedForTxn() {
                    return true;
                }
            };
        }
    }

    private static class ReportingMasterTxn extends MasterTxn {
        ReportingMasterTxn(EnvironmentImpl environment, TransactionConfig config, NameIdPair node) {
            super(environment, config, node);
        }

        @Override
        protected void postLogCommitHook(LogItem commitItem) {
            LongConsumer listener = LISTENER.get();
            if (listener != null) {
                try {
                    listener.accept(commitItem.lsn);
                } catch (RuntimeException e) {
                    // The notice only saves time: the commit is logged and must still get its acknowledgements.
                    LOG.warn("Commit notice failed (the fsync will follow the acknowledgements): {}", e.toString());
                }
            }
            super.postLogCommitHook(commitItem);
        }
    }
}
