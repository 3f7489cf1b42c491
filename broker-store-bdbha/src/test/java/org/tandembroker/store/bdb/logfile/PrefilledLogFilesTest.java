package org.tandembroker.store.bdb.logfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.LockMode;
import com.sleepycat.je.OperationStatus;
import com.sleepycat.je.Transaction;
import com.sleepycat.je.TransactionConfig;
import com.sleepycat.je.util.DbVerifyLog;
import com.sleepycat.je.util.LogVerificationException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.tandembroker.store.bdb.backup.BackupReport;
import org.tandembroker.store.bdb.backup.StoreBackup;
import org.junit.jupiter.api.io.TempDir;

class PrefilledLogFilesTest {
    private static final long FILE_MAX = 1_000_000;
    private static final int RECORD = 2_000;
    private static final String RESTORE_MARKER = "7fffffff.jdb";

    @TempDir
    Path temp;

    @BeforeAll
    static void prefillingAsByDefault() {
        System.clearProperty(PrefilledLogFiles.SWITCH_PROPERTY);
    }

    @AfterAll
    static void prefillingAsBefore() {
        System.clearProperty(PrefilledLogFiles.SWITCH_PROPERTY);
    }

    @Test
    void jesDailyLogVerifierWouldTakeTheZerosForCorruptionSoTheStoreOpensWithoutIt() throws Exception {
        Path store = temp.resolve("store");
        try (PrefilledLogFiles.Registration registration = register(store);
             Environment env = open(store)) {
            assertThat(registration.adjusted(new EnvironmentConfig()).getConfigParam(EnvironmentConfig.VERIFY_LOG))
                    .isEqualTo("false");
            awaitSpare(store);
            write(env, 0, 800);
            assertThat(Files.size(lastLogFile(store))).isEqualTo(FILE_MAX);
            // what JE's verifier does at midnight: every file as it is on disk, the one being written included
            assertThatThrownBy(() -> new DbVerifyLog(env).verifyAll()).isInstanceOf(LogVerificationException.class);
        }
    }

    @Test
    void onUnlessTheStoresSettingOrTheJvmTurnsItOff() throws Exception {
        assertThat(PrefilledLogFiles.enabled()).isTrue();
        assertJesOwnFiles(PrefilledLogFiles.register(temp.resolve("setting-off"), false, config()),
                temp.resolve("setting-off"));
        System.setProperty(PrefilledLogFiles.SWITCH_PROPERTY, "false");
        try {
            assertJesOwnFiles(PrefilledLogFiles.register(temp.resolve("jvm-off"), true, config()),
                    temp.resolve("jvm-off"));
        } finally {
            System.clearProperty(PrefilledLogFiles.SWITCH_PROPERTY);
        }
    }

    private static void assertJesOwnFiles(PrefilledLogFiles.Registration registration, Path store)
            throws IOException {
        try (registration; Environment env = open(store)) {
            registration.opened(env);
            write(env, 0, 600);
            assertThat(Files.exists(store.resolve(StoreDirectory.SPARE_NAME))).isFalse();
            assertThat(Files.size(lastLogFile(store))).isLessThan(FILE_MAX);
            assertThat(registration.adjusted(new EnvironmentConfig())
                    .isConfigParamSet(EnvironmentConfig.VERIFY_LOG)).as("JE verifies its own files").isFalse();
        }
    }

    @Test
    void theCompleteLogFilesAreVerifiedOnJesScheduleWhileTheCurrentOneHoldsZeros() throws Exception {
        Path store = temp.resolve("store");
        EnvironmentConfig config = config();
        try (PrefilledLogFiles.Registration registration = PrefilledLogFiles.register(store, true, config)) {
            Environment env = new Environment(store.toFile(), registration.adjusted(config));
            try {
                registration.opened(env);
                CompleteLogFileVerifier verifier = verifierOf(registration).orElseThrow();
                assertThat(verifier.intervalMillis()).as("JE's default schedule: daily at midnight")
                        .isEqualTo(TimeUnit.DAYS.toMillis(1));
                assertThat(verifier.firstDelayMillis()).isBetween(0L, TimeUnit.DAYS.toMillis(1));
                writeWithSpares(env, store, 3);
                List<Path> files = logFiles(store);
                assertThat(Files.size(files.get(files.size() - 1))).as("zeros follow the current file's entries")
                        .isEqualTo(FILE_MAX);

                assertThat(verifier.verifyNow()).isEqualTo(files.size() - 1);
                verifier.runScheduled();

                assertThat(env.isValid()).isTrue();
                assertThat(verifier.scheduled()).isTrue();
                assertThat(store.resolve(RESTORE_MARKER)).doesNotExist();
            } finally {
                env.close();
            }
        }
    }

