package org.tandembroker.store.bdbha.channel;

import com.sleepycat.je.rep.net.DataChannel;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A plain (not TLS) replication connection whose blocking reads take whatever the socket holds, up to
 * {@value #CAPACITY} bytes, and hand it to JE in the pieces JE asks for.
 *
 * <p>JE reads every replication message with two reads, its 6-byte header and then its body
 * ({@code BinaryProtocol.read}), while the master's feeder writes up to 64 KiB of messages at once. Unbuffered,
 * that is two system calls per log record on the replica (three records per message before inline content, plus
 * the commits), about a tenth of a core at 5,000 messages per second; with the read ahead, one system call takes
 * a whole batch.
 *
 * <p>A blocking read returns as soon as any byte is there, so reading ahead never makes JE wait longer than its own
 * read would. A non-blocking read with nothing buffered passes straight through: JE's service dispatcher reads a
 * new connection's request without blocking and waits on a selector over the socket in between, and bytes held
 * here would be invisible to that selector. A read that wants at least {@value #CAPACITY} bytes also passes
 * through. TLS channels buffer the decrypted stream themselves and are not wrapped.
 *
 * <p><b>Threads.</b> One JE thread reads a connection at a time (a stream has one reader), as for the channel
 * underneath; the buffer is that reader's.
 */
final class ReadAheadChannel extends ForwardingDataChannel {
    static final int CAPACITY = 64 * 1024;

    /** Bytes read and not yet handed out: from position to limit. */
    private final ByteBuffer ahead = ByteBuffer.allocate(CAPACITY).limit(0);
    private final ByteBuffer[] aheadAsArray = {ahead};

    ReadAheadChannel(DataChannel delegate) {
        super(delegate);
    }

    @Override
    public long read(ByteBuffer[] destinations, int offset, int length) throws IOException {
        if (!ahead.hasRemaining()) {
            if (!delegate.isBlocking() || wanted(destinations, offset, length) >= CAPACITY) {
                return delegate.read(destinations, offset, length);
            }
            ahead.clear();
            long read;
            try {
                read = delegate.read(aheadAsArray, 0, 1);
            } finally {
                ahead.flip();
            }
            if (read <= 0) {
                return read;
            }
        }
        return handOut(destinations, offset, length);
    }

    private long handOut(ByteBuffer[] destinations, int offset, int length) {
        long moved = 0;
        for (int i = offset; i < offset + length && ahead.hasRemaining(); i++) {
            ByteBuffer destination = destinations[i];
            int count = Math.min(destination.remaining(), ahead.remaining());
            if (count > 0) {
                int limit = ahead.limit();
                ahead.limit(ahead.position() + count);
                destination.put(ahead);
                ahead.limit(limit);
                moved += count;
            }
        }
        return moved;
    }

    private static long wanted(ByteBuffer[] destinations, int offset, int length) {
        long wanted = 0;
        for (int i = offset; i < offset + length; i++) {
            wanted += destinations[i].remaining();
        }
        return wanted;
    }
}
