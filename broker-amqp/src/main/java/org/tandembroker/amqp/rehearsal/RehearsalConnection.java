package org.tandembroker.amqp.rehearsal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Session;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.message.Message;
import org.tandembroker.amqp.rehearsal.AmqpRehearsalClient.Tally;

/**
 * One warm-up connection: a Proton-J engine on a blocking socket, driven by the thread that calls
 * {@link #publish} or {@link #consume} (and owned by it). Reads wait at most {@link #READ_WAIT_MILLIS}, so that the
 * loop can look at its stop condition; no byte from the broker for {@link #STALL} fails the connection.
 */
final class RehearsalConnection {
    static final Duration STALL = Duration.ofSeconds(30);
    /** Unsettled messages of an asynchronous publisher: a few commits in flight per connection. */
    static final int IN_FLIGHT = 4;
    static final int CREDIT = 200;
    static final int BODY_BYTES = 1024;
    private static final int READ_WAIT_MILLIS = 100;
    private static final long CLOSE_WAIT_MILLIS = 2_000;
    private static final byte[] BODY = body();
    private static final Symbol JMS_MSG_TYPE = Symbol.valueOf("x-opt-jms-msg-type");
    private static final Symbol JMS_DEST = Symbol.valueOf("x-opt-jms-dest");

    private final String name;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Transport transport = Transport.Factory.create();
    private final Connection connection = Connection.Factory.create();
    private final Collector collector = Collector.Factory.create();
    private final byte[] readBuffer = new byte[64 * 1024];
    private byte[] writeBuffer = new byte[16 * 1024];
    private long lastReadNanos = System.nanoTime();

    RehearsalConnection(InetSocketAddress address, String virtualHost, String name) throws IOException {
        this.name = name;
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(address, (int) STALL.toMillis());
        socket.setSoTimeout(READ_WAIT_MILLIS);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        Sasl sasl = transport.sasl();
        sasl.client();
        sasl.setMechanisms("ANONYMOUS");
        connection.collect(collector);
        connection.setContainer("tandem-warm-up-" + name);
        connection.setHostname(virtualHost);
        transport.bind(connection);
        connection.open();
    }

    /**
     * Sends persistent messages to {@code queue} while {@code keepGoing} says so, at most {@code inFlight}
     * unsettled; counts each accepted one in {@code tally}; then waits for the outcomes still due and closes.
     *
     * @return messages the broker accepted
     */
    long publish(String queue, int inFlight, BooleanSupplier keepGoing, Tally tally) throws Exception {
        Exception failure = null;
        try {
            Session session = connection.session();
            session.open();
            Sender sender = session.sender(name);
            Target target = new Target();
            target.setAddress(queue);
            sender.setTarget(target);
            sender.setSource(new Source());
            sender.setSenderSettleMode(SenderSettleMode.UNSETTLED);
            sender.open();
            byte[] encoded = new byte[BODY_BYTES + 1024];
            long sequence = 0;
            long accepted = 0;
            int unsettled = 0;
            boolean sending = true;
            while (sending || unsettled > 0) {
                sending = sending && keepGoing.getAsBoolean();
                while (sending && unsettled < inFlight && sender.getCredit() > 0) {
                    sender.delivery(Long.toString(sequence).getBytes(StandardCharsets.US_ASCII));
                    int length = message(queue, sequence++).encode(encoded, 0, encoded.length);
                    sender.send(encoded, 0, length);
                    sender.advance();
                    unsettled++;
                }
                pump();
                for (Event event = collector.peek(); event != null; event = collector.peek()) {
                    if (event.getType() == Event.Type.DELIVERY && event.getLink() == sender) {
                        Delivery delivery = event.getDelivery();
                        DeliveryState outcome = delivery.getRemoteState();
                        if (!delivery.isSettled() && (outcome != null || delivery.remotelySettled())) {
                            if (!(outcome instanceof Accepted)) {
                                throw new IllegalStateException(name + ": the broker did not accept a message: "
                                        + outcome);
                            }
                            delivery.settle();
                            unsettled--;
                            accepted++;
                            tally.accepted();
                        }
                    }
                    collector.pop();
                }
                requireOpen(sender);
            }
            close();
            return accepted;
        } catch (Exception e) {
            failure = e;
            throw e;
        } finally {
            tally.publisherFinished(failure);
            socket.close();
        }
    }

