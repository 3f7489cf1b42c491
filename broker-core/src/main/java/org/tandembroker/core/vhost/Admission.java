package org.tandembroker.core.vhost;

import org.tandembroker.core.ErrorKind;

/** The answer to {@link VirtualHost#admit}. */
public sealed interface Admission {

    /** The connection is in; {@code registration.deregister()} must be called when it closes. */
    record Admitted(ConnectionRegistration registration) implements Admission {
    }

    /**
     * The connection is refused.
     *
     * @param kind            why, e.g. NOT_ACTIVE
     * @param description     one line for the client
     * @param redirectAddress host:port of the node that serves this virtual host, or null when unknown
     */
    record Refused(ErrorKind kind, String description, String redirectAddress) implements Admission {
    }
}
