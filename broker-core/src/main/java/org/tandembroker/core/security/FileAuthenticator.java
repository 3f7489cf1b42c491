package org.tandembroker.core.security;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Optional;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConfigException;

/**
 * Checks user names and passwords against a {@link UsersFile} read at startup: PLAIN ({@link #authenticate}),
 * SCRAM ({@link #startScram}, from the entry's SCRAM credentials) and certificate users ({@link
 * #authenticateCertificate}, where the users file only adds its account checks).
 * <ul>
 *   <li>An unknown user costs the same hashing work as a known one (a dummy hash is checked), so timing does
 *   not tell which user names exist.</li>
 *   <li>A {@code loopback-only} user is refused unless the client's address is a loopback address. Addresses
 *   that are not IP socket addresses (an in-JVM or Unix domain channel) are local and count as loopback; an
 *   unknown ({@code null}) or unresolved address does not.</li>
 *   <li>Failure reasons are for the broker's log; the client is told only that authentication failed.</li>
 *   <li>A success carries the user's {@link ManagementRole} (for JMX; AMQP ignores it).</li>
 * </ul>
 * Immutable and thread-safe. Each check costs one {@link PasswordHash} derivation (milliseconds of CPU), so
 * callers run it off network threads.
 */
public final class FileAuthenticator implements Authenticator {

    private final UsersFile users;
    private final boolean anonymousEnabled;
    private final PasswordHash dummy;
    /** Keys the decoy salts of SCRAM exchanges for users without a credential (random per process). */
    private final byte[] decoyKey = new byte[32];

    public FileAuthenticator(UsersFile users, boolean anonymousEnabled) {
        this.users = users;
        this.anonymousEnabled = anonymousEnabled;
        this.dummy = PasswordHash.create("not a password of anyone".toCharArray());
        new SecureRandom().nextBytes(decoyKey);
    }

    /** Reads the users file that {@code config} names. */
    public static FileAuthenticator fromConfig(BrokerConfig config) throws ConfigException {
        return new FileAuthenticator(UsersFile.load(config.usersFile()), config.anonymousEnabled());
    }

    @Override
    public boolean anonymousEnabled() {
        return anonymousEnabled;
    }

    @Override
    public AuthResult authenticate(String username, char[] password, SocketAddress remote) {
        char[] presented = password == null ? new char[0] : password;
        Optional<UserAccount> user = username == null ? Optional.empty() : users.user(username);
        if (user.isEmpty()) {
            dummy.matches(presented);
            return AuthResult.failure(AuthFailure.UNKNOWN_USER, "unknown user '" + username + "' (PLAIN)");
        }
        if (!user.get().passwordHash().matches(presented)) {
            return AuthResult.failure(AuthFailure.WRONG_PASSWORD, "wrong password for user '" + username + "' (PLAIN)");
        }
        return accountChecks(user.get(), remote);
    }

    @Override
    public Optional<ScramExchange> startScram(ScramMechanism mechanism, SocketAddress remote) {
        return Optional.of(new ScramExchange(mechanism, new ScramExchange.Accounts() {
            @Override
            public Optional<ScramCredential> credential(String user, ScramMechanism m) {
                return users.user(user).flatMap(account -> account.passwordHash().scram(m));
            }

            @Override
            public AuthResult missingReason(String user, ScramMechanism m) {
                Optional<UserAccount> account = users.user(user);
                if (account.isEmpty()) {
                    return AuthResult.failure(AuthFailure.UNKNOWN_USER, "unknown user '" + user + "'");
                }
                return AuthResult.failure(AuthFailure.NO_CREDENTIAL, "user '" + user + "' has a " + account.get().passwordHash().schemes() + " entry, usable with "
                        + "PLAIN only, not " + m.saslName() + "; give the user its password again with "
                        + "tandem-passwd add to write SCRAM credentials");
            }

            @Override
            public AuthResult verified(String user) {
                return accountChecks(users.user(user).orElseThrow(), remote);
            }

            @Override
            public byte[] decoySalt(String user, ScramMechanism m) {
                return Arrays.copyOf(ScramMechanism.SHA_256.hmac(decoyKey,
                        (m.scheme() + ":" + user).getBytes(StandardCharsets.UTF_8)), 16);
            }
        }));
    }

    @Override
    public AuthResult authenticateCertificate(String user, SocketAddress remote) {
        Optional<UserAccount> account = users.user(user);
        if (account.isEmpty()) {
            return AuthResult.success(user);
        }
        return accountChecks(account.get(), remote);
    }

    private static AuthResult accountChecks(UserAccount user, SocketAddress remote) {
        if (user.loopbackOnly() && !isLoopback(remote)) {
            return AuthResult.failure(AuthFailure.LOOPBACK_ONLY, "user '" + user.name() + "' is loopback-only and may connect from a loopback "
                    + "address only, not from " + describe(remote));
        }
        return AuthResult.success(user.name(), user.managementRole());
    }

    /** Whether {@code remote} is this machine (see the class comment). */
    public static boolean isLoopback(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            return inet.getAddress() != null && inet.getAddress().isLoopbackAddress();
        }
        return remote != null;
    }

    private static String describe(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return String.valueOf(remote);
    }
}
