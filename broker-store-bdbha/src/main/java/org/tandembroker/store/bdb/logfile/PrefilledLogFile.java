package org.tandembroker.store.bdb.logfile;

import com.sleepycat.je.log.FileManager;
import java.io.FileNotFoundException;
import java.io.IOException;

/**
 * A handle JE holds on a prefilled log file: while zeros follow what JE wrote, its length is what JE wrote and a
 * read stops there, as at the end of a file of that length; every write records how far it reached. Closing a
 * writable handle cuts the zeros (JE closes it when it leaves the file or closes the store).
 *
 * <p>Threads: JE synchronizes on the handle around seek and read or write; a write also holds the tail's monitor,
 * so that a cut on another thread waits for it.
 */
final class PrefilledLogFile extends FileManager.DefaultRandomAccessFile {
    private final LogFileTail tail;
    private final boolean writable;

    PrefilledLogFile(String fullName, String mode, LogFileTail tail) throws FileNotFoundException {
        super(fullName, mode);
        this.tail = tail;
        this.writable = mode.startsWith("rw");
    }

    @Override
    public synchronized long length() throws IOException {
        return tail.zerosFollow() ? tail.end() : super.length();
    }

    @Override
    public void write(int b) throws IOException {
        synchronized (tail) {
            super.write(b);
            tail.wrote(getFilePointer());
        }
    }

    @Override
    public void write(byte[] b) throws IOException {
        write(b, 0, b.length);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        synchronized (tail) {
            super.write(b, off, len);
            tail.wrote(getFilePointer());
        }
    }

    @Override
    public int read() throws IOException {
        if (tail.zerosFollow() && getFilePointer() >= tail.end()) {
            return -1;
        }
        return super.read();
    }

    @Override
    public int read(byte[] b) throws IOException {
        return read(b, 0, b.length);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len > 0 && tail.zerosFollow()) {
            long left = tail.end() - getFilePointer();
            if (left <= 0) {
                return -1;
            }
            if (len > left) {
                len = (int) left;
            }
        }
        return super.read(b, off, len);
    }

    @Override
    public void close() throws IOException {
        try {
            if (writable) {
                tail.cut();
            }
        } finally {
            super.close();
        }
    }
}
