package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.sleepycat.je.rep.ReplicationNetworkConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.tandembroker.core.store.replication.GroupMember;

/**
 * A node whose replication port accepts connections but never answers (a process stopped with {@code kill -STOP},
 * a hung JVM: the kernel still completes the TCP handshake) must not block the ping beyond its timeout.
 */
class NodePingTest {

    @Test
    @Timeout(30) // without the bound, JE's DbPing blocks for ever here
    void aPeerThatAcceptsButNeverAnswersFailsThePingWithinItsTimeoutAndItsConnectionIsClosed() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            GroupMember member = new GroupMember("node-a", "127.0.0.1:" + silent.getLocalPort(), "ELECTABLE",
                    Optional.empty());
            long started = System.nanoTime();

            Throwable failure = catchThrowable(() -> NodePing.ping(member, "pair", 1000,
                    ReplicationNetworkConfig.createDefault()));

            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(failure).isInstanceOf(IOException.class)
                    .hasMessageContaining("node node-a (127.0.0.1:" + silent.getLocalPort() + ") did not answer within "
                            + "1000 ms");
            assertThat(took).isLessThan(Duration.ofSeconds(5));
            // The connection the ping opened was accepted by the kernel; the abandoned ping closes it.
            try (Socket accepted = silent.accept()) {
                accepted.setSoTimeout(5000);
                InputStream in = accepted.getInputStream();
                await().atMost(Duration.ofSeconds(10)).until(() -> drainedToEnd(in));
            }
        }
    }

    /** Reads what the ping wrote (JE's service handshake); true at end of stream, when the ping side closed. */
    private static boolean drainedToEnd(InputStream in) throws IOException {
        byte[] buffer = new byte[256];
        return in.read(buffer) < 0;
    }
}
