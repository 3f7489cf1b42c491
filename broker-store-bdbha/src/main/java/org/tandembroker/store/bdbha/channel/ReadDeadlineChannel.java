package org.tandembroker.store.bdbha.channel;

import com.sleepycat.je.rep.net.DataChannel;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A replication connection that JE opened with a read timeout, with the timeout made real: a blocking read that has
 * not returned after {@code readTimeoutMillis} closes the connection and fails with a
 * {@link SocketTimeoutException}.
 *
 * <p>JE asks for read timeouts on its short request/answer connections (elections, "who is master", "is the
 * master alive", group administration, DbPing, network restore) with {@code Socket.setSoTimeout}, which a blocking
 * NIO channel ignores (JE's own {@code RepImpl} says so). A peer whose kernel still accepts connections but whose
 * process answers nothing (a paused container, a hung JVM, a machine swapping to death) then held the asking
 * thread forever. The arbiter was caught that way: after a silent master was given up, it asked the old master
 * whether it was still alive and waited until that master resumed, so the new master had no quorum for as long
 * as the old one stayed frozen (docs/reliability.md, finding 5).
 *
 * <p>JE's replication streams (feeder and replica) are opened without a read timeout (they time out on their own
 * heartbeats) and are never wrapped.
 *
 * <p><b>Threads.</b> One JE thread reads at a time; the deadline runs on a shared daemon timer thread, which only
 * marks the read as expired and closes the socket (that unblocks the reader).
 */
final class ReadDeadlineChannel extends ForwardingDataChannel {
    private static final ScheduledThreadPoolExecutor DEADLINES = deadlineTimer();

    private final int readTimeoutMillis;
    private final String peer;
    private volatile boolean expired;

    private ReadDeadlineChannel(DataChannel delegate, int readTimeoutMillis, String peer) {
        super(delegate);
        this.readTimeoutMillis = readTimeoutMillis;
        this.peer = peer;
    }

    /** {@code channel} with its reads bounded by {@code readTimeoutMillis}; unchanged when that is 0 (none). */
    static DataChannel bound(DataChannel channel, int readTimeoutMillis, String peer) {
        return readTimeoutMillis > 0 ? new ReadDeadlineChannel(channel, readTimeoutMillis, peer) : channel;
    }

    private static ScheduledThreadPoolExecutor deadlineTimer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "replication-read-deadline");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    @Override
    public long read(ByteBuffer[] destinations, int offset, int length) throws IOException {
        if (!delegate.isBlocking()) {
            return delegate.read(destinations, offset, length);
        }
        if (expired) {
            throw timedOut();
        }
        ScheduledFuture<?> deadline = DEADLINES.schedule(this::expire, readTimeoutMillis, TimeUnit.MILLISECONDS);
        try {
            return delegate.read(destinations, offset, length);
        } catch (IOException e) {
            if (expired) {
                SocketTimeoutException timeout = timedOut();
                timeout.addSuppressed(e);
                throw timeout;
            }
            throw e;
        } finally {
            deadline.cancel(false);
        }
    }

    private void expire() {
        expired = true;
        try {
            delegate.getSocketChannel().close(); // unblocks the reader
        } catch (IOException | RuntimeException e) {
            // closing is all that is left to do; the reader fails either way
        }
    }

    private SocketTimeoutException timedOut() {
        return new SocketTimeoutException("no answer from " + peer + " within the read timeout of "
                + readTimeoutMillis + " ms; the connection is closed");
    }
}
