package org.tandembroker.amqp;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.tandembroker.core.security.FileAuthenticator;
import org.tandembroker.core.security.ScramMechanism;

/**
 * Which SASL mechanisms a connection is offered, decided once its first bytes arrive (after any TLS handshake):
 * <ul>
 *   <li>EXTERNAL when the client presented a trusted certificate (a listener with {@code <clientCertificates>});</li>
 *   <li>SCRAM-SHA-512 and SCRAM-SHA-256 always: the password never crosses the network;</li>
 *   <li>PLAIN over TLS, from a loopback address, or anywhere with {@code allowPlainWithoutTls="true"}: elsewhere the
 *   password would cross the network in clear;</li>
 *   <li>ANONYMOUS when {@code anonymous="true"}.</li>
 * </ul>
 * Stateless.
 */
final class SaslMechanisms {
    static final String PLAIN = "PLAIN";
    static final String ANONYMOUS = "ANONYMOUS";
    static final String EXTERNAL = "EXTERNAL";

    private SaslMechanisms() {
    }

    static String[] offered(boolean tls, SocketAddress remote, boolean certificatePresented,
                            boolean allowPlainWithoutTls, boolean anonymousEnabled) {
        List<String> mechanisms = new ArrayList<>();
        if (certificatePresented) {
            mechanisms.add(EXTERNAL);
        }
        mechanisms.add(ScramMechanism.SHA_512.saslName());
        mechanisms.add(ScramMechanism.SHA_256.saslName());
        if (tls || allowPlainWithoutTls || FileAuthenticator.isLoopback(remote)) {
            mechanisms.add(PLAIN);
        }
        if (anonymousEnabled) {
            mechanisms.add(ANONYMOUS);
        }
        return mechanisms.toArray(String[]::new);
    }
}
