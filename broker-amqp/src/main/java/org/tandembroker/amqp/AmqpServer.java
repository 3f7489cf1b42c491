package org.tandembroker.amqp;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.config.ClientCertificateConfig;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.security.AuthenticationThrottle;
import org.tandembroker.core.frontend.FrontEndContext;
import org.tandembroker.core.frontend.ProtocolFrontEnd;
import org.tandembroker.core.security.PasswordHash;

/**
 * The AMQP 1.0 front end: binds every configured listener (amqps when the listener has TLS) and gives each
 * accepted socket its pipeline: [TLS] → {@link ProtocolHeaderGuard} → {@link AmqpConnectionHandler}.
 *
 * <p>Threads: "amqp-accept" accepts, "amqp-io-*" event loops run every connection, "amqp-sasl-*" checks passwords.
 * {@link #start} and {@link #close} are called by the broker's lifecycle thread; {@code close} is idempotent.
 */
public final class AmqpServer implements ProtocolFrontEnd {
    private static final Logger LOG = LoggerFactory.getLogger(AmqpServer.class);
    private static final int AUTH_THREADS = 2;
    /**
     * Enough for C2 to have compiled PBKDF2's loop: in a fresh JVM (measured beside a running soak) the first check
     * took 650 ms, the 2nd to 9th 280 to 60 ms, the 10th on about 20 ms.
     */
    private static final int PASSWORD_CHECK_WARM_UPS = 10;
    private static final long CLOSE_GRACE_MILLIS = 5_000;

    private final FrontEndContext context;
    private final LiveConnections liveConnections;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<String> boundAddresses = new ArrayList<>();
    private final List<Channel> serverChannels = new ArrayList<>();
    private final ChannelGroup connectionChannels = new DefaultChannelGroup("amqp-connections", GlobalEventExecutor.INSTANCE);
    private SocketTransport transport;
    private EventLoopGroup acceptGroup;
    private EventLoopGroup ioGroup;
    private ExecutorService authExecutor;

    public AmqpServer(FrontEndContext context) {
        this.context = context;
        this.liveConnections = new LiveConnections(context.config().limits().maxConnections());
    }

    @Override
    public synchronized void start() throws Exception {
        if (closed.get()) {
            throw new IllegalStateException("the AMQP front end was closed");
        }
        if (acceptGroup != null) {
            return;
        }
        transport = SocketTransport.best();
        if (transport == SocketTransport.NIO) {
            LOG.info("AMQP sockets use Java NIO: Netty's native epoll transport is not available here ({})",
                    String.valueOf(SocketTransport.whyNotNative()));
        } else {
            LOG.info("AMQP sockets use Netty's native epoll transport");
        }
        acceptGroup = transport.eventLoops(1, "amqp-accept");
        ioGroup = transport.eventLoops(0, "amqp-io");
        authExecutor = Executors.newFixedThreadPool(AUTH_THREADS, new DefaultThreadFactory("amqp-sasl", true));
        authExecutor.execute(AmqpServer::warmUpPasswordChecks);
        SecurityConfig security = context.config().security();
        FrontEndResources resources = new FrontEndResources(context.virtualHosts(), context.authenticator(),
                context.operationalLog(), context.config().limits(), authExecutor, liveConnections,
                context.accessControl(), new AuthenticationThrottle(security.authFailureDelay(),
                        security.authFailureDelayMax()), security);
        try {
            for (ListenerConfig listener : context.config().listeners()) {
                bind(listener, resources);
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /**
     * On one of the password threads at start-up, so that the checks of clients arriving together later (the
     * reconnections to a replica that just became master) run compiled; about a second of CPU, once.
     */
    private static void warmUpPasswordChecks() {
        long start = System.nanoTime();
        PasswordHash.warmUp(PASSWORD_CHECK_WARM_UPS);
        LOG.debug("Password checks warmed up: {} PLAIN checks in {} ms", PASSWORD_CHECK_WARM_UPS,
                (System.nanoTime() - start) / 1_000_000);
    }

    private void bind(ListenerConfig listener, FrontEndResources resources) throws InterruptedException {
        SslContext tls = listener.tls().map(t -> ServerTlsContext.from(t, listener.clientCertificates(),
                context.etcDirectory(), listener.name(), context.operationalLog())).orElse(null);
        ListenerSecurity listenerSecurity = new ListenerSecurity(tls != null,
                listener.clientCertificates().map(ClientCertificateConfig::userName));
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(acceptGroup, ioGroup)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        connectionChannels.add(channel);
                        ChannelPipeline pipeline = channel.pipeline();
                        if (tls != null) {
                            pipeline.addLast("tls", tls.newHandler(channel.alloc()));
                        }
                        pipeline.addLast("protocol-header", new ProtocolHeaderGuard(context.operationalLog(),
                                context.accessControl().statistics()));
                        pipeline.addLast("amqp", new AmqpConnectionHandler(resources, listenerSecurity));
                    }
                });
        Channel channel = bootstrap.bind(listener.host(), listener.port()).sync().channel();
        serverChannels.add(channel);
        int port = ((InetSocketAddress) channel.localAddress()).getPort();
        boundAddresses.add((tls != null ? "amqps" : "amqp") + "://" + listener.host() + ":" + port);
    }

    @Override
    public synchronized List<String> boundAddresses() {
        return List.copyOf(boundAddresses);
    }

    /** Connections currently open (for tests and management). */
    public int connectionCount() {
        return liveConnections.size();
    }

    @Override
    public synchronized void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Channel channel : serverChannels) {
            channel.close().awaitUninterruptibly();
        }
        for (AmqpConnectionHandler connection : liveConnections.snapshot()) {
            connection.closeByBroker("the broker is shutting down");
        }
        if (!connectionChannels.newCloseFuture().awaitUninterruptibly(CLOSE_GRACE_MILLIS)) {
            LOG.warn("{} connections did not close within {} ms; closing their sockets",
                    connectionChannels.size(), CLOSE_GRACE_MILLIS);
        }
        connectionChannels.close().awaitUninterruptibly();
        if (ioGroup != null) {
            ioGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        if (acceptGroup != null) {
            acceptGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        if (authExecutor != null) {
            authExecutor.shutdownNow();
        }
    }
}
