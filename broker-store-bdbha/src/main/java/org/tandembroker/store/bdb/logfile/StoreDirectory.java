package org.tandembroker.store.bdb.logfile;

import com.sleepycat.je.log.FileManager;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.store.bdb.backup.StoreLock;

/**
 * A registered store directory: its spare (the next log file's zeros, written and fsynced beforehand), the
 * prefilled log files whose zeros are not cut yet, and the highest log file number JE has started.
 *
 * <p>Threads: JE's threads call {@link #open}; registration calls {@link #close}; the spare is written on the
 * JVM's one {@code je-log-prefill} thread. Every field is guarded by this object's monitor except while the spare
 * is being written, which only that thread does (it takes the monitor to publish the spare).
 */
final class StoreDirectory {
    static final String SPARE_NAME = "tandem-next-log-file.zeros";
    private static final Logger LOG = LoggerFactory.getLogger(StoreDirectory.class);
    private static final Pattern LOG_FILE = Pattern.compile("([0-9a-f]{8})\\.jdb");
    private static final int CHUNK = 256 * 1024;
    private static final ExecutorService PREFILL = Executors.newSingleThreadExecutor(
            NamedThreadFactory.daemonThread("je-log-prefill"));

    private final Path home;
    private final Path spare;
    private final long fileSize;
    private final TreeMap<Long, LogFileTail> tails = new TreeMap<>();
    private long highestStarted;
    private boolean spareReady;
    private boolean preparing;
    private boolean closed;
    private boolean fsyncsCommits = true;
    private boolean failureLogged;

    private StoreDirectory(Path home, long fileSize, long highestStarted) {
        this.home = home;
        this.spare = home.resolve(SPARE_NAME);
        this.fileSize = fileSize;
        this.highestStarted = highestStarted;
    }

    /**
     * The state of {@code home} before its environment opens: a stale spare is deleted, a last log file of zeros
     * only (the broker stopped between renaming the spare and JE writing the header) is deleted, and the first
     * spare is prepared once {@link #start()} is called. Empty when a broker has the store open.
     */
    static Optional<StoreDirectory> open(Path home, long fileSize) throws IOException {
        Files.createDirectories(home);
        TreeMap<Long, Path> logFiles = logFiles(home);
        if (logFiles.isEmpty()) {
            Files.deleteIfExists(home.resolve(SPARE_NAME));
        } else {
            Optional<StoreLock> unused = StoreLock.tryLock(home);
            if (unused.isEmpty()) {
                return Optional.empty(); // a broker has the store open: leave its files alone (JE refuses this open)
            }
            try (StoreLock held = unused.get()) {
                Files.deleteIfExists(home.resolve(SPARE_NAME));
                Map.Entry<Long, Path> last = logFiles.lastEntry();
                if (holdsOnlyZeros(last.getValue())) {
                    LOG.warn("Deleting {}: a log file the broker started but never wrote (it stopped while"
                            + " switching to it); the store opens as it was before the switch", last.getValue());
                    Files.delete(last.getValue());
                    logFiles.remove(last.getKey());
                }
            }
        }
        return Optional.of(new StoreDirectory(home, fileSize, logFiles.isEmpty() ? -1 : logFiles.lastKey()));
    }

    /** Starts preparing the first spare, once the directory is registered. */
    synchronized void start() {
        prepareSpare();
    }

    /** See {@link PrefilledLogFiles.Registration#fsyncsCommits}. */
    synchronized void fsyncsCommits(boolean fsyncs) {
        fsyncsCommits = fsyncs;
        prepareSpare();
    }