    /**
     * Takes messages from {@code queue}, accepting each, until every publisher has finished and every message they
     * had accepted was received (by this consumer or another); then closes.
     *
     * @return messages this consumer received
     */
    long consume(String queue, Tally tally) throws Exception {
        try {
            Session session = connection.session();
            session.open();
            Receiver receiver = session.receiver(name);
            Source source = new Source();
            source.setAddress(queue);
            receiver.setSource(source);
            receiver.setTarget(new Target());
            receiver.open();
            receiver.flow(CREDIT);
            byte[] encoded = new byte[BODY_BYTES + 1024];
            long received = 0;
            while (!tally.consumersDone()) {
                pump();
                for (Delivery delivery = receiver.current(); delivery != null && !delivery.isPartial();
                     delivery = receiver.current()) {
                    int length = delivery.pending();
                    if (length > encoded.length) {
                        encoded = new byte[length];
                    }
                    int read = receiver.recv(encoded, 0, length);
                    Message.Factory.create().decode(encoded, 0, read);
                    delivery.disposition(Accepted.getInstance());
                    receiver.advance(); // before settle(): settling the current delivery would advance past the next
                    delivery.settle();
                    received++;
                    tally.received();
                }
                if (receiver.getCredit() < CREDIT / 2) {
                    receiver.flow(CREDIT - receiver.getCredit());
                }
                for (Event event = collector.peek(); event != null; event = collector.peek()) {
                    collector.pop();
                }
                requireOpen(receiver);
            }
            close();
            return received;
        } finally {
            socket.close();
        }
    }

    /** Writes what the engine has, then reads what arrives within {@link #READ_WAIT_MILLIS} into the engine. */
    private void pump() throws IOException {
        writePending();
        int n;
        try {
            n = in.read(readBuffer);
        } catch (SocketTimeoutException e) {
            if (System.nanoTime() - lastReadNanos > STALL.toNanos()) {
                throw new IOException(name + ": nothing from the broker for " + STALL.toSeconds() + " s");
            }
            return;
        }
        if (n < 0) {
            throw new IOException(name + ": the broker closed the connection"
                    + (connection.getRemoteCondition() == null || connection.getRemoteCondition().getCondition() == null
                    ? "" : ": " + connection.getRemoteCondition()));
        }
        lastReadNanos = System.nanoTime();
        int offset = 0;
        while (offset < n) {
            int capacity = transport.capacity();
            if (capacity <= 0) {
                throw new IOException(name + ": the engine takes no more input (connection ended: "
                        + connection.getRemoteCondition() + ")");
            }
            ByteBuffer tail = transport.tail();
            int chunk = Math.min(tail.remaining(), n - offset);
            tail.put(readBuffer, offset, chunk);
            transport.process();
            offset += chunk;
        }
    }

    private void writePending() throws IOException {
        int pending;
        while ((pending = transport.pending()) > 0) {
            if (pending > writeBuffer.length) {
                writeBuffer = new byte[Math.max(pending, 2 * writeBuffer.length)];
            }
            transport.head().duplicate().get(writeBuffer, 0, pending);
            out.write(writeBuffer, 0, pending);
            transport.pop(pending);
        }
    }

    private void requireOpen(Link link) {
        if (connection.getRemoteState() == EndpointState.CLOSED) {
            throw new IllegalStateException(name + ": the broker closed the connection: "
                    + connection.getRemoteCondition());
        }
        if (link.getRemoteState() == EndpointState.CLOSED) {
            throw new IllegalStateException(name + ": the broker closed the link: " + link.getRemoteCondition());
        }
    }

    /**
     * Closes the connection and waits briefly for the broker's close, so that it ends as a client's does; the
     * broker ending the socket then is part of a close.
     */
    private void close() {
        connection.close();
        long deadline = System.nanoTime() + CLOSE_WAIT_MILLIS * 1_000_000;
        try {
            while (connection.getRemoteState() != EndpointState.CLOSED && System.nanoTime() < deadline) {
                pump();
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** A persistent message as Qpid JMS sends a {@code BytesMessage}, with one application property. */
    private Message message(String queue, long sequence) {
        Message message = Message.Factory.create();
        message.setDurable(true);
        message.setMessageAnnotations(new MessageAnnotations(Map.<Symbol, Object>of(JMS_MSG_TYPE, (byte) 3, JMS_DEST, (byte) 0)));
        message.setMessageId("ID:" + name + ":" + sequence);
        message.setAddress(queue);
        message.setCreationTime(System.currentTimeMillis());
        message.setContentType("application/octet-stream");
        message.setApplicationProperties(new ApplicationProperties(Map.<String, Object>of("sequence", sequence)));
        message.setBody(new Data(new Binary(BODY)));
        return message;
    }

    private static byte[] body() {
        byte[] body = new byte[BODY_BYTES];
        Arrays.fill(body, (byte) 'w');
        return body;
    }
}
