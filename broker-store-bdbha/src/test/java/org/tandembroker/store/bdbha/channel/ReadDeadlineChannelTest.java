package org.tandembroker.store.bdbha.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sleepycat.je.rep.net.DataChannel;
import com.sleepycat.je.rep.net.DataChannelFactory.ConnectOptions;
import com.sleepycat.je.rep.utilint.net.SimpleChannelFactory;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replication connection opened with a read timeout fails a read that gets no answer, instead of blocking as JE's
 * blocking NIO channels do (they ignore {@code Socket.setSoTimeout}): the peer here accepts the connection (as the
 * kernel of a paused container or a hung process does) and never writes.
 */
class ReadDeadlineChannelTest {
    /** Guards the test against the defect itself (a read that never returns); not a speed target. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(20);

    private ServerSocket silentPeer;
    private Socket accepted;

    @BeforeEach
    void listen() throws Exception {
        silentPeer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void close() throws Exception {
        if (accepted != null) {
            accepted.close();
        }
        silentPeer.close();
    }

    @Test
    void aReadThatGetsNoAnswerWithinTheReadTimeoutFailsAndClosesTheConnection() throws Exception {
        DataChannel channel = connect(300);

        assertTimeoutPreemptively(HANG_GUARD, () -> {
            assertThatThrownBy(() -> channel.read(ByteBuffer.allocate(16)))
                    .isInstanceOf(SocketTimeoutException.class)
                    .hasMessageContaining("within the read timeout of 300 ms");
        });
        assertThat(channel.isOpen()).as("the connection is closed").isFalse();
        assertThatThrownBy(() -> channel.read(ByteBuffer.allocate(16))).isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void answersWithinTheReadTimeoutAreReadAndTheConnectionStaysUsableAfterIt() throws Exception {
        DataChannel channel = connect(300);
        Socket peer = accept();
        OutputStream toChannel = peer.getOutputStream();

        toChannel.write(new byte[] {1, 2, 3});
        ByteBuffer first = ByteBuffer.allocate(16);
        int read = assertTimeoutPreemptively(HANG_GUARD, () -> channel.read(first));
        assertThat(read).isEqualTo(3);

        Thread.sleep(600); // twice the read timeout with no read pending: nothing may expire meanwhile
        toChannel.write(new byte[] {4});
        ByteBuffer second = ByteBuffer.allocate(16);
        assertThat(assertTimeoutPreemptively(HANG_GUARD, () -> channel.read(second))).isEqualTo(1);
        assertThat(second.get(0)).isEqualTo((byte) 4);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aConnectionWithoutReadTimeoutIsNotWrapped() throws Exception {
        DataChannel plain = new SimpleChannelFactory().connect(address(), null, new ConnectOptions());
        try {
            assertThat(ReadDeadlineChannel.bound(plain, 0, "peer")).isSameAs(plain);
        } finally {
            plain.close();
        }
    }

    private DataChannel connect(int readTimeoutMillis) throws Exception {
        DataChannel channel = new SimpleChannelFactory().connect(address(), null,
                new ConnectOptions().setOpenTimeout(5000).setReadTimeout(readTimeoutMillis));
        return ReadDeadlineChannel.bound(channel, readTimeoutMillis, "the silent peer");
    }

    private Socket accept() throws Exception {
        accepted = silentPeer.accept();
        return accepted;
    }

    private InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), silentPeer.getLocalPort());
    }
}