    @Test
    void aCorruptCompleteLogFileMarksTheStoreForRestoreAsJesVerifierWould() throws Exception {
        Path store = temp.resolve("store");
        EnvironmentConfig config = config();
        try (PrefilledLogFiles.Registration registration = PrefilledLogFiles.register(store, true, config)) {
            Environment env = new Environment(store.toFile(), registration.adjusted(config));
            try {
                registration.opened(env);
                writeWithSpares(env, store, 2);
                try (RandomAccessFile first = new RandomAccessFile(logFiles(store).get(0).toFile(), "rw")) {
                    first.seek(FILE_MAX / 2); // inside a record's value, written as 7s
                    first.write(8);
                }
                CompleteLogFileVerifier verifier = verifierOf(registration).orElseThrow();

                verifier.runScheduled();

                assertThat(env.isValid()).as("invalidated, as JE's verifier does").isFalse();
                assertThat(store.resolve(RESTORE_MARKER)).exists();
                assertThat(verifier.scheduled()).as("no run follows").isFalse();
            } finally {
                closeInvalid(env);
            }
        }
    }

    @Test
    void theStoresOwnConfigurationCanTurnLogVerificationOff() throws Exception {
        for (String parameter : List.of(EnvironmentConfig.VERIFY_LOG, EnvironmentConfig.ENV_RUN_VERIFIER)) {
            Path store = temp.resolve(parameter);
            EnvironmentConfig config = config().setConfigParam(parameter, "false");
            try (PrefilledLogFiles.Registration registration = PrefilledLogFiles.register(store, true, config);
                 Environment env = new Environment(store.toFile(), registration.adjusted(config))) {
                registration.opened(env);
                assertThat(verifierOf(registration)).as(parameter + "=false").isEmpty();
            }
        }
    }

    @Test
    void aNewLogFileIsTheSpareFullOfZerosAndJeSeesOnlyWhatItWrote() throws Exception {
        Path store = temp.resolve("store");
        try (PrefilledLogFiles.Registration registration = register(store)) {
            awaitSpare(store);
            try (Environment env = open(store)) {
                write(env, 0, 1_200); // about 2.4 MB: JE starts files 1 and 2 from spares
                Path current = lastLogFile(store);
                assertThat(StoreDirectory.logFileNumber(current.getFileName().toString())).isGreaterThan(0);
                assertThat(Files.size(current)).as("the file JE writes now holds its zeros beyond what JE wrote")
                        .isEqualTo(FILE_MAX);
                assertThat(env.getStats(null).getEndOfLog() % (1L << 32)).isLessThan(FILE_MAX);
                assertThat(readAll(env)).isEqualTo(1_200);
            }
        }
        assertThat(Files.exists(store.resolve(StoreDirectory.SPARE_NAME))).as("the spare goes with the store").isFalse();
        assertNoZeroTails(store);
        try (Environment env = open(store)) {
            assertThat(readAll(env)).isEqualTo(1_200);
        }
    }

    @Test
    void everyLogFileJeLeftIsCutToWhatItWroteWhileTheStoreStaysOpen() throws Exception {
        Path store = temp.resolve("store");
        try (PrefilledLogFiles.Registration registration = register(store);
             Environment env = open(store)) {
            writeWithSpares(env, store, 4);
            List<Path> files = logFiles(store);
            assertThat(files).hasSizeGreaterThan(3);
            for (Path complete : files.subList(0, files.size() - 1)) {
                assertThat(endsInZeros(complete)).as(complete + " was cut when JE left it").isFalse();
                assertThat(Files.size(complete)).isLessThanOrEqualTo(FILE_MAX);
            }
        }
    }

