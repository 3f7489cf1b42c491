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
 * the node's log ({@link ChannelRefusals}) instead of a retry loop visible only in JE's trace. JE creates it by class
 * name ({@code je.rep.channelFactoryClass}); its parameters are the {@link ChannelRefusals#token()}.
 *
 * <p><b>Threads.</b> Called on JE's threads; immutable.
 */
public final class RefusalReportingChannelFactory implements DataChannelFactory {
    private final DataChannelFactory delegate;
    private final boolean tls;
    private final ChannelRefusals refusals;

    public RefusalReportingChannelFactory(InstanceParams params) {
        this.tls = params.getContext().getRepNetConfig() instanceof ReplicationSSLConfig;
        this.delegate = tls ? new SSLChannelFactory(params) : new SimpleChannelFactory(params);
        this.refusals = ChannelRefusals.of(params.getClassParams());
    }

    @Override
    public DataChannel acceptChannel(SocketChannel socketChannel) {
        DataChannel channel = delegate.acceptChannel(socketChannel);
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
        return new RefusalReportingChannel(channel, true, tls, target, "to " + target, refusals);
    }
}