    /** JE opens {@code file}: a prefilled file when JE starts its next log file and a spare is ready. */
    synchronized RandomAccessFile open(Path file, String mode) throws FileNotFoundException {
        String fullName = file.toString();
        long number = logFileNumber(file.getFileName().toString());
        if (number < 0) {
            return new FileManager.DefaultRandomAccessFile(fullName, mode);
        }
        LogFileTail tail = tails.get(number);
        if (tail != null && tail.zerosFollow()) {
            return new PrefilledLogFile(fullName, mode, tail);
        }
        if (closed || !mode.startsWith("rw") || number <= highestStarted || !emptyOrMissing(file)) {
            return new FileManager.DefaultRandomAccessFile(fullName, mode);
        }
        highestStarted = number;
        cutEarlierThan(number);
        if (!fsyncsCommits) {
            return new FileManager.DefaultRandomAccessFile(fullName, mode);
        }
        if (!spareReady) {
            prepareSpare();
            return new FileManager.DefaultRandomAccessFile(fullName, mode);
        }
        spareReady = false;
        try {
            Files.move(spare, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            logFailureOnce("cannot rename the spare log file to " + file, e);
            prepareSpare();
            return new FileManager.DefaultRandomAccessFile(fullName, mode);
        }
        LogFileTail started = new LogFileTail(file, number);
        tails.put(number, started);
        prepareSpare();
        return new PrefilledLogFile(fullName, mode, started);
    }

    /**
     * The lowest log file number that still holds zeros after what JE wrote ({@link Long#MAX_VALUE} if none): every
     * file below it is complete, exactly what JE wrote, and stays so.
     */
    synchronized long firstFileHoldingZeros() {
        return tails.isEmpty() ? Long.MAX_VALUE : tails.firstKey();
    }

    /** After the environment closed: cuts what is still prefilled, stops preparing, deletes the spare. */
    synchronized void close() {
        closed = true;
        try {
            cutEarlierThan(Long.MAX_VALUE);
        } catch (FileNotFoundException e) {
            LOG.warn("{}", e.getMessage());
        }
        try {
            Files.deleteIfExists(spare);
        } catch (IOException e) {
            LOG.debug("Cannot delete {}: {}", spare, e.toString());
        }
        spareReady = false;
    }

    /** The files JE has left once it starts file {@code number}: cut to what JE wrote; a failure fails the open. */
    private void cutEarlierThan(long number) throws FileNotFoundException {
        List<Long> done = new ArrayList<>();
        for (LogFileTail tail : tails.values()) {
            if (tail.number() >= number) {
                break;
            }
            try {
                tail.cut();
            } catch (IOException e) {
                FileNotFoundException failure = new FileNotFoundException("cannot cut the prefilled log file "
                        + tail.file() + " to the " + tail.end() + " bytes written: " + e);
                failure.initCause(e);
                throw failure;
            }
            done.add(tail.number());
        }
        done.forEach(tails::remove);
    }

    private void prepareSpare() {
        if (closed || !fsyncsCommits || spareReady || preparing) {
            return;
        }
        preparing = true;
        PREFILL.execute(this::writeSpare);
    }

    /** On {@code je-log-prefill}: writes the spare's zeros in steps, each fsynced, so no step holds the disk long. */
    private void writeSpare() {
        boolean written = false;
        try (FileChannel channel = FileChannel.open(spare, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(CHUNK);
            long position = 0;
            while (position < fileSize && !isClosed()) {
                zeros.clear().limit((int) Math.min(CHUNK, fileSize - position));
                while (zeros.hasRemaining()) {
                    position += channel.write(zeros, position);
                }
                channel.force(false);
            }
            channel.force(true);
            written = position >= fileSize;
        } catch (IOException e) {
            logFailureOnce("cannot prepare the next log file " + spare, e);
        }
        synchronized (this) {
            preparing = false;
            spareReady = written && !closed;
            if (!spareReady) {
                try {
                    Files.deleteIfExists(spare);
                } catch (IOException e) {
                    LOG.debug("Cannot delete {}: {}", spare, e.toString());
                }
            }
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private void logFailureOnce(String what, IOException e) {
        if (!failureLogged) {
            failureLogged = true;
            LOG.warn("{} ({}): JE appends to its next log files instead, whose fsyncs also write their growth", what,
                    e.toString());
        }
    }

    static long logFileNumber(String name) {
        Matcher matcher = LOG_FILE.matcher(name);
        return matcher.matches() ? Long.parseLong(matcher.group(1), 16) : -1;
    }

    private static TreeMap<Long, Path> logFiles(Path home) throws IOException {
        TreeMap<Long, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(home, "*.jdb")) {
            for (Path entry : entries) {
                long number = logFileNumber(entry.getFileName().toString());
                if (number >= 0) {
                    files.put(number, entry);
                }
            }
        }
        return files;
    }

    private static boolean emptyOrMissing(Path file) {
        try {
            return Files.notExists(file) || Files.size(file) == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean holdsOnlyZeros(Path file) throws IOException {
        if (Files.size(file) == 0) {
            return false; // JE writes a header into an empty last file itself
        }
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(file)) {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                for (int i = 0; i < read; i++) {
                    if (buffer[i] != 0) {
                        return false;
                    }
                }
            }
        }
        return true;
    }
}
