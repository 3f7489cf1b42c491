package org.tandembroker.store.bdbha.channel;

import static org.assertj.core.api.Assertions.assertThat;

import com.sleepycat.je.rep.net.DataChannel;
import com.sleepycat.je.rep.utilint.net.SimpleDataChannel;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A plain replication connection hands JE exactly the bytes the peer sent, in the pieces JE asks for, with one read
 * of the socket for a batch of messages instead of two per message; a non-blocking read is never read ahead.
 */
class ReadAheadChannelTest {
    private ServerSocket listener;
    private Socket peer;
    private SocketChannel socket;
    private final AtomicInteger socketReads = new AtomicInteger();

    @BeforeEach
    void connect() throws Exception {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        socket = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()));
        peer = listener.accept();
    }

    @AfterEach
    void close() throws Exception {
        socket.close();
        peer.close();
        listener.close();
    }

    /** The socket as JE's plain factory gives it, counting the reads that reach it. */
    private DataChannel countingSocket() {
        return new ForwardingDataChannel(new SimpleDataChannel(socket)) {
            @Override
            public long read(ByteBuffer[] destinations, int offset, int length) throws IOException {
                socketReads.incrementAndGet();
                return delegate.read(destinations, offset, length);
            }
        };
    }

    @Test
    void aBatchOfMessagesReadAsHeaderThenBodyComesOutByteExactFromOneSocketRead() throws Exception {
        DataChannel channel = new ReadAheadChannel(countingSocket());
        byte[] batch = new byte[3 * (6 + 100)];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = (byte) i;
        }
        peer.getOutputStream().write(batch);

        ByteBuffer received = ByteBuffer.allocate(batch.length);
        for (int message = 0; message < 3; message++) {
            readFully(channel, received, 6);
            readFully(channel, received, 100);
        }

        assertThat(received.array()).isEqualTo(batch);
        // One read when the whole batch has arrived before the first (the usual case on loopback); unbuffered, 6.
        assertThat(socketReads.get()).as("socket reads for 6 reads by JE").isLessThanOrEqualTo(2);
    }

    @Test
    void aReadGetsWhatIsThereWithoutWaitingToFillTheBufferAndTheEndOfTheStreamFollowsTheLastByte() throws Exception {
        DataChannel channel = new ReadAheadChannel(countingSocket());
        OutputStream toChannel = peer.getOutputStream();
        toChannel.write(new byte[] {1, 2, 3});

        ByteBuffer first = ByteBuffer.allocate(2);
        assertThat(channel.read(first)).isEqualTo(2);
        toChannel.write(new byte[] {4});
        peer.shutdownOutput();

        ByteBuffer rest = ByteBuffer.allocate(16);
        assertThat(channel.read(rest)).as("the byte left from the first read").isEqualTo(1);
        assertThat(channel.read(rest)).isEqualTo(1);
        assertThat(channel.read(rest)).as("end of stream").isEqualTo(-1);
        assertThat(first.array()).containsExactly(1, 2);
        assertThat(rest.flip().limit()).isEqualTo(2);
        assertThat(rest.get(0)).isEqualTo((byte) 3);
        assertThat(rest.get(1)).isEqualTo((byte) 4);
    }

    @Test
    void aNonBlockingReadTakesNoMoreThanItAsksForSoASelectorStillSeesTheRest() throws Exception {
        socket.configureBlocking(false);
        DataChannel channel = new ReadAheadChannel(countingSocket());
        peer.getOutputStream().write(new byte[] {9, 8, 7, 6});

        ByteBuffer two = ByteBuffer.allocate(2);
        while (two.hasRemaining()) {
            channel.read(two);
        }

        socket.configureBlocking(true);
        ByteBuffer rest = ByteBuffer.allocate(2);
        assertThat(socket.read(rest)).as("left on the socket itself").isEqualTo(2);
        assertThat(rest.array()).containsExactly(7, 6);
    }

    @Test
    void aLargeReadGoesStraightToTheSocket() throws Exception {
        DataChannel channel = new ReadAheadChannel(countingSocket());
        peer.getOutputStream().write(new byte[] {5, 5, 5});

        ByteBuffer large = ByteBuffer.allocate(ReadAheadChannel.CAPACITY);
        assertThat(channel.read(large)).isEqualTo(3);
        assertThat(socketReads.get()).isEqualTo(1);
    }

    private static void readFully(DataChannel channel, ByteBuffer into, int count) throws IOException {
        ByteBuffer piece = into.slice(into.position(), count);
        while (piece.hasRemaining()) {
            if (channel.read(piece) < 0) {
                throw new IOException("end of stream");
            }
        }
        into.position(into.position() + count);
    }
}
