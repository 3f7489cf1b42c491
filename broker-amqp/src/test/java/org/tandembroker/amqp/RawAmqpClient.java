package org.tandembroker.amqp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Transport;

/**
 * A blocking test client: a socket driven by a Proton-J client transport, for assertions on frames Qpid JMS
 * hides (close conditions, redirect info). Also sends raw bytes. Thread: the test thread only.
 */
final class RawAmqpClient implements AutoCloseable {
    private static final int READ_TIMEOUT_MILLIS = 10_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Transport transport = Transport.Factory.create();
    private final Connection connection = Connection.Factory.create();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private boolean endOfStream;
    private boolean protonDriven;

    private RawAmqpClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** A client that authenticates with PLAIN and opens a connection asking for {@code virtualHost}. */
    static RawAmqpClient opening(int port, String user, String password, String virtualHost) throws IOException {
        RawAmqpClient client = new RawAmqpClient(port);
        Sasl sasl = client.transport.sasl();
        sasl.plain(user, password);
        client.connection.collect(Collector.Factory.create());
        client.connection.setContainer("raw-test-client");
        client.connection.setHostname(virtualHost);
        client.transport.bind(client.connection);
        client.protonDriven = true;
        client.connection.open();
        return client;
    }

    /** A client that only sends the bytes a test gives it. */
    static RawAmqpClient bytesOnly(int port) throws IOException {
        return new RawAmqpClient(port);
    }

    Connection connection() {
        return connection;
    }

    Transport transport() {
        return transport;
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Every byte received so far (bytes-only clients). */
    byte[] received() {
        return received.toByteArray();
    }

    boolean endOfStream() {
        return endOfStream;
    }

    /** Writes what Proton has pending and reads until {@code done} holds or the broker closes the socket. */
    void exchangeUntil(BooleanSupplier done) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        while (!done.getAsBoolean() && !endOfStream) {
            writePending();
            int n;
            try {
                n = in.read(buffer);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the broker sent nothing for " + READ_TIMEOUT_MILLIS + " ms", e);
            } catch (IOException e) {
                n = -1; // reset by the broker
            }
            if (n < 0) {
                endOfStream = true;
                if (protonDriven && transport.capacity() >= 0) {
                    transport.close_tail();
                }
                break;
            }
            received.write(buffer, 0, n);
            feed(buffer, n);
        }
    }

    /** Reads raw bytes until the broker closes the socket. */
    void readUntilClosed() throws IOException {
        exchangeUntil(() -> false);
    }

    boolean remoteOpened() {
        return connection.getRemoteState() != EndpointState.UNINITIALIZED;
    }

    boolean remoteClosed() {
        return connection.getRemoteState() == EndpointState.CLOSED;
    }

    private void writePending() throws IOException {
        if (!protonDriven) {
            return;
        }
        int pending;
        while ((pending = transport.pending()) > 0) {
            ByteBuffer head = transport.head();
            byte[] bytes = new byte[pending];
            head.duplicate().get(bytes);
            transport.pop(pending);
            out.write(bytes);
        }
        out.flush();
    }

    private void feed(byte[] bytes, int length) {
        if (!protonDriven) {
            return;
        }
        int offset = 0;
        while (offset < length && transport.capacity() > 0) {
            ByteBuffer tail = transport.tail();
            int n = Math.min(tail.remaining(), length - offset);
            tail.put(bytes, offset, n);
            offset += n;
            transport.process();
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
