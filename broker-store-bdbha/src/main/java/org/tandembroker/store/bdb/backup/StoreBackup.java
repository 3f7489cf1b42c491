package org.tandembroker.store.bdb.backup;

import com.sleepycat.je.CheckpointConfig;
import com.sleepycat.je.DbInternal;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.rep.LogOverwriteException;
import com.sleepycat.je.util.DbBackup;
import com.sleepycat.je.utilint.DbLsn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backup engine of the JE stores, standalone ({@code bdb}) and replicated ({@code bdb-ha}; spec 1.6.13): a hot
 * backup of a running store, run by the broker that has it open, and a verified copy of a stopped store. The
 * broker's JMX backup bean calls the first; {@code bin/backup.sh} (broker-tools) asks that bean over JMX, or calls
 * {@link #copyIfStopped} itself.
 *
 * <h2>Why the running broker takes the backup itself</h2>
 * A consistent copy of a live JE environment needs JE's {@link DbBackup} on the environment handle of the process
 * that writes it: {@code startBackup} writes an "immutable file" marker and flips to a new log file, so the files
 * of the backup set never change again, and protects them from the cleaner until {@code endBackup}. Another process
 * cannot do that (JE refuses {@code DbBackup} on a read-only handle of a writable directory, and a read-only
 * handle in another process of a replicated store is not supported while the node runs). So a running broker backs
 * up with {@link #backUp} (the stores' {@code HotBackup} capability calls it); a stopped store is copied under
 * JE's writer lock ({@link StoreLock}), so that no broker can start on it meanwhile, every file verified with a read-only JE handle. Which case applies is
 * decided by that lock: when it cannot be taken a broker has the store open.
 *
 * <h2>Consistency under load</h2>
 * Every transaction committed before {@code startBackup} is in the files of the backup set (the flip writes JE's
 * log buffers out to the last of them); commits after it go to newer files, which the backup does not copy. The
 * files are copied while the broker keeps serving. On a replicated node JE invalidates a backup when replication
 * rewrites log files meanwhile (a rollback after a master change: {@link LogOverwriteException}); the copy is then
 * discarded and taken again, up to {@value #ATTEMPTS} times.
 *
 * <p><b>Threads.</b> Everything runs on the caller's thread: in the broker the RMI thread of the JMX call (which
 * holds the backup bean's one-backup-at-a-time lock), or a tool's main thread. JE's {@code DbBackup} is safe to use
 * while the store's own threads commit.
 */
public final class StoreBackup {
    /** How often a hot backup is tried when replication invalidates it. */
    static final int ATTEMPTS = 5;

    private static final Logger LOG = LoggerFactory.getLogger(StoreBackup.class);
    private static final long RETRY_DELAY_MILLIS = 1000;
    private static final Pattern LOG_FILE = Pattern.compile("[0-9a-f]{8}\\.jdb");
    private static final Pattern DATA_DIRECTORY = Pattern.compile("data\\d{3}");

    private StoreBackup() {
    }

    /**
     * Hot backup of {@code environment}, which this process has open read-write: fixes the backup set
     * ({@link DbBackup#startBackup}), copies and verifies its files while the store keeps working, ends the backup
     * mode; retries when replication invalidated the copy.
     *
     * @param how what is backed up, for the report
     */
    public static BackupReport backUp(Environment environment, String how, Path toDirectory) {
        Path store = environment.getHome().toPath();
        BackupDirectory target = BackupDirectory.prepare(toDirectory, store);
        for (int attempt = 1; ; attempt++) {
            try {
                BackupReport report = attempt(environment, how, store, target, attempt);
                target.finish(report);
                LOG.info("Backup of {} into {}: {} files, {} bytes, last file {}", store, target.path(),
                        report.files().size(), report.totalBytes(), report.lastFileNumber());
                return report;
            } catch (LogOverwriteException e) {
                target.discard();
                if (attempt == ATTEMPTS) {
                    throw BackupException.failed("replication rewrote log files during each of " + ATTEMPTS + " backup "
                            + "attempts of " + store + " (the node is rolling back after master changes); try again "
                            + "once the group is stable");
                }
                LOG.info("Backup of {}: JE invalidated attempt {} ({}); discarding it and trying again", store, attempt,
                        BackupException.firstLine(e));
                pause(RETRY_DELAY_MILLIS * attempt);
            } catch (RuntimeException e) {
                target.discard();
                throw e instanceof BackupException failure ? failure : BackupException.failed("backup of " + store
                        + " failed: " + BackupException.firstLine(e));
            }
        }
    }

    private static BackupReport attempt(Environment environment, String how, Path store, BackupDirectory target,
                                        int attempt) {
        checkpoint(environment);
        DbBackup backup = new DbBackup(environment);
        long began = System.nanoTime();
        Instant startedAt = Instant.now();
        backup.startBackup();
        boolean ended = false;
        try {
            long lastFile = backup.getLastFileInBackupSet();
            List<BackupReport.CopiedFile> copied = new ArrayList<>();
            for (String name : backup.getLogFilesInBackupSet()) {
                copied.add(new BackupReport.CopiedFile(name, target.copyVerified(environment, store, name)));
                backup.removeFileProtection(name); // the cleaner may delete it again: it is copied
            }
            ended = true;
            backup.endBackup(); // throws LogOverwriteException when replication rewrote files meanwhile
            return new BackupReport(store, target.path(), how, startedAt, copied, lastFile, attempt,
                    Duration.ofNanos(System.nanoTime() - began));
        } finally {
            if (!ended) {
                try {
                    backup.endBackup();
                } catch (RuntimeException e) {
                    // the copy failed already; this only re-enables the cleaner
                }
            }
        }
    }

    /** A checkpoint first makes a restored store recover faster; the backup does not depend on it. */
    private static void checkpoint(Environment environment) {
        try {
            environment.checkpoint(new CheckpointConfig().setForce(true));
        } catch (RuntimeException e) {
            LOG.info("Backup of {}: the checkpoint before it failed ({}); backing up anyway", environment.getHome(),
                    BackupException.firstLine(e));
        }
    }

    /**
     * Copies the store at {@code storeDirectory} when no broker has it open: every log file, verified, while JE's
     * writer lock keeps brokers off it; empty, having touched nothing, when one has (then only that broker can
     * back it up).
     *
     * @throws BackupException when the directory is not a store, or the copy fails
     */
    public static Optional<BackupReport> copyIfStopped(Path storeDirectory, Path toDirectory) {
        Optional<StoreLock> stopped = StoreLock.tryLock(storeDirectory);
        if (stopped.isEmpty()) {
            return Optional.empty();
        }
        try (StoreLock lock = stopped.get()) {
            return Optional.of(copyLockedStore(storeDirectory, toDirectory));
        }
    }

    private static BackupReport copyLockedStore(Path storeDirectory, Path toDirectory) {
        Path store = storeDirectory.toAbsolutePath().normalize();
        BackupDirectory target = BackupDirectory.prepare(toDirectory, store);
        long began = System.nanoTime();
        Instant startedAt = Instant.now();
        Environment environment = openReadOnly(store);
        try {
            List<String> names = logFiles(store);
            // The log as JE's recovery found it: a killed broker's last file may go on beyond its last entry (a
            // torn write, or the zeros of a prefilled log file), which the next open cuts off; the copy stops there.
            long endOfLog = DbInternal.getNonNullEnvImpl(environment).getFileManager().getNextLsn();
            long lastFileNumber = DbLsn.getFileNumber(endOfLog);
            List<BackupReport.CopiedFile> copied = new ArrayList<>();
            for (String name : names) {
                String fileName = Path.of(name).getFileName().toString();
                long upTo = Long.parseLong(fileName.substring(0, 8), 16) == lastFileNumber
                        ? DbLsn.getFileOffset(endOfLog) : Long.MAX_VALUE;
                copied.add(new BackupReport.CopiedFile(name, target.copyVerified(environment, store, name, upTo)));
            }
            String last = Path.of(names.get(names.size() - 1)).getFileName().toString();
            BackupReport report = new BackupReport(store, target.path(), "copy of the stopped store (no broker had it"
                    + " open; brokers were locked out during the copy)", startedAt, copied,
                    Long.parseLong(last.substring(0, 8), 16), 1, Duration.ofNanos(System.nanoTime() - began));
            target.finish(report);
            return report;
        } catch (RuntimeException e) {
            target.discard();
            throw e instanceof BackupException failure ? failure : BackupException.failed("copy of " + store
                    + " failed: " + BackupException.firstLine(e));
        } finally {
            try {
                environment.close();
            } catch (RuntimeException e) {
                LOG.debug("Closing the read-only environment of {} reported {}", store, e.toString());
            }
        }
    }

    /** A read-only handle (a replicated store may be opened so while no node runs on it): for verification. */
    private static Environment openReadOnly(Path store) {
        EnvironmentConfig config = new EnvironmentConfig().setReadOnly(true).setAllowCreate(false)
                .setTransactional(true).setSharedCache(false);
        try {
            return new Environment(store.toFile(), config);
        } catch (RuntimeException e) {
            throw BackupException.failed("cannot open the store at " + store + " (read-only) to verify it: "
                    + BackupException.firstLine(e));
        }
    }

    /** Every JE log file of a stopped store, in log order (names relative to the store, as JE's). */
    private static List<String> logFiles(Path store) {
        List<String> names = new ArrayList<>();
        try (Stream<Path> entries = Files.list(store)) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (LOG_FILE.matcher(name).matches()) {
                    names.add(name);
                } else if (Files.isDirectory(entry) && DATA_DIRECTORY.matcher(name).matches()) {
                    try (Stream<Path> inData = Files.list(entry)) {
                        inData.map(p -> p.getFileName().toString()).filter(n -> LOG_FILE.matcher(n).matches())
                                .forEach(n -> names.add(name + "/" + n));
                    }
                }
            }
        } catch (IOException e) {
            throw BackupException.failed("cannot list " + store + ": " + BackupException.firstLine(e));
        }
        names.sort(Comparator.comparing(n -> Path.of(n).getFileName().toString()));
        return names;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis); // a retry's back-off, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw BackupException.failed("interrupted while waiting to retry the backup");
        }
    }
}