    @Test
    void aStoreCopiedWhileItsLastFileHoldsZerosRecoversEveryCommittedRecord() throws Exception {
        Path store = temp.resolve("store");
        Path crashed = temp.resolve("crashed");
        try (PrefilledLogFiles.Registration registration = register(store);
             Environment env = open(store)) {
            awaitSpare(store);
            write(env, 0, 800);
            Path last = lastLogFile(store);
            assertThat(Files.size(last)).isEqualTo(FILE_MAX);
            Files.createDirectories(crashed);
            for (Path file : logFiles(store)) { // what a kill -9 leaves: the zeros stay after the last commit
                Files.copy(file, crashed.resolve(file.getFileName()));
            }
            assertThat(endsInZeros(crashed.resolve(last.getFileName()))).isTrue();
        }
        try (Environment env = open(crashed)) {
            assertThat(readAll(env)).isEqualTo(800);
            write(env, 800, 100);
            assertThat(readAll(env)).isEqualTo(900);
        }
        assertNoZeroTails(crashed);
    }

    @Test
    void aStoppedStoreWhoseLastFileHoldsZerosIsBackedUpToItsLastEntry() throws Exception {
        Path store = temp.resolve("store");
        Path killed = temp.resolve("killed");
        try (PrefilledLogFiles.Registration registration = register(store);
             Environment env = open(store)) {
            awaitSpare(store);
            write(env, 0, 800);
            Files.createDirectories(killed);
            for (Path file : logFiles(store)) { // what a kill -9 leaves
                Files.copy(file, killed.resolve(file.getFileName()));
            }
        }
        Path backup = temp.resolve("backup");
        BackupReport report = StoreBackup.copyIfStopped(killed, backup).orElseThrow();

        assertThat(report.files()).isNotEmpty();
        Path copiedLast = lastLogFile(backup);
        assertThat(Files.size(copiedLast)).isLessThan(Files.size(killed.resolve(copiedLast.getFileName())));
        assertThat(endsInZeros(copiedLast)).isFalse();
        try (Environment env = open(backup)) {
            assertThat(readAll(env)).isEqualTo(800);
        }
    }

    @Test
    void aLastLogFileOfZerosOnlyIsDeletedBeforeTheStoreOpens() throws Exception {
        Path store = temp.resolve("store");
        try (Environment env = open(store)) {
            write(env, 0, 100);
        }
        Path last = lastLogFile(store);
        long next = StoreDirectory.logFileNumber(last.getFileName().toString()) + 1;
        Path zeros = store.resolve(String.format("%08x.jdb", next)); // renamed from the spare, never written
        Files.write(zeros, new byte[(int) FILE_MAX]);
        try (PrefilledLogFiles.Registration registration = register(store)) {
            assertThat(Files.exists(zeros)).isFalse();
            try (Environment env = open(store)) {
                assertThat(readAll(env)).isEqualTo(100);
            }
        }
    }

    @Test
    void aSecondRegistrationOfAnOpenStoreLeavesItsFilesAlone() throws Exception {
        Path store = temp.resolve("store");
        try (PrefilledLogFiles.Registration registration = register(store);
             Environment env = open(store)) {
            awaitSpare(store);
            try (PrefilledLogFiles.Registration second = register(store)) {
                assertThat(Files.size(store.resolve(StoreDirectory.SPARE_NAME))).isEqualTo(FILE_MAX);
            }
            assertThat(Files.size(store.resolve(StoreDirectory.SPARE_NAME))).as("still the open store's spare")
                    .isEqualTo(FILE_MAX);
            write(env, 0, 600);
            assertThat(Files.size(lastLogFile(store))).isEqualTo(FILE_MAX);
        }
    }

    @Test
    void aNodeWhoseCommitsDoNotFsyncAppendsAsJeDoesAndKeepsItsSpareForLater() throws Exception {
        Path store = temp.resolve("store");
        try (PrefilledLogFiles.Registration registration = register(store);
             Environment env = open(store)) {
            awaitSpare(store);
            registration.fsyncsCommits(false); // a replica that does not sync
            write(env, 0, 1_200);
            assertThat(Files.size(lastLogFile(store))).isLessThan(FILE_MAX);
            assertThat(Files.size(store.resolve(StoreDirectory.SPARE_NAME))).isEqualTo(FILE_MAX);

            registration.fsyncsCommits(true); // it became master
            write(env, 1_200, 600);
            assertThat(Files.size(lastLogFile(store))).isEqualTo(FILE_MAX);
            assertThat(readAll(env)).isEqualTo(1_800);
        }
        assertNoZeroTails(store);
    }

    @Test
    void anUnregisteredDirectoryGetsJesOwnFiles() throws Exception {
        PrefilledLogFiles.install();
        Path store = temp.resolve("plain");
        try (Environment env = open(store)) {
            write(env, 0, 600);
            assertThat(Files.exists(store.resolve(StoreDirectory.SPARE_NAME))).isFalse();
            assertThat(Files.size(lastLogFile(store))).isLessThan(FILE_MAX);
        }
    }

