package org.tandembroker.amqp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Session;
import org.apache.qpid.proton.engine.Transport;

/**
 * A Proton-J client on a non-blocking socket, driven by {@link #poll}: many of them share one test thread (a
 * thousand connections need no thousand threads). It authenticates with PLAIN, opens a connection with an idle
 * timeout (so both sides send heartbeats), a session and a receiving link, and can stop reading its socket to
 * play a consumer that never reads.
 *
 * <p>Thread: the test thread that polls it.
 */
final class PolledAmqpClient implements AutoCloseable {
    private final SocketChannel socket;
    private final Transport transport = Transport.Factory.create();
    private final Connection connection = Connection.Factory.create();
    private final Receiver receiver;
    private final ByteBuffer readBuffer = ByteBuffer.allocate(16 * 1024);
    private boolean reading = true;
    private boolean socketEnded;
    private int received;

    PolledAmqpClient(int port, String user, String password, String virtualHost, String queue, int credit,
                     int idleTimeoutMillis, int receiveBufferBytes) throws IOException {
        socket = SocketChannel.open();
        if (receiveBufferBytes > 0) {
            socket.setOption(StandardSocketOptions.SO_RCVBUF, receiveBufferBytes);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port));
        socket.configureBlocking(false);
        Sasl sasl = transport.sasl();
        sasl.plain(user, password);
        transport.setIdleTimeout(idleTimeoutMillis);
        connection.collect(Collector.Factory.create());
        connection.setContainer("polled-" + socket.getLocalAddress());
        connection.setHostname(virtualHost);
        transport.bind(connection);
        connection.open();
        Session session = connection.session();
        session.open();
        receiver = session.receiver("abuse-" + System.identityHashCode(this));
        Source source = new Source();
        source.setAddress(queue);
        receiver.setSource(source);
        receiver.setTarget(new Target());
        receiver.open();
        receiver.flow(credit);
    }

    /** Heartbeats, writes what Proton has, reads what arrived (unless stopped); never blocks. */
    void poll(long nowMillis) throws IOException {
        if (socketEnded) {
            return;
        }
        transport.tick(nowMillis);
        int pending;
        while ((pending = transport.pending()) > 0) {
            ByteBuffer out = transport.head().duplicate();
            out.limit(out.position() + pending);
            int written = socket.write(out);
            transport.pop(written);
            if (written < pending) {
                break;
            }
        }
        if (!reading) {
            return;
        }
        while (true) {
            readBuffer.clear();
            int n;
            try {
                n = socket.read(readBuffer);
            } catch (IOException e) {
                n = -1;
            }
            if (n < 0) {
                socketEnded = true;
                if (transport.capacity() >= 0) {
                    transport.close_tail();
                }
                return;
            }
            if (n == 0) {
                break;
            }
            readBuffer.flip();
            while (readBuffer.hasRemaining() && transport.capacity() > 0) {
                ByteBuffer tail = transport.tail();
                int chunk = Math.min(tail.remaining(), readBuffer.remaining());
                ByteBuffer slice = readBuffer.slice();
                slice.limit(chunk);
                tail.put(slice);
                readBuffer.position(readBuffer.position() + chunk);
                transport.process();
            }
        }
        for (Delivery delivery = receiver.current(); delivery != null && !delivery.isPartial(); delivery = receiver.current()) {
            byte[] skip = new byte[delivery.pending()];
            receiver.recv(skip, 0, skip.length);
            receiver.advance();
            received++;
        }
    }

    void stopReading() {
        reading = false;
    }

    void resumeReading() {
        reading = true;
    }

    /** The link is attached on both sides: the broker served the connection, session and link. */
    boolean attached() {
        return receiver.getRemoteState() == EndpointState.ACTIVE;
    }

    boolean remoteClosed() {
        return connection.getRemoteState() == EndpointState.CLOSED || socketEnded;
    }

    Connection connection() {
        return connection;
    }

    int received() {
        return received;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
