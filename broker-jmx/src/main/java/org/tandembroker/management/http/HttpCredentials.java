package org.tandembroker.management.http;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.AuthResult;
import org.tandembroker.core.security.ManagementRole;
import org.tandembroker.management.OperatorAuthentication;

/**
 * HTTP basic authentication against the broker's users file: a user with a management role (monitor or admin) may
 * read the endpoint, as over JMX. A refusal is logged once per attempt ({@code CON-1004}, with the reason).
 *
 * <p>Password hashes are slow on purpose, and Prometheus asks every few seconds: an accepted {@code Authorization}
 * header is remembered (as its SHA-256 digest, never the password) for {@link #REMEMBERED}, so a scrape costs one
 * hash a minute. A changed password or role takes effect within that time. Failures are counted; after one, that
 * address's next attempts are refused with 429 and {@code Retry-After} until its delay has passed.
 *
 * <p><b>Threads.</b> Called on the endpoint's HTTP thread; the cache is a concurrent map.
 */
final class HttpCredentials {
    static final Duration REMEMBERED = Duration.ofSeconds(60);
    private static final int MAX_REMEMBERED = 256;

    private final OperatorAuthentication authentication;
    private final OperationalLog operationalLog;
    private final Map<String, Long> acceptedUntil = new ConcurrentHashMap<>();

    HttpCredentials(OperatorAuthentication authentication, OperationalLog operationalLog) {
        this.authentication = authentication;
        this.operationalLog = operationalLog;
    }

    /**
     * The answer to a request's credentials.
     *
     * @param accepted   whether they name a user with a management role
     * @param retryAfter when refused without being checked: how long the address must wait after its recent failures
     *                   (zero otherwise)
     */
    record Verdict(boolean accepted, Duration retryAfter) {
        static final Verdict ACCEPTED = new Verdict(true, Duration.ZERO);
        static final Verdict REFUSED = new Verdict(false, Duration.ZERO);
    }

    /**
     * Checks the request's {@code Authorization} header. Credentials accepted within {@link #REMEMBERED} pass at once;
     * others from an address with recent failures are refused unchecked until its delay has passed (the endpoint's
     * one thread never waits); every failure is counted.
     */
    Verdict check(String authorization, InetSocketAddress remote) {
        String client = "HTTP client " + (remote != null && remote.getAddress() != null
                ? remote.getAddress().getHostAddress() : "(unknown address)");
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            operationalLog.log(LogCode.CON_1004, client, "no HTTP basic credentials (the endpoint has "
                    + "authentication=\"users\")");
            return Verdict.REFUSED; // a browser's first request: not counted as a failure
        }
        String digest = sha256(authorization);
        long now = System.nanoTime();
        Long until = acceptedUntil.get(digest);
        if (until != null && until - now > 0) {
            return Verdict.ACCEPTED;
        }
        Duration wait = authentication.waitBeforeNextAttempt(remote);
        if (!wait.isZero()) {
            return new Verdict(false, wait);
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()),
                    StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            authentication.malformed(remote);
            operationalLog.log(LogCode.CON_1004, client, "malformed HTTP basic credentials");
            return Verdict.REFUSED;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            authentication.malformed(remote);
            operationalLog.log(LogCode.CON_1004, client, "malformed HTTP basic credentials (no ':')");
            return Verdict.REFUSED;
        }
        String user = decoded.substring(0, colon);
        char[] password = decoded.substring(colon + 1).toCharArray();
        AuthResult result;
        try {
            result = authentication.check(user, password, remote);
        } finally {
            Arrays.fill(password, '\0');
        }
        if (!result.succeeded()) {
            operationalLog.log(LogCode.CON_1004, client, result.failureReason());
            return Verdict.REFUSED;
        }
        if (result.managementRole() == ManagementRole.NONE) {
            operationalLog.log(LogCode.CON_1004, client, "user '" + result.user() + "' has no management role "
                    + "(bin/tandem-passwd add <usersFile> " + result.user() + " --role monitor)");
            return Verdict.REFUSED;
        }
        if (acceptedUntil.size() >= MAX_REMEMBERED) {
            acceptedUntil.clear();
        }
        acceptedUntil.put(digest, now + REMEMBERED.toNanos());
        return Verdict.ACCEPTED;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
