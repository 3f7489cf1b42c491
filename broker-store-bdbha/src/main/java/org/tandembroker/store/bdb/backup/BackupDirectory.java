package org.tandembroker.store.bdb.backup;

import com.sleepycat.je.Environment;
import com.sleepycat.je.util.LogVerificationException;
import com.sleepycat.je.util.LogVerificationInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The directory a backup goes into: checked before the first byte is copied (it must not hold another backup or
 * be inside the store), filled with log files that are verified while they are copied (JE's
 * {@link LogVerificationInputStream}: a damaged file must not enter a backup unnoticed) and forced to disk, and
 * finished with {@link BackupReport#MANIFEST}, written last: a backup directory without it is incomplete.
 *
 * <p><b>Threads.</b> One backup's thread.
 */
final class BackupDirectory {
    private static final int BUFFER_BYTES = 1 << 20;

    private final Path directory;
    private final List<Path> written = new ArrayList<>();

    private BackupDirectory(Path directory) {
        this.directory = directory;
    }

    /**
     * Creates {@code directory} if needed and checks that it can take a backup of {@code store}.
     *
     * @throws BackupException when it is inside the store, holds log files or a manifest already, or cannot be created
     */
    static BackupDirectory prepare(Path directory, Path store) {
        Path target = directory.toAbsolutePath().normalize();
        Path source = store.toAbsolutePath().normalize();
        if (target.startsWith(source)) {
            throw BackupException.badRequest("the backup directory " + target + " is inside the store " + source
                    + ": choose a directory elsewhere (ideally on another disk)");
        }
        try {
            Files.createDirectories(target);
            try (Stream<Path> present = Files.list(target)) {
                List<String> clashing = present.map(p -> p.getFileName().toString())
                        .filter(name -> name.endsWith(".jdb") || name.equals(BackupReport.MANIFEST)).sorted().toList();
                if (!clashing.isEmpty()) {
                    throw BackupException.badRequest("the backup directory " + target + " already holds a backup ("
                            + clashing.get(0) + (clashing.size() > 1 ? " and " + (clashing.size() - 1) + " more" : "")
                            + "): give an empty or new directory (a restore copies every log file of the directory, "
                            + "so backups must not mix)");
                }
            }
        } catch (IOException e) {
            throw BackupException.failed("cannot use " + target + " as backup directory: "
                    + BackupException.firstLine(e));
        }
        return new BackupDirectory(target);
    }

    Path path() {
        return directory;
    }

    /**
     * Copies the log file {@code name} (relative to {@code env}'s home) verifying every entry's checksum, and
     * forces it to disk.
     *
     * @return the bytes copied
     * @throws BackupException when the file fails verification or cannot be copied
     */
    long copyVerified(Environment env, Path storeDirectory, String name) {
        return copyVerified(env, storeDirectory, name, Long.MAX_VALUE);
    }

    /**
     * Copies the first {@code upTo} bytes of log file {@code name} (all of it when shorter), verifying each entry:
     * for the last file of a stopped store, whose end beyond the log's recovered end (a torn write, or the zeros
     * of a prefilled file) JE's recovery cuts off.
     */
    long copyVerified(Environment env, Path storeDirectory, String name, long upTo) {
        Path source = storeDirectory.resolve(name);
        Path destination = directory.resolve(name);
        String simpleName = source.getFileName().toString();
        long copied = 0;
        try {
            Files.createDirectories(destination.getParent());
            written.add(destination);
            try (InputStream in = new LogVerificationInputStream(env, limited(Files.newInputStream(source), upTo),
                    simpleName);
                 FileChannel out = FileChannel.open(destination, StandardOpenOption.CREATE_NEW,
                         StandardOpenOption.WRITE)) {
                byte[] buffer = new byte[BUFFER_BYTES];
                for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                    ByteBuffer chunk = ByteBuffer.wrap(buffer, 0, read);
                    while (chunk.hasRemaining()) {
                        out.write(chunk);
                    }
                    copied += read;
                }
                out.force(true);
            }
        } catch (LogVerificationException e) {
            throw BackupException.failed("log file " + source + " failed verification: " + BackupException.firstLine(e)
                    + " (the store is damaged there; if its broker was killed, start and stop it once, since JE's "
                    + "recovery cuts off a torn end of the log, and back up again)");
        } catch (IOException e) {
            throw BackupException.failed("cannot copy " + source + " to " + destination + ": "
                    + BackupException.firstLine(e));
        }
        return copied;
    }

    private static InputStream limited(InputStream in, long limit) {
        if (limit == Long.MAX_VALUE) {
            return in;
        }
        return new FilterInputStream(in) {
            private long left = limit;

            @Override
            public int read() throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int b = super.read();
                if (b >= 0) {
                    left--;
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int read = super.read(b, off, (int) Math.min(len, left));
                if (read > 0) {
                    left -= read;
                }
                return read;
            }
        };
    }

    /** Writes the manifest (last: its presence marks a complete backup) and forces the directory to disk. */
    void finish(BackupReport report) {
        Path manifest = directory.resolve(BackupReport.MANIFEST);
        try (FileChannel out = FileChannel.open(manifest, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer text = ByteBuffer.wrap((report.describe() + "\nTo restore: copy every *.jdb file of this "
                    + "directory into an empty store directory (a replicated store then needs bin/reset-group; see "
                    + "docs/operations.md).\n").getBytes(StandardCharsets.UTF_8));
            while (text.hasRemaining()) {
                out.write(text);
            }
            out.force(true);
        } catch (IOException e) {
            throw BackupException.failed("cannot write " + manifest + ": " + BackupException.firstLine(e));
        }
        forceDirectory();
    }

    /** Deletes what this backup wrote so far (an attempt JE invalidated, or a failure). */
    void discard() {
        for (Path file : written) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // left behind; the next attempt's CREATE_NEW will say so
            }
        }
        written.clear();
    }

    private void forceDirectory() {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // not every file system lets a directory be forced; the files themselves are
        }
    }
}
