package org.tandembroker.core.security;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Optional;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConfigException;

/**
 * Checks user names and passwords against a {@link UsersFile} read at startup.
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

    public FileAuthenticator(UsersFile users, boolean anonymousEnabled) {
        this.users = users;
        this.anonymousEnabled = anonymousEnabled;
        this.dummy = PasswordHash.create("not a password of anyone".toCharArray());
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
            return AuthResult.failure("unknown user '" + username + "'");
        }
        if (!user.get().passwordHash().matches(presented)) {
            return AuthResult.failure("wrong password for user '" + username + "'");
        }
        if (user.get().loopbackOnly() && !isLoopback(remote)) {
            return AuthResult.failure("user '" + username + "' is loopback-only and may connect from a loopback "
                    + "address only, not from " + describe(remote));
        }
        return AuthResult.success(username, user.get().managementRole());
    }

    static boolean isLoopback(SocketAddress remote) {
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
