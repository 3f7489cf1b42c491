package org.tandembroker.store.bdb.backup;

import com.sleepycat.je.dbi.DbEnvPool;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Holds a JE store directory against writers while an offline tool works on it: the lock a writing JE process
 * takes, JE's single-writer lock (byte 0 of {@code je.lck}, exclusive). Held, no broker can open the store (it
 * fails with {@code EnvironmentLockedException}); not obtainable, a broker (in this JVM or another process) has the
 * store open. Read-only JE handles take another byte, so a tool may open the store read-only while holding this.
 */
public final class StoreLock implements AutoCloseable {
    static final String LOCK_FILE = "je.lck";

    private final RandomAccessFile file;
    private final FileLock lock;

    private StoreLock(RandomAccessFile file, FileLock lock) {
        this.file = file;
        this.lock = lock;
    }

    /**
     * Takes the writer's lock of the store at {@code storeDirectory}; empty when a process holds the store open for
     * writing.
     *
     * @throws BackupException when the directory is not a JE store (no {@code *.jdb} log file)
     */
    public static Optional<StoreLock> tryLock(Path storeDirectory) {
        requireStore(storeDirectory);
        if (DbEnvPool.getInstance().isOpen(storeDirectory.toFile())) {
            // This JVM has it open. Asking the OS would open and close another descriptor of je.lck, and closing
            // one drops every lock this process holds on the file (POSIX): JE's own among them.
            return Optional.empty();
        }
        RandomAccessFile file = null;
        try {
            file = new RandomAccessFile(storeDirectory.resolve(LOCK_FILE).toFile(), "rw");
            FileChannel channel = file.getChannel();
            FileLock lock;
            try {
                lock = channel.tryLock(0, 1, false);
            } catch (OverlappingFileLockException e) {
                lock = null; // this JVM holds it otherwise
            }
            if (lock == null) {
                file.close();
                return Optional.empty();
            }
            return Optional.of(new StoreLock(file, lock));
        } catch (IOException e) {
            closeQuietly(file);
            throw BackupException.failed("cannot lock the store at " + storeDirectory + " (" + LOCK_FILE + "): "
                    + BackupException.firstLine(e));
        }
    }

    /**
     * Takes the lock or fails with a message saying the store is in use.
     *
     * @param whatNeedsIt what the tool is about to do, for the message ("reset its replication group")
     */
    public static StoreLock lockStopped(Path storeDirectory, String whatNeedsIt) {
        return tryLock(storeDirectory).orElseThrow(() -> BackupException.failed("the store at " + storeDirectory
                + " is in use (a broker has it open): stop that broker first to " + whatNeedsIt));
    }

    /** Fails unless {@code directory} holds JE log files. */
    static void requireStore(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw BackupException.badRequest(directory + " is not a directory");
        }
        try (Stream<Path> files = Files.list(directory)) {
            if (files.noneMatch(p -> p.getFileName().toString().endsWith(".jdb"))) {
                throw BackupException.badRequest(directory + " holds no JE log files (*.jdb): it is not a store "
                        + "directory (a virtual host's <storePath>)");
            }
        } catch (IOException e) {
            throw BackupException.failed("cannot list " + directory + ": " + BackupException.firstLine(e));
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the file releases it too
        }
        closeQuietly(file);
    }

    private static void closeQuietly(RandomAccessFile file) {
        if (file == null) {
            return;
        }
        try {
            file.close();
        } catch (IOException e) {
            // nothing more to release
        }
    }
}
