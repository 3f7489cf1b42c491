package org.tandembroker.amqp;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.engine.TransportException;
import org.apache.qpid.proton.engine.impl.TransportImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.security.AuthFailure;
import org.tandembroker.core.security.SecurityStatistics;

/**
 * Drives one connection's Proton-J {@link Transport}: bytes read from the socket go into the transport and are
 * processed; the resulting Proton events are dispatched; whatever the transport has to send is written. When
 * Proton closes its output (our close frame is out, or a fatal error) the socket is closed after the write.
 *
 * <p>Buffers: a {@link ByteBuf} read from the pipeline is copied into Proton's input buffer and released here;
 * output is copied from Proton's output buffer into new buffers whose ownership passes to the channel on write.
 *
 * <p>Back-pressure: output is written only while the channel is writable (its outbound bytes below Netty's high
 * water mark); the rest waits in Proton, and links pull no more deliveries from the core
 * ({@link AmqpConnection#writable()}), so a client that does not read its socket holds at most a water mark of
 * bytes here and a window of deliveries per link. {@link #channelWritabilityChanged} resumes both.
 *
 * <p>Errors: anything thrown while handling this connection is logged once (CON-1005) and closes this
 * connection only, with {@code amqp:internal-error} when a close frame can still be sent.
 *
 * <p>Thread: everything here runs on the channel's event loop and owns the transport, the Proton connection and
 * the {@link AmqpConnection}; {@link #execute} is the only entry from other threads.
 */
