package org.tandembroker.amqp.fake;

import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.tandembroker.core.security.AuthFailure;
import org.tandembroker.core.security.AuthResult;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.security.FileAuthenticator;
import org.tandembroker.core.security.PasswordHash;
import org.tandembroker.core.security.ScramExchange;
import org.tandembroker.core.security.ScramMechanism;
import org.tandembroker.core.security.UserAccount;
import org.tandembroker.core.security.UsersFile;

/**
 * Users and plain-text passwords in memory (SCRAM through a real {@link FileAuthenticator} over the same users);
 * records the threads it was called on.
 */
public final class FakeAuthenticator implements Authenticator {
    private static final int ITERATIONS = 1000;
    private final Map<String, String> passwords;
    private final boolean anonymous;
    private final FileAuthenticator scram;
    private final List<String> callingThreads = new CopyOnWriteArrayList<>();
    private final List<String> mechanisms = new CopyOnWriteArrayList<>();

    public FakeAuthenticator(Map<String, String> passwords, boolean anonymous) {
        this.passwords = Map.copyOf(passwords);
        this.anonymous = anonymous;
        UsersFile users = UsersFile.empty(Path.of("users"));
        for (Map.Entry<String, String> user : passwords.entrySet()) {
            users = users.withUser(new UserAccount(user.getKey(),
                    PasswordHash.create(user.getValue().toCharArray(), ITERATIONS), false));
        }
        this.scram = new FileAuthenticator(users, anonymous);
    }

    /** The mechanisms clients authenticated with, in order (PLAIN, SCRAM-SHA-256, ..., EXTERNAL). */
    public List<String> mechanisms() {
        return List.copyOf(mechanisms);
    }

    public List<String> callingThreads() {
        return List.copyOf(callingThreads);
    }

    @Override
    public boolean anonymousEnabled() {
        return anonymous;
    }

    @Override
    public AuthResult authenticate(String username, char[] password, SocketAddress remote) {
        callingThreads.add(Thread.currentThread().getName());
        mechanisms.add("PLAIN");
        String expected = passwords.get(username);
        return expected != null && expected.equals(new String(password))
                ? AuthResult.success(username)
                : AuthResult.failure(AuthFailure.WRONG_PASSWORD, "wrong user name or password for '" + username + "'");
    }

    @Override
    public Optional<ScramExchange> startScram(ScramMechanism mechanism, SocketAddress remote) {
        callingThreads.add(Thread.currentThread().getName());
        mechanisms.add(mechanism.saslName());
        return scram.startScram(mechanism, remote);
    }

    @Override
    public AuthResult authenticateCertificate(String user, SocketAddress remote) {
        callingThreads.add(Thread.currentThread().getName());
        mechanisms.add("EXTERNAL");
        return AuthResult.success(user);
    }
}
