package org.tandembroker.store.bdbha.channel;

import com.sleepycat.je.rep.net.InstanceParams;
import com.sleepycat.je.rep.net.SSLAuthenticator;
import com.sleepycat.je.rep.utilint.net.SSLDNAuthenticator;
import com.sleepycat.je.rep.utilint.net.SSLMirrorAuthenticator;
import javax.net.ssl.SSLSession;

/**
 * Decides whether a node connecting to this one may take part: JE's {@link SSLDNAuthenticator} (its certificate
 * name matches {@code <allowedNodes>}) or {@link SSLMirrorAuthenticator} ({@code mirror}), and a refused node is
 * reported to the node's {@link ChannelRefusals} with the name it presented. JE creates it by class name
 * ({@code je.rep.ssl.authenticatorClass}) with the allow-list as its parameters.
 *
 * <p><b>Threads.</b> Called on JE's service dispatcher thread; immutable.
 */
public final class AllowListAuthenticator implements SSLAuthenticator {
    private final SSLAuthenticator check;
    private final String allowedNodes;
    private final ChannelRefusals refusals;

    public AllowListAuthenticator(InstanceParams params) {
        this.allowedNodes = params.getClassParams();
        this.check = ReplicationTls.MIRROR.equals(allowedNodes) ? new SSLMirrorAuthenticator(params)
                : new SSLDNAuthenticator(params);
        this.refusals = ChannelRefusals.of(params.getContext().getRepNetConfig().getChannelFactoryParams());
    }

    @Override
    public boolean isTrusted(SSLSession session) {
        boolean trusted = check.isTrusted(session);
        if (!trusted) {
            refusals.refused("from " + PeerCertificates.host(session.getPeerHost()),
                    PeerCertificates.notAllowed(session, allowedNodes));
        }
        return trusted;
    }
}
