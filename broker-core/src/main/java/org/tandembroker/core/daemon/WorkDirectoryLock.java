package org.tandembroker.core.daemon;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One broker per work directory: an OS file lock on {@code WORK/broker.lock}, which holds the owner's process id.
 * Taken before the configuration is read, so that a second broker started on the same directory says so at once,
 * naming the directory and the other broker's process, instead of failing later inside a store. The OS releases the
 * lock when the process ends, however it ends ({@code kill -9} included): no stale lock to clean up.
 */
final class WorkDirectoryLock implements AutoCloseable {
    static final String FILE_NAME = "broker.lock";

    private final FileChannel channel;
    private final FileLock lock;

    private WorkDirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static WorkDirectoryLock acquire(Path work) throws StartupFailure {
        Path file = work.resolve(FILE_NAME);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // held by this very JVM (embedded use)
            }
            if (lock == null) {
                String owner = Files.readString(file, StandardCharsets.UTF_8).trim();
                channel.close();
                throw new StartupFailure("work directory " + work + " is in use by another broker"
                        + (owner.isEmpty() ? "" : " (pid " + owner + ")")
                        + ": stop it, or give this broker a work directory of its own (--work DIR)");
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(String.valueOf(ProcessHandle.current().pid())
                    .getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
            return new WorkDirectoryLock(channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StartupFailure("cannot lock work directory " + work + " (" + file + "): " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException | RuntimeException e) {
            // the process ends next; the OS releases it then
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing left to do
        }
    }
}
