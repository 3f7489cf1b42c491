package org.tandembroker.store.bdb.logfile;

import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.log.FileManager;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JE's log files written into space filled beforehand, so that a commit's fsync writes data only.
 *
 * <p><b>Why.</b> JE appends to its log files. On this project's disks an {@code fdatasync} after an append also
 * writes the file's new size and block allocation, and costs 300-310 µs; the same write into blocks written before
 * costs 175-190 µs (see docs/perf/log.md, "What an fdatasync costs on this disk"). With one synchronous publisher
 * a commit waits for one fsync, so that difference is a large part of the round trip. Artemis fills its journal
 * files beforehand for the same reason.
 *
 * <p><b>How.</b> JE creates every log file through {@link FileManager#fileFactory}, which it lets tests replace;
 * {@link #install()} replaces it with one that, for a store directory registered here ({@link #register}), hands
 * JE a file of zeros already written and fsynced (the spare, {@value StoreDirectory#SPARE_NAME}, prepared in the
 * background by {@code je-log-prefill}) whenever JE starts its next log file. JE's handles on that file see a file
 * whose length is what JE wrote ({@link PrefilledLogFile}): reads stop there, as at the end of a real file. Once JE
 * starts the file after it, or closes its writable handle, or the store closes, the file is cut to that length and
 * the cut fsynced, so that every complete log file is exactly what JE wrote, for JE's readers, backups, network
 * restores and tools. Unregistered directories (tools, read-only opens) get JE's own files.
 *
 * <p><b>Crashes.</b> A broker killed while its last file still has zeros after what JE wrote leaves what JE
 * treats as a torn end: recovery truncates the last file at its last valid entry, as after any crash mid-write.
 * A broker killed between renaming the spare and JE writing the new file's header leaves a last file of zeros
 * only; {@link #register} deletes such a file before JE opens the store (it holds nothing), so that JE opens it
 * as it was before the switch.
 *
 * <p><b>On by default</b> (a store's {@code <prefillLogFiles>false</prefillLogFiles>} turns it off for that store,
 * {@code -Dtandem.store.prefillLogFiles=false} for every store of the JVM). JE's daily verifier
 * ({@code je.env.verifyLog}) reads every log file as it is on disk, the one being written included, and would take
 * the zeros after its last entry for corruption and mark the store for restore. The stores therefore open without
 * it ({@link Registration#adjusted}), and once open ({@link Registration#opened}) run the same verification on JE's
 * schedule over the complete files only ({@link CompleteLogFileVerifier}).
 *
 * <p><b>Threads.</b> JE's threads call the factory; each registered directory's state is guarded by its own
 * monitor ({@link StoreDirectory}); a file's written length by its {@link LogFileTail}. The spare is written on
 * {@code je-log-prefill}; the complete files are verified on each store's {@code je-log-verifier}. If JE changes its
 * factory, {@code PrefilledLogFilesTest} fails and JE's files are used.
 */
public final class PrefilledLogFiles {
    private static final Logger LOG = LoggerFactory.getLogger(PrefilledLogFiles.class);
    private static final Map<Path, StoreDirectory> DIRECTORIES = new ConcurrentHashMap<>();
    /** The system property that turns prefilled log files off for every store of the JVM ({@code false}). */
    public static final String SWITCH_PROPERTY = "tandem.store.prefillLogFiles";
    private static final long JE_DEFAULT_LOG_FILE_MAX = 10_000_000L;
    private static boolean installed;

    private PrefilledLogFiles() {
    }

    /** One store directory registered while its environment is open; {@link #close()} unregisters it. */
    public interface Registration extends AutoCloseable {
        /**
         * The environment configuration the store opens with: while its log files are prefilled, without JE's
         * daily log verification ({@code je.env.verifyLog}), which reads the log file being written as it is on
         * disk and would take its zeros for corruption (and mark the store for restore); {@link #opened} runs it
         * over the complete files instead. JE's B-tree verification stays, and every read still checks its entry's
         * checksum. Unchanged when nothing was registered.
         */
        EnvironmentConfig adjusted(EnvironmentConfig config);

        /**
         * The store's environment is open: JE's daily log verification, which the store opened without
         * ({@link #adjusted}), runs over its complete log files instead ({@link CompleteLogFileVerifier}), on JE's
         * schedule, unless the store's configuration turned it off.
         */
        void opened(Environment environment);

        /**
         * Whether the node's commits fsync its log now (true when registered): a replica whose replica sync policy
         * is not {@code SYNC} never waits for an fsync, so it appends to its log files as JE does by itself and
         * writes no spare; the spare it has stays for when it becomes master.
         */
        void fsyncsCommits(boolean fsyncs);

        /** After the environment closed: stops verifying, cuts what is still prefilled, deletes the spare. */
        @Override
        void close();
    }

    private static final Registration NOTHING_REGISTERED = new Registration() {
        @Override
        public EnvironmentConfig adjusted(EnvironmentConfig config) {
            return config;
        }

        @Override
        public void opened(Environment environment) {
        }

        @Override
        public void fsyncsCommits(boolean fsyncs) {
        }

        @Override
        public void close() {
        }
    };

    /** A registered directory, and once its environment is open the verifier of its complete log files. */
    static final class DirectoryRegistration implements Registration {
        private final Path home;
        private final Path real;
        private final StoreDirectory directory;
        private final boolean logVerificationWanted;
        private volatile Optional<CompleteLogFileVerifier> verifier = Optional.empty();

        private DirectoryRegistration(Path home, Path real, StoreDirectory directory, boolean logVerificationWanted) {
            this.home = home;
            this.real = real;
            this.directory = directory;
            this.logVerificationWanted = logVerificationWanted;
        }

        @Override
        public EnvironmentConfig adjusted(EnvironmentConfig config) {
            return config.setConfigParam(EnvironmentConfig.VERIFY_LOG, "false");
        }

        @Override
        public void opened(Environment environment) {
            verifier.ifPresent(CompleteLogFileVerifier::close);
            verifier = CompleteLogFileVerifier.start(environment, directory, home, logVerificationWanted);
        }

        /** The verifier of the complete log files, while the environment is open and its configuration wants one. */
        Optional<CompleteLogFileVerifier> verifier() {
            return verifier;
        }

        @Override
        public void fsyncsCommits(boolean fsyncs) {
            directory.fsyncsCommits(fsyncs);
        }

        @Override
        public void close() {
            verifier.ifPresent(CompleteLogFileVerifier::close);
            verifier = Optional.empty();
            DIRECTORIES.remove(home, directory);
            DIRECTORIES.remove(real, directory);
            directory.close();
        }
    }

    /**
     * Registers {@code storeDirectory}, whose environment opens with {@code config} (the store's own, before
     * {@link Registration#adjusted}), before it opens: from now on JE's next log file there is written into
     * prefilled space. Nothing is registered when the store's {@code prefillLogFiles} setting ({@code prefill}) or
     * {@code -Dtandem.store.prefillLogFiles=false} turns prefilling off, or when registering fails (logged): JE then
     * appends as it does by itself. Deletes a last log file that holds only zeros (see the class comment). Closing
     * the registration, after the environment closed, cuts every file still open for writing to its written length
     * and deletes the spare. A directory that a broker (this JVM or another process) has open already is left
     * alone: JE refuses that open.
     */
    public static Registration register(Path storeDirectory, boolean prefill, EnvironmentConfig config) {
        if (!prefill) {
            return NOTHING_REGISTERED;
        }
        try {
            return register(storeDirectory, logFileMax(config),
                    Boolean.parseBoolean(config.getConfigParam(EnvironmentConfig.VERIFY_LOG)));
        } catch (IOException | RuntimeException e) {
            LOG.warn("JE's log files in {} will not be prefilled: {}", storeDirectory, e.toString());
            return NOTHING_REGISTERED;
        }
    }

    /**
     * {@link #register(Path, boolean, EnvironmentConfig)} with JE's largest log file given, and whether the store's own
     * configuration wants JE's log verification ({@code je.env.verifyLog}); failures thrown.
     */
    static Registration register(Path storeDirectory, long logFileMax, boolean logVerificationWanted)
            throws IOException {
        if (logFileMax <= 0) {
            throw new IllegalArgumentException("logFileMax must be positive: " + logFileMax);
        }
        if (!enabled() || !install()) {
            return NOTHING_REGISTERED;
        }
        Path home = storeDirectory.toAbsolutePath().normalize();
        if (DIRECTORIES.containsKey(home)) {
            return NOTHING_REGISTERED; // an environment of this JVM has it open; JE refuses the second
        }
        Optional<StoreDirectory> opened = StoreDirectory.open(home, logFileMax);
        if (opened.isEmpty()) {
            return NOTHING_REGISTERED;
        }
        StoreDirectory directory = opened.get();
        Path real = home.toRealPath();
        if (DIRECTORIES.putIfAbsent(home, directory) != null) {
            return NOTHING_REGISTERED;
        }
        DIRECTORIES.put(real, directory);
        directory.start();
        return new DirectoryRegistration(home, real, directory, logVerificationWanted);
    }

    /** True unless {@code -Dtandem.store.prefillLogFiles=false}. */
    public static boolean enabled() {
        return !"false".equalsIgnoreCase(System.getProperty(SWITCH_PROPERTY, "true").trim());
    }

    /** The largest log file {@code config} lets JE write ({@code je.log.fileMax}). */
    private static long logFileMax(EnvironmentConfig config) {
        return config.isConfigParamSet(EnvironmentConfig.LOG_FILE_MAX)
                ? Long.parseLong(config.getConfigParam(EnvironmentConfig.LOG_FILE_MAX))
                : JE_DEFAULT_LOG_FILE_MAX;
    }

    /** Makes JE create its log files through this class (once per JVM); false if JE no longer allows it. */
    static synchronized boolean install() {
        if (installed) {
            return true;
        }
        try {
            FileManager.fileFactory = PrefilledLogFiles::createFile;
            installed = true;
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("Cannot hand JE prefilled log files ({}): a commit's fsync will also write each log file's"
                    + " growth", e.toString());
        }
        return installed;
    }

    private static RandomAccessFile createFile(File envHome, String fullName, String mode)
            throws FileNotFoundException {
        Path file = Path.of(fullName).toAbsolutePath().normalize();
        Path parent = file.getParent();
        StoreDirectory directory = parent == null ? null : DIRECTORIES.get(parent);
        if (directory == null) {
            return new FileManager.DefaultRandomAccessFile(fullName, mode);
        }
        return directory.open(file, mode);
    }
}
