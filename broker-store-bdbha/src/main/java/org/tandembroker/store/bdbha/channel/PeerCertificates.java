package org.tandembroker.store.bdbha.channel;

import java.security.Principal;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

/** The words of a refusal by the allow-list, shared by both directions. */
final class PeerCertificates {

    private PeerCertificates() {
    }

    /** Why the peer of {@code session} is not allowed by {@code allowedNodes}. */
    static String notAllowed(SSLSession session, String allowedNodes) {
        Principal principal;
        try {
            principal = session.getPeerPrincipal();
        } catch (SSLPeerUnverifiedException e) {
            // With client authentication wanted (JE's choice), Java completes the handshake without a verified
            // peer when the client's certificate is not trusted, and the check here refuses it.
            return "its certificate is not trusted here: it presented none, or one not signed by an authority in "
                    + "this node's trust store (<trustStore>)";
        }
        String name = principal instanceof X500Principal x500 ? x500.getName(X500Principal.RFC1779)
                : String.valueOf(principal);
        if (ReplicationTls.MIRROR.equals(allowedNodes)) {
            return "its certificate name '" + name + "' differs from this node's own (<allowedNodes> is mirror)";
        }
        return "its certificate name '" + name + "' is not allowed by <allowedNodes> '" + allowedNodes + "'";
    }

    /** An address as a refusal names it: the host's address, without a port (a client's port changes). */
    static String host(String peerHost) {
        if (peerHost == null) {
            return "?";
        }
        int slash = peerHost.indexOf('/');
        return slash >= 0 ? peerHost.substring(slash + 1) : peerHost;
    }
}
