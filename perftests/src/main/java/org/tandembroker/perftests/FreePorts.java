package org.tandembroker.perftests;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Loopback ports for the brokers a benchmark starts: each free when handed out, and never handed out twice by this
 * JVM. The kernel may give the same ephemeral port to two sockets opened and closed one after the other, and a node
 * whose AMQP and JMX ports came out equal refused to start (a backlog run on 29 Nov 2026).
 */
final class FreePorts {
    private static final int ATTEMPTS = 1000;
    private static final FreePorts SHARED = new FreePorts(FreePorts::ephemeralPort);

    /** Where candidate ports come from. */
    interface PortSource {
        int port() throws IOException;
    }

    private final PortSource source;
    private final Set<Integer> handedOut = ConcurrentHashMap.newKeySet();

    FreePorts(PortSource source) {
        this.source = source;
    }

    /** A loopback port that was free a moment ago and that no earlier call in this JVM returned. */
    static int next() throws IOException {
        return SHARED.take();
    }

    /** The next candidate from the source that this instance has not handed out before. */
    int take() throws IOException {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = source.port();
            if (handedOut.add(port)) {
                return port;
            }
        }
        throw new IOException("no free port found in " + ATTEMPTS + " attempts that was not handed out before");
    }

    private static int ephemeralPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