    private static PrefilledLogFiles.Registration register(Path store) throws IOException {
        return PrefilledLogFiles.register(store, FILE_MAX, true);
    }

    private static Optional<CompleteLogFileVerifier> verifierOf(PrefilledLogFiles.Registration registration) {
        return ((PrefilledLogFiles.DirectoryRegistration) registration).verifier();
    }

    /** A store's configuration as the brokers build it: JE's verifier on its default schedule, no read pauses. */
    private static EnvironmentConfig config() {
        return new EnvironmentConfig().setAllowCreate(true).setTransactional(true)
                .setConfigParam(EnvironmentConfig.LOG_FILE_MAX, Long.toString(FILE_MAX))
                .setConfigParam(EnvironmentConfig.ENV_RUN_CLEANER, "false")
                .setConfigParam(EnvironmentConfig.VERIFY_LOG_READ_DELAY, "0 ms");
    }

    private static void closeInvalid(Environment env) {
        try {
            env.close();
        } catch (RuntimeException invalid) {
            // an invalidated environment reports why when it closes
        }
    }

    private static Environment open(Path store) throws IOException {
        Files.createDirectories(store);
        return new Environment(store.toFile(), config());
    }

    /** {@code batches} batches of 600 records, each after a spare is ready: every batch starts a prefilled file. */
    private static void writeWithSpares(Environment env, Path store, int batches) throws InterruptedException {
        for (int batch = 0; batch < batches; batch++) {
            awaitSpare(store);
            write(env, batch * 600, 600);
        }
    }

    private static void write(Environment env, int from, int count) {
        try (Database db = env.openDatabase(null, "records",
                new DatabaseConfig().setAllowCreate(true).setTransactional(true))) {
            byte[] value = new byte[RECORD];
            Arrays.fill(value, (byte) 7);
            for (int i = from; i < from + count; i++) {
                Transaction txn = env.beginTransaction(null,
                        new TransactionConfig().setDurability(Durability.COMMIT_SYNC));
                db.put(txn, new DatabaseEntry(ByteBuffer.allocate(4).putInt(i).array()), new DatabaseEntry(value));
                txn.commit();
            }
        }
    }

    private static int readAll(Environment env) {
        try (Database db = env.openDatabase(null, "records",
                new DatabaseConfig().setAllowCreate(false).setTransactional(true));
             var cursor = db.openCursor(null, null)) {
            DatabaseEntry key = new DatabaseEntry();
            DatabaseEntry value = new DatabaseEntry();
            int count = 0;
            int expected = 0;
            while (cursor.getNext(key, value, LockMode.DEFAULT) == OperationStatus.SUCCESS) {
                assertThat(ByteBuffer.wrap(key.getData()).getInt()).isEqualTo(expected++);
                assertThat(value.getSize()).isEqualTo(RECORD);
                count++;
            }
            return count;
        }
    }

    private static void awaitSpare(Path store) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Path spare = store.resolve(StoreDirectory.SPARE_NAME);
        while (System.nanoTime() < deadline) {
            try {
                if (Files.size(spare) == FILE_MAX) {
                    Thread.sleep(50); // its last fsync
                    return;
                }
            } catch (IOException notYet) {
                // not created yet
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no spare log file in " + store + " after 30 s");
    }

    private static void assertNoZeroTails(Path store) throws IOException {
        for (Path file : logFiles(store)) {
            assertThat(endsInZeros(file)).as(file + " ends in zeros").isFalse();
        }
        try (Environment env = open(store)) {
            new DbVerifyLog(env).verifyAll(); // throws on an entry that is not what JE wrote
        }
    }

    private static boolean endsInZeros(Path file) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            if (length < 64) {
                return false;
            }
            byte[] last = new byte[64];
            in.seek(length - last.length);
            in.readFully(last);
            for (byte b : last) {
                if (b != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    private static Path lastLogFile(Path store) throws IOException {
        List<Path> files = logFiles(store);
        return files.get(files.size() - 1);
    }

    private static List<Path> logFiles(Path store) throws IOException {
        try (Stream<Path> entries = Files.list(store)) {
            return entries.filter(p -> p.getFileName().toString().endsWith(".jdb")).sorted().toList();
        }
    }
}
