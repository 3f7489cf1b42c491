package org.tandembroker.management;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.security.AuthFailure;
import org.tandembroker.core.security.AuthResult;
import org.tandembroker.core.security.AuthenticationThrottle;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.security.SecurityStatistics;

/**
 * Operators' logins (JMX and the HTTP endpoint) against the broker's users file, treated like clients' SASL logins:
 * every failure is counted in {@code tandem_auth_failures_total{reason}}, and an address with recent failures is
 * slowed down by the same doubling delay ({@code <security authFailureDelay authFailureDelayMax>}), kept apart from
 * the AMQP listener's so that neither surface can lock the other out.
 *
 * <p><b>Threads.</b> Thread-safe: the throttle synchronizes, the counters are lock-free. {@link #authenticate}
 * blocks its caller for the delay: JMX calls it on RMI's thread for that one connection attempt. The HTTP endpoint
 * (one thread for every request) never blocks; it asks {@link #waitBeforeNextAttempt} and answers at once.
 */
public final class OperatorAuthentication {
    private final Authenticator authenticator;
    private final AuthenticationThrottle throttle;
    private final SecurityStatistics statistics;

    public OperatorAuthentication(Authenticator authenticator, AuthenticationThrottle throttle,
                                  SecurityStatistics statistics) {
        this.authenticator = authenticator;
        this.throttle = throttle;
        this.statistics = statistics;
    }

    /** With the delays of {@code security}. */
    public static OperatorAuthentication of(Authenticator authenticator, SecurityConfig security,
                                            SecurityStatistics statistics) {
        return new OperatorAuthentication(authenticator,
                new AuthenticationThrottle(security.authFailureDelay(), security.authFailureDelayMax()), statistics);
    }

    /**
     * Checks the password, counts a failure, and returns the outcome only after the delay the address's recent
     * failures earn (success too, so the delay does not give the answer away).
     */
    public AuthResult authenticate(String user, char[] password, SocketAddress remote) {
        Duration delay = throttle.delayFor(remote);
        AuthResult result = check(user, password, remote);
        if (!delay.isZero()) {
            try {
                TimeUnit.NANOSECONDS.sleep(delay.toNanos());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the caller is going away: answer now
            }
        }
        return result;
    }

    /** Checks the password at once and counts a failure (callers that cannot wait use {@link #waitBeforeNextAttempt}). */
    public AuthResult check(String user, char[] password, SocketAddress remote) {
        AuthResult result = authenticator.authenticate(user, password, remote);
        if (!result.succeeded()) {
            throttle.failed(remote);
            statistics.authenticationFailed(result.failureKind());
        }
        return result;
    }

    /** Counts a failure that never reached the password check (malformed or missing credentials). */
    public void malformed(SocketAddress remote) {
        throttle.failed(remote);
        statistics.authenticationFailed(AuthFailure.MALFORMED);
    }

    /** How long {@code remote} must wait before its next attempt is checked (zero: check it now). */
    public Duration waitBeforeNextAttempt(SocketAddress remote) {
        return throttle.waitBeforeNextAttempt(remote);
    }
}
