package org.tandembroker.core.security;

import java.util.Locale;

/** Why an authentication failed, as counted in metrics (the {@code reason} tag) and named in CON-1004. */
public enum AuthFailure {
    /** No such user (any mechanism). */
    UNKNOWN_USER,
    /** A wrong password or SCRAM proof. */
    WRONG_PASSWORD,
    /** A loopback-only user connecting from elsewhere. */
    LOOPBACK_ONLY,
    /** The user's entry cannot serve the mechanism (a PLAIN-only entry asked for SCRAM). */
    NO_CREDENTIAL,
    /** The client chose a mechanism that was not offered, or left without choosing one. */
    MECHANISM,
    /** A malformed SASL message. */
    MALFORMED,
    /** Anything else (the broker shutting down, an internal error). */
    OTHER;

    /** The tag value, e.g. {@code wrong_password}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
