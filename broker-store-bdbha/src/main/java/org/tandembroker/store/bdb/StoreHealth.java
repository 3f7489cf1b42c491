package org.tandembroker.store.bdb;

import com.sleepycat.je.DiskLimitException;
import com.sleepycat.je.EnvironmentFailureException;
import com.sleepycat.je.OperationFailureException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.store.bdb.commit.CommitOutcomes;

/**
 * Turns JE failures of commits into {@link BrokerException}s and tracks whether the store can write: a full disk
 * is an episode (logged once with {@code MST-1008}, ended by the next successful commit with {@code MST-1009});
 * an {@link EnvironmentFailureException} makes the store unusable until the broker restarts.
 *
 * <p>Shared with the replicated store, which handles replication's exceptions (and environment failures, by
 * restarting its environment) before it hands the rest here.
 *
 * <p><b>Threads.</b> Called on the committer thread(s); read by any thread through {@link #diskFull()} and
 * {@link #environmentFailure()}. State is two atomics, so a pool of committer threads may share it.
 */
public final class StoreHealth implements CommitOutcomes {
    private static final Logger LOG = LoggerFactory.getLogger(StoreHealth.class);

    private final String storeName;
    private final OperationalLog operationalLog;
    private final Consumer<String> onEnvironmentFailure;
    private final AtomicBoolean diskFull = new AtomicBoolean();
    private final AtomicReference<String> environmentFailure = new AtomicReference<>();

    /**
     * @param storeName            names the store in log lines
     * @param onEnvironmentFailure told once, with a one-line reason, when the environment became unusable
     */
    public StoreHealth(String storeName, OperationalLog operationalLog, Consumer<String> onEnvironmentFailure) {
        this.storeName = storeName;
        this.operationalLog = operationalLog;
        this.onEnvironmentFailure = onEnvironmentFailure;
    }

    @Override
    public void succeeded() {
        if (diskFull.get() && diskFull.compareAndSet(true, false)) {
            operationalLog.log(LogCode.MST_1009, storeName + " : commits succeed again");
        }
    }

    @Override
    public Throwable failed(Throwable cause) {
        if (cause instanceof BrokerException brokerException) {
            return brokerException;
        }
        if (cause instanceof DiskLimitException) {
            String reason = "store disk full: " + oneLine(cause);
            if (diskFull.compareAndSet(false, true)) {
                operationalLog.log(LogCode.MST_1008, storeName + " : " + reason);
            }
            return new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED, reason, cause);
        }
        if (cause instanceof EnvironmentFailureException) {
            String reason = "store environment failed, restart the broker: " + oneLine(cause);
            if (environmentFailure.compareAndSet(null, reason)) {
                LOG.error("{}: JE environment failed; the store cannot be used until the broker restarts",
                        storeName, cause);
                operationalLog.log(LogCode.MST_1008, storeName + " : " + reason);
                onEnvironmentFailure.accept(reason);
            }
            return new BrokerException(ErrorKind.INTERNAL_ERROR, reason, cause);
        }
        if (cause instanceof OperationFailureException) {
            return new BrokerException(ErrorKind.INTERNAL_ERROR, "store commit failed: " + oneLine(cause), cause);
        }
        LOG.error("{}: unexpected commit failure", storeName, cause);
        return new BrokerException(ErrorKind.INTERNAL_ERROR, "store commit failed: " + oneLine(cause), cause);
    }

    public boolean diskFull() {
        return diskFull.get();
    }

    /** Why the environment is unusable, or null while it is fine. */
    public String environmentFailure() {
        return environmentFailure.get();
    }

    /** Marks the environment unusable for a failure noticed outside a commit (e.g. a content read). */
    public void environmentFailed(Throwable cause) {
        failed(cause);
    }

    private static String oneLine(Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
