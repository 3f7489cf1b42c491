package org.tandembroker.store.bdb.logfile;

import com.sleepycat.je.DbInternal;
import com.sleepycat.je.Environment;
import com.sleepycat.je.config.EnvironmentParams;
import com.sleepycat.je.dbi.DbConfigManager;
import com.sleepycat.je.util.DbVerifyLog;
import com.sleepycat.je.util.LogVerificationException;
import com.sleepycat.je.utilint.CronScheduleParser;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.exec.NamedThreadFactory;

/**
 * JE's daily log verification for a store whose log files are prefilled, over its complete log files only.
 *
 * <p><b>Why.</b> JE's own verifier ({@code je.env.verifyLog}) reads every log file from disk, the one being written
 * included, and would take the zeros after that file's last entry for corruption; the stores open without it while
 * prefilling ({@link PrefilledLogFiles.Registration#adjusted}). This one does what it did (JE's {@link DbVerifyLog}:
 * every entry's checksum, on JE's schedule {@code je.env.verifySchedule}, with its pause between reads
 * {@code je.env.verifyLogReadDelay}) over the files before the first one that still holds zeros
 * ({@link StoreDirectory#firstFileHoldingZeros()}): every file JE has left is cut to what it wrote before JE writes
 * the next. A file still being written is verified on the first run after JE has left it.
 *
 * <p><b>Corruption</b> is handled as JE's verifier handles it: {@link DbVerifyLog} writes JE's restore marker
 * ({@code 7fffffff.jdb}) and invalidates the environment, and the node stops using the store; this class logs it for
 * the operator and stops verifying. An unreadable file is logged and tried again at the next run.
 *
 * <p><b>Threads.</b> Runs on its own {@code je-log-verifier} thread; {@link #close()} (after the environment closed)
 * asks a running verification to stop after its current read and waits for it.
 */
final class CompleteLogFileVerifier implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CompleteLogFileVerifier.class);
    private static final long STOP_WAIT_SECONDS = 30;

    private final Environment environment;
    private final StoreDirectory directory;
    private final Path home;
    private final DbVerifyLog verifier;
    private final ScheduledExecutorService thread;
    private final long firstDelayMillis;
    private final long intervalMillis;

    private CompleteLogFileVerifier(Environment environment, StoreDirectory directory, Path home,
                                    String schedule, long readDelayMillis) {
        this.environment = environment;
        this.directory = directory;
        this.home = home;
        this.verifier = new DbVerifyLog(environment);
        verifier.setReadDelay(readDelayMillis, TimeUnit.MILLISECONDS);
        CronScheduleParser parsed = new CronScheduleParser(schedule);
        this.firstDelayMillis = parsed.getDelayTime();
        this.intervalMillis = parsed.getInterval();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                NamedThreadFactory.daemonThread("je-log-verifier"));
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        this.thread = executor;
    }

    /**
     * A verifier of {@code environment}'s complete log files on JE's schedule, started; empty when the store's
     * configuration turned JE's background verifier off ({@code je.env.runVerifier=false}) or its log verification
     * ({@code logVerificationWanted} false: {@code je.env.verifyLog=false} in the store's own configuration).
     */
    static Optional<CompleteLogFileVerifier> start(Environment environment, StoreDirectory directory, Path home,
                                                   boolean logVerificationWanted) {
        DbConfigManager config = DbInternal.getNonNullEnvImpl(environment).getConfigManager();
        if (!logVerificationWanted || !config.getBoolean(EnvironmentParams.ENV_RUN_VERIFIER)) {
            return Optional.empty();
        }
        CompleteLogFileVerifier verifier = new CompleteLogFileVerifier(environment, directory, home,
                config.get(EnvironmentParams.VERIFY_SCHEDULE),
                config.getDuration(EnvironmentParams.VERIFY_LOG_READ_DELAY));
        verifier.thread.scheduleAtFixedRate(verifier::runScheduled, verifier.firstDelayMillis,
                verifier.intervalMillis, TimeUnit.MILLISECONDS);
        return Optional.of(verifier);
    }

    /** Milliseconds from the start to the first run, and between runs: JE's reading of its schedule. */
    long firstDelayMillis() {
        return firstDelayMillis;
    }

    long intervalMillis() {
        return intervalMillis;
    }

    /** False once a verification found corruption or the verifier was closed: no run follows. */
    boolean scheduled() {
        return !thread.isShutdown();
    }

    /**
     * Verifies every log file before the first one still holding zeros, as JE's verifier would.
     *
     * @return how many files were verified (a file the cleaner deleted meanwhile is skipped)
     * @throws LogVerificationException an entry is not what JE wrote: JE has marked the store for restore and
     *                                  invalidated the environment
     */
    int verifyNow() throws IOException {
        int before = verifier.getNFilesVerified(); // JE counts over the verifier's life
        verifier.verify(0, directory.firstFileHoldingZeros());
        return verifier.getNFilesVerified() - before;
    }

    /** One scheduled run, on {@code je-log-verifier}. */
    void runScheduled() {
        long started = System.nanoTime();
        try {
            int verified = verifyNow();
            LOG.info("Verified the checksums of {} complete log files in {} ({} ms)", verified, home,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } catch (LogVerificationException e) {
            LOG.error("Log file verification found an entry in {} that is not what the store wrote: {}. The store"
                    + " is marked for restore (7fffffff.jdb) and no longer used: restore this node from a backup,"
                    + " or from the group when it is a replica (docs/operations.md, section 7)", home, e.getMessage());
            thread.shutdown();
        } catch (IOException e) {
            LOG.error("Log file verification could not read the log files in {}: {}; it runs again at the next"
                    + " scheduled time", home, e.toString());
        } catch (RuntimeException e) {
            if (environment.isValid()) {
                LOG.error("Log file verification of {} failed; it runs again at the next scheduled time", home, e);
            } else {
                LOG.debug("Log file verification of {} stopped: the environment is closed or invalid ({})", home,
                        e.toString());
                thread.shutdown();
            }
        }
    }

    /**
     * Stops: a run in progress ends after its current read (never interrupted: JE's verifier would take that for an
     * environment failure).
     */
    @Override
    public void close() {
        verifier.setStopVerifyFlag(true);
        thread.shutdown();
        try {
            if (!thread.awaitTermination(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("Log file verification of {} did not stop within {} s", home, STOP_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
