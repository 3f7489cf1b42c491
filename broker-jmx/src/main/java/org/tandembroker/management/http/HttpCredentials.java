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
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.security.ManagementRole;

/**
 * HTTP basic authentication against the broker's users file: a user with a management role (monitor or admin) may
 * read the endpoint, as over JMX. A refusal is logged once per attempt ({@code CON-1004}, with the reason).
 *
 * <p>Password hashes are slow on purpose, and Prometheus asks every few seconds: an accepted {@code Authorization}
 * header is remembered (as its SHA-256 digest, never the password) for {@link #REMEMBERED}, so a scrape costs one
 * hash a minute. A changed password or role takes effect within that time.
 *
 * <p><b>Threads.</b> Called on the endpoint's HTTP thread; the cache is a concurrent map.
 */
final class HttpCredentials {
    static final Duration REMEMBERED = Duration.ofSeconds(60);
    private static final int MAX_REMEMBERED = 256;

    private final Authenticator authenticator;
    private final OperationalLog operationalLog;
    private final Map<String, Long> acceptedUntil = new ConcurrentHashMap<>();

    HttpCredentials(Authenticator authenticator, OperationalLog operationalLog) {
        this.authenticator = authenticator;
        this.operationalLog = operationalLog;
    }

    /** Whether the request's {@code Authorization} header names a user with a management role. */
    boolean accepts(String authorization, InetSocketAddress remote) {
        String client = "HTTP client " + (remote != null && remote.getAddress() != null
                ? remote.getAddress().getHostAddress() : "(unknown address)");
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            operationalLog.log(LogCode.CON_1004, client, "no HTTP basic credentials (the endpoint has "
                    + "authentication=\"users\")");
            return false;
        }
        String digest = sha256(authorization);
        long now = System.nanoTime();
        Long until = acceptedUntil.get(digest);
        if (until != null && until - now > 0) {
            return true;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(authorization.substring(6).trim()),
                    StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            operationalLog.log(LogCode.CON_1004, client, "malformed HTTP basic credentials");
            return false;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            operationalLog.log(LogCode.CON_1004, client, "malformed HTTP basic credentials (no ':')");
            return false;
        }
        String user = decoded.substring(0, colon);
        char[] password = decoded.substring(colon + 1).toCharArray();
        AuthResult result;
        try {
            result = authenticator.authenticate(user, password, remote);
        } finally {
            Arrays.fill(password, '\0');
        }
        if (!result.succeeded()) {
            operationalLog.log(LogCode.CON_1004, client, result.failureReason());
            return false;
        }
        if (result.managementRole() == ManagementRole.NONE) {
            operationalLog.log(LogCode.CON_1004, client, "user '" + result.user() + "' has no management role "
                    + "(bin/tandem-passwd add <usersFile> " + result.user() + " --role monitor)");
            return false;
        }
        if (acceptedUntil.size() >= MAX_REMEMBERED) {
            acceptedUntil.clear();
        }
        acceptedUntil.put(digest, now + REMEMBERED.toNanos());
        return true;
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