final class AmqpConnectionHandler extends ChannelInboundHandlerAdapter
        implements ConnectionExecutor, SaslAuthenticatorBridge.Outcome {
    private static final Logger LOG = LoggerFactory.getLogger(AmqpConnectionHandler.class);
    /** Sessions per connection; Proton negotiates the smaller of this and the peer's channel-max. */
    private static final int CHANNEL_MAX = 1023;
    /** Output is copied to the socket in pieces of at most this, so that writability is checked between them. */
    private static final int OUTPUT_CHUNK = 64 * 1024;
    /** How long a refused or closed connection waits for the client to close its side (see closeAfterFlush). */
    static final long CLOSE_LINGER_MILLIS = 2_000;

    private final FrontEndResources resources;
    private final ListenerSecurity listenerSecurity;
    private final Transport transport = Transport.Factory.create();
    private final Connection protonConnection = Connection.Factory.create();
    private final Collector collector = Collector.Factory.create();

    private ChannelHandlerContext ctx;
    private AmqpConnection connection;
    private ProtonEventDispatcher dispatcher;
    private IdleTimeoutTicker ticker;
    private SaslAuthenticatorBridge saslBridge;
    private boolean saslEnded;
    private boolean inputStarted;
    private boolean inputClosed;
    private boolean closing;
    private boolean pumpScheduled;
    private boolean ended;

    AmqpConnectionHandler(FrontEndResources resources, ListenerSecurity listenerSecurity) {
        this.resources = resources;
        this.listenerSecurity = listenerSecurity;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        boolean withinLimit = resources.liveConnections().add(this);
        SocketAddress remote = ctx.channel().remoteAddress();

        transport.setMaxFrameSize(resources.limits().maxFrameSize()); // before sasl(): it sizes the frame parser
        transport.setChannelMax(CHANNEL_MAX);
        transport.setIdleTimeout((int) Math.min(Integer.MAX_VALUE, resources.limits().idleTimeout().toMillis()));
        transport.setEmitFlowEventOnSend(false);
        ((TransportImpl) transport).setProtocolTracer(new IncomingFrameGuard());
        Sasl sasl = transport.sasl();
        sasl.server();
        sasl.allowSkip(false);
        saslBridge = new SaslAuthenticatorBridge(resources, this, remote, this::certificateUser, this);
        sasl.setListener(saslBridge); // the mechanisms are chosen once the first bytes arrive (TLS is done then)

        protonConnection.collect(collector);
        transport.bind(protonConnection);
        connection = new AmqpConnection(resources, this, protonConnection, String.valueOf(remote), withinLimit,
                () -> ticker.restart(), ctx.channel()::isWritable);
        dispatcher = new ProtonEventDispatcher(collector, connection);
        ticker = new IdleTimeoutTicker(transport, ctx.executor(), this::pump);
        ticker.start();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (!inputClosed) {
                if (!inputStarted) {
                    inputStarted = true;
                    saslBridge.offer(transport.sasl(), SaslMechanisms.offered(listenerSecurity.tls(),
                            ctx.channel().remoteAddress(), certificateUser().isPresent(),
                            resources.security().allowPlainWithoutTls(), resources.authenticator().anonymousEnabled()));
                }
                feed(in);
            }
        } catch (RuntimeException e) {
            fail(e);
            return;
        } finally {
            in.release();
        }
        pump();
        if (inputClosed) {
            closeAfterFlush(); // Proton reads no more: whatever it had to say has just been written
        }
    }

    private void feed(ByteBuf in) {
        while (in.isReadable()) {
            int capacity = transport.capacity();
            if (capacity < 0) {
                inputClosed = true;
                return; // Proton stopped reading (closed or failed): the rest is dropped
            }
            if (capacity == 0) {
                // process() always drains the input buffer; never drop bytes silently if that ever changes
                throw new IllegalStateException("Proton accepts no input although it is not closed");
            }
            ByteBuffer tail = transport.tail();
            int n = Math.min(capacity, in.readableBytes());
            ByteBuffer slice = tail.duplicate();
            slice.limit(slice.position() + n);
            in.readBytes(slice);
            tail.position(slice.position());
            try {
                transport.process();
            } catch (IncomingFrameGuard.Refused e) {
                resources.log().log(LogCode.CON_1005, connection.describe(), e.getMessage());
                inputClosed = true;
                connection.close(e.condition(), "protocol error: " + e.getMessage());
                return;
            } catch (TransportException e) {
                // an error in the SASL layer; AMQP-layer errors arrive as TRANSPORT_ERROR events instead
                resources.log().log(LogCode.CON_1005, connection.describe(), e.getMessage());
                inputClosed = true;
                return;
            } catch (RuntimeException | StackOverflowError e) {
                // Proton lets some decoding failures escape (e.g. a truncated list; values nested so deep that its
                // recursive decoder runs out of stack): the peer's bytes are malformed
                resources.log().log(LogCode.CON_1005, connection.describe(), "undecodable frame: " + e);
                inputClosed = true;
                connection.close(ErrorConditions.condition(AmqpError.DECODE_ERROR, "undecodable frame: " + e),
                        "protocol error: undecodable frame");
                return;
            }
        }
    }

    /** Dispatches pending Proton events and writes pending output. */
    private void pump() {
        assert inEventLoop() : "Proton work off the event loop, on " + Thread.currentThread().getName();
        if (ended) {
            return;
        }
        try {
            dispatcher.dispatchAll();
            flushOutput();
        } catch (RuntimeException | StackOverflowError e) {
            fail(e); // a stack overflow here comes from decoding a client's deeply nested message sections
        }
    }

    private void flushOutput() {
        if (!inputStarted) {
            // never speak first: a peer that sends a wrong header gets exactly one header back (from the guard);
            // a silent peer is closed when Proton gives up on it (idle timeout)
            if (transport.capacity() < 0 || transport.pending() < 0) {
                closeAfterFlush();
            }
            return;
        }
        boolean wrote = false;
        int pending;
        // While the socket is unwritable the rest stays in Proton; channelWritabilityChanged resumes
        while ((pending = transport.pending()) > 0 && ctx.channel().isWritable()) {
            ctx.write(takeOutput(OUTPUT_CHUNK));
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        if (pending < 0) {
            closeAfterFlush();
        }
    }

    /**
     * Copies out and pops the transport's output, at most {@code limit} bytes, popping exactly what was copied.
     * Not {@code pending()}'s earlier answer: {@code head()} asks the transport for more output first, so it can
     * hold more bytes than that; popping less than was copied would send the surplus twice (clients then see
     * repeated delivery-ids).
     */
    private ByteBuf takeOutput(int limit) {
        ByteBuffer head = transport.head().duplicate();
        int size = Math.min(limit, head.remaining());
        head.limit(head.position() + size);
        ByteBuf out = ctx.alloc().ioBuffer(size);
        out.writeBytes(head);
        transport.pop(size);
        return out;
    }

    /**
     * Ends the connection after our last bytes (a close frame, a SASL outcome). The socket is not closed at once:
     * closing a socket that still has unread input makes TCP send a reset, which can destroy our close frame before
     * the client reads it (a client that was still sending when it was refused would never learn why). As the
     * spec suggests, we keep reading (and discarding) until the client closes its side, or at most
     * {@link #CLOSE_LINGER_MILLIS}.
     */
    private void closeAfterFlush() {
        if (!closing) {
            closing = true;
            inputClosed = true;
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
                if (!written.isSuccess()) {
                    ctx.close();
                }
            });
            ctx.executor().schedule(() -> {
                ctx.close();
            }, CLOSE_LINGER_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** One bad connection must not disturb the others: log once, try to tell the client, close. */
    private void fail(Throwable e) {
        if (closing) {
            return;
        }
        LOG.debug("Failure on connection {}", connection == null ? ctx.channel() : connection.describe(), e);
        resources.log().log(LogCode.CON_1005, connection == null ? String.valueOf(ctx.channel().remoteAddress())
                : connection.describe(), "internal error: " + e);
        try {
            if (connection != null) {
                connection.closeOnInternalError(e);
                flushOutput();
            }
        } catch (RuntimeException again) {
            LOG.debug("Could not send the close frame", again);
        }
        closeAfterFlush();
    }

    // ---- ConnectionExecutor

    @Override
    public boolean execute(Runnable task) {
        try {
            ctx.executor().execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    fail(e);
                    return;
                }
                schedulePump();
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    @Override
    public boolean schedule(Runnable task, java.time.Duration delay) {
        try {
            ctx.executor().schedule(() -> execute(task), delay.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** The user named by the client's verified TLS certificate, when the listener asks for certificates. */
    private java.util.Optional<String> certificateUser() {
        if (listenerSecurity.certificateUserName().isEmpty()) {
            return java.util.Optional.empty();
        }
        io.netty.handler.ssl.SslHandler tls = ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
        if (tls == null) {
            return java.util.Optional.empty();
        }
        return CertificateUser.of(tls.engine().getSession(), listenerSecurity.certificateUserName().get());
    }

    @Override
    public boolean inEventLoop() {
        return ctx == null || ctx.executor().inEventLoop();
    }

    /** Coalesces the pumps of many hand-offs (a burst of deliveries) into one write and flush. */
    private void schedulePump() {
        if (!pumpScheduled && !ended) {
            pumpScheduled = true;
            ctx.executor().execute(() -> {
                pumpScheduled = false;
                pump();
            });
        }
    }

    // ---- SASL outcome (event loop)

    @Override
    public void authenticated(String user) {
        saslEnded = true;
        if (!ended) {
            connection.authenticated(user);
        }
    }

    @Override
    public void authenticationFailed(String reason) {
        saslEnded = true;
        resources.log().log(LogCode.CON_1004, connection.describe(), reason);
        resources.statistics().connectionRefused(SecurityStatistics.RefusalReason.AUTHENTICATION);
        if (ended) {
            return;
        }
        // write the SASL outcome only (not the AMQP header Proton would add next), then close
        inputClosed = true;
        int pending = transport.pending();
        if (pending > 0) {
            ctx.write(takeOutput(pending));
        }
        closeAfterFlush();
    }

    /**
     * Shutdown, from any thread: an open connection is closed with amqp:connection:forced; one still in its
     * handshake just loses its socket.
     */
    void closeByBroker(String reason) {
        execute(() -> {
            if (connection.opened()) {
                connection.close(ErrorConditions.connectionForced(reason), "closed by broker: " + reason);
            } else {
                closeAfterFlush();
            }
        });
    }

    boolean isOpen() {
        return !ended;
    }

    // ---- socket writability

    /**
     * The socket's outbound buffer crossed a water mark. Back below the low mark: write what Proton holds and let
     * the links pull deliveries again. (Above the high mark {@link #flushOutput} and the links simply stop.)
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && !ended && connection != null) {
            try {
                connection.onWritable();
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            pump();
        }
        ctx.fireChannelWritabilityChanged();
    }

    // ---- socket end

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            LOG.debug("I/O error on {}: {}", connection == null ? ctx.channel() : connection.describe(), cause.toString());
        } else {
            resources.log().log(LogCode.CON_1005, connection == null ? String.valueOf(ctx.channel().remoteAddress())
                    : connection.describe(), cause.getCause() != null ? cause.getCause().toString() : cause.toString());
        }
        closing = true;
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ended = true;
        if (inputStarted && !saslEnded && !saslBridge.finished()) {
            // the client gave up during SASL, e.g. because it supports none of the mechanisms offered
            resources.log().log(LogCode.CON_1004, connection.describe(), saslBridge.progress());
            resources.statistics().authenticationFailed(AuthFailure.MECHANISM);
            resources.statistics().connectionRefused(SecurityStatistics.RefusalReason.AUTHENTICATION);
        }
        resources.liveConnections().remove(this);
        if (ticker != null) {
            ticker.stop();
        }
        if (connection != null) {
            try {
                connection.ended();
            } catch (RuntimeException e) {
                LOG.warn("Cleaning up {} failed", connection.describe(), e);
            }
        }
        ctx.fireChannelInactive();
    }
}
