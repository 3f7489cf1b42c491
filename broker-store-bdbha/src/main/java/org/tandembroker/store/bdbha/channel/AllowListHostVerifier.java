package org.tandembroker.store.bdbha.channel;

import com.sleepycat.je.rep.net.InstanceParams;
import com.sleepycat.je.rep.utilint.net.SSLDNHostVerifier;
import com.sleepycat.je.rep.utilint.net.SSLMirrorHostVerifier;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLSession;

/**
 * Decides whether a node this one connects to is a member it may talk to: the same allow-list as
 * {@link AllowListAuthenticator}, applied to the certificate the other node presents (JE's
 * {@link SSLDNHostVerifier} or {@link SSLMirrorHostVerifier}). A refusal is reported to the node's
 * {@link ChannelRefusals}. JE creates it by class name ({@code je.rep.ssl.hostVerifierClass}).
 *
 * <p><b>Threads.</b> Called on the JE thread that connects; immutable.
 */
public final class AllowListHostVerifier implements HostnameVerifier {
    private final HostnameVerifier check;
    private final String allowedNodes;
    private final ChannelRefusals refusals;

    public AllowListHostVerifier(InstanceParams params) {
        this.allowedNodes = params.getClassParams();
        this.check = ReplicationTls.MIRROR.equals(allowedNodes) ? new SSLMirrorHostVerifier(params)
                : new SSLDNHostVerifier(params);
        this.refusals = ChannelRefusals.of(params.getContext().getRepNetConfig().getChannelFactoryParams());
    }

    @Override
    public boolean verify(String targetHost, SSLSession session) {
        boolean verified = check.verify(targetHost, session);
        if (!verified) {
            refusals.refused("to " + targetHost + ":" + session.getPeerPort(),
                    PeerCertificates.notAllowed(session, allowedNodes));
        }
        return verified;
    }
}
