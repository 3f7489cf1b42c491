package org.tandembroker.store.bdbha.channel;

import com.sleepycat.je.rep.ReplicationSSLConfig;
import com.sleepycat.je.rep.net.DataChannel;
import com.sleepycat.je.rep.net.DataChannelFactory;
import com.sleepycat.je.rep.net.InstanceParams;
import com.sleepycat.je.rep.utilint.net.SSLChannelFactory;
import com.sleepycat.je.rep.utilint.net.SimpleChannelFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;

/**
 * JE's channel factory for every replication connection of a Tandem node (its feeders and replicas, elections,
 * group administration, DbPing, network restore): JE's own TLS or plain factory, with each channel watched until
 * the peer first answers, so that a refusal (an untrusted certificate, TLS against plain TCP) becomes one line in
 * the node's log ({@link ChannelRefusals}) instead of a retry loop visible only in JE's trace; and with the read
 * timeout JE asks for on a connection it opens actually enforced ({@link ReadDeadlineChannel}), and, on a plain
 * connection, reads that take a whole batch of JE's messages at once ({@link ReadAheadChannel}). JE creates it by
 * class name ({@code je.rep.channelFactoryClass}); its parameters are the {@link ChannelRefusals#token()}.
 *
 * <p><b>Threads.</b> Called on JE's threads; immutable.
 */
public final class RefusalReportingChannelFactory implements DataChannelFactory {
    private static final String READ_TIMEOUT_CAP = ";readTimeoutCapMillis=";

    private final DataChannelFactory delegate;
    private final boolean tls;
    private final ChannelRefusals refusals;
    private final int readTimeoutCapMillis;

    public RefusalReportingChannelFactory(InstanceParams params) {
        this.tls = params.getContext().getRepNetConfig() instanceof ReplicationSSLConfig;
        this.delegate = tls ? new SSLChannelFactory(params) : new SimpleChannelFactory(params);
        String classParams = params.getClassParams() == null ? "" : params.getClassParams();
        int cap = classParams.indexOf(READ_TIMEOUT_CAP);
        this.refusals = ChannelRefusals.of(cap < 0 ? params.getClassParams() : classParams.substring(0, cap));
        this.readTimeoutCapMillis = cap < 0 ? 0
                : Integer.parseInt(classParams.substring(cap + READ_TIMEOUT_CAP.length()));
    }

    /**
     * The factory's parameters ({@code je.rep.channelFactoryParams}) for a node whose refusals go to
     * {@code refusalsToken} and whose connections' read timeouts are at most {@code readTimeoutCapMillis} (0: as
     * JE asks). A cap suits a node that only ever asks questions answered at once: the arbiter, whose JE asks the
     * group's membership with a fixed 10 s read timeout, and a silent old master held it that long each time.
     */
    public static String params(String refusalsToken, int readTimeoutCapMillis) {
        if (readTimeoutCapMillis < 0) {
            throw new IllegalArgumentException("readTimeoutCapMillis < 0: " + readTimeoutCapMillis);
        }
        return readTimeoutCapMillis == 0 ? refusalsToken : refusalsToken + READ_TIMEOUT_CAP + readTimeoutCapMillis;
    }

    @Override
    public DataChannel acceptChannel(SocketChannel socketChannel) {
        DataChannel channel = readingAhead(delegate.acceptChannel(socketChannel));
        SocketAddress remote = socketChannel.socket().getRemoteSocketAddress();
        String host = remote instanceof InetSocketAddress address && address.getAddress() != null
                ? address.getAddress().getHostAddress() : String.valueOf(remote);
        return new RefusalReportingChannel(channel, false, tls, host, "from " + host, refusals);
    }

    @Override
    public DataChannel connect(InetSocketAddress address, InetSocketAddress localAddress,
                               ConnectOptions connectOptions) throws IOException {
        DataChannel channel = delegate.connect(address, localAddress, connectOptions);
        String target = address.getHostString() + ":" + address.getPort();
        int readTimeout = connectOptions.getReadTimeout();
        if (readTimeout > 0 && readTimeoutCapMillis > 0) {
            readTimeout = Math.min(readTimeout, readTimeoutCapMillis);
        }
        DataChannel bounded = connectOptions.getBlocking()
                ? ReadDeadlineChannel.bound(channel, readTimeout, target) : channel;
        return new RefusalReportingChannel(readingAhead(bounded), true, tls, target, "to " + target, refusals);
    }

    /** A plain channel reads ahead ({@link ReadAheadChannel}); a TLS channel buffers on its own. */
    private DataChannel readingAhead(DataChannel channel) {
        return tls ? channel : new ReadAheadChannel(channel);
    }
}
