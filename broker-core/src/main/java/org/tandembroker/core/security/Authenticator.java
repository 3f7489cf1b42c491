package org.tandembroker.core.security;

import java.net.SocketAddress;

/** Checks client credentials. Thread-safe; CPU-bound (password hashing), so callers run it off network threads. */
public interface Authenticator {

    /** Whether SASL ANONYMOUS may be offered. */
    boolean anonymousEnabled();

    /**
     * Checks a user name and password presented from {@code remote}.
     *
     * @return the authenticated user, or a failure whose reason is logged (never sent to the client)
     */
    AuthResult authenticate(String username, char[] password, SocketAddress remote);
}
