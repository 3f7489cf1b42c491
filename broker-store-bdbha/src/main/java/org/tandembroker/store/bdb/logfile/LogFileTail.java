package org.tandembroker.store.bdb.logfile;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One prefilled log file while zeros follow what JE wrote: how far JE wrote ({@link #end()}), and the cut that
 * ends the zeros. Every handle JE has on the file shares this object.
 *
 * <p>Threads: JE writes under its own locks; {@link #wrote} and {@link #cut} are synchronized on this object, so
 * a cut never removes bytes a write has just put beyond the length it read.
 */
final class LogFileTail {
    private final Path file;
    private final long number;
    private volatile long end;
    private volatile boolean zerosFollow = true;

    LogFileTail(Path file, long number) {
        this.file = file;
        this.number = number;
    }

    Path file() {
        return file;
    }

    long number() {
        return number;
    }

    /** True until {@link #cut}: the file holds zeros after {@link #end()}. */
    boolean zerosFollow() {
        return zerosFollow;
    }

    /** How far JE wrote: the length JE's handles see while zeros follow. */
    long end() {
        return end;
    }

    /** A write ended at {@code position}; the caller holds this object's monitor around its write. */
    void wrote(long position) {
        if (position > end) {
            end = position;
        }
    }

    /** Cuts the file to what JE wrote and fsyncs the cut; later calls do nothing. */
    synchronized void cut() throws IOException {
        if (!zerosFollow) {
            return;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(end);
            channel.force(true);
        } catch (NoSuchFileException gone) {
            // JE deleted or renamed it: nothing to cut
        }
        zerosFollow = false;
    }
}
