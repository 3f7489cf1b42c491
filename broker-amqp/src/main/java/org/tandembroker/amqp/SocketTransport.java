package org.tandembroker.amqp;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * How the front end's sockets are served: Netty's native epoll transport on Linux when its native library loads
 * (fewer system calls and wake-ups per message than Java's selector), Java NIO everywhere else. Both behave the
 * same for a client; which one runs is logged when the front end starts.
 */
enum SocketTransport {
    EPOLL,
    NIO;

    /** The native transport when it is available here, NIO otherwise. */
    static SocketTransport best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** Why the native transport is not used, for the log; null when it is available. */
    static Throwable whyNotNative() {
        return Epoll.unavailabilityCause();
    }

    EventLoopGroup eventLoops(int threads, String threadName) {
        DefaultThreadFactory factory = new DefaultThreadFactory(threadName);
        return this == EPOLL ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
    }

    Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
