package org.tandembroker.core.security;

import java.net.SocketAddress;
import java.util.Optional;

/**
 * Checks client credentials. Thread-safe; password checks are CPU-bound (hashing), so callers run them off network
 * threads. Failure reasons are for the broker's log, never for the client.
 */
public interface Authenticator {

    /** Whether SASL ANONYMOUS may be offered. */
    boolean anonymousEnabled();

    /**
     * Checks a user name and password presented from {@code remote} (SASL PLAIN).
     *
     * @return the authenticated user, or a failure whose reason is logged (never sent to the client)
     */
    AuthResult authenticate(String username, char[] password, SocketAddress remote);

    /**
     * Starts a SCRAM exchange with a client at {@code remote}; empty when this authenticator serves no SCRAM.
     * The exchange's success already includes the account's checks (loopback-only, role).
     */
    default Optional<ScramExchange> startScram(ScramMechanism mechanism, SocketAddress remote) {
        return Optional.empty();
    }

    /**
     * A client at {@code remote} proved with a trusted TLS certificate that it is {@code user} (SASL EXTERNAL).
     * The certificate was checked by TLS; this applies the account's checks when the user is also in the users
     * file (loopback-only, role).
     */
    default AuthResult authenticateCertificate(String user, SocketAddress remote) {
        return AuthResult.failure("client certificates are not accepted by this authenticator");
    }
}
