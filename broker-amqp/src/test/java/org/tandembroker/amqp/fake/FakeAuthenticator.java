package org.tandembroker.amqp.fake;

import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.tandembroker.core.security.AuthResult;
import org.tandembroker.core.security.Authenticator;

/** Users and plain-text passwords in memory; records the threads it was called on. */
public final class FakeAuthenticator implements Authenticator {
    private final Map<String, String> passwords;
    private final boolean anonymous;
    private final List<String> callingThreads = new CopyOnWriteArrayList<>();

    public FakeAuthenticator(Map<String, String> passwords, boolean anonymous) {
        this.passwords = Map.copyOf(passwords);
        this.anonymous = anonymous;
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
        String expected = passwords.get(username);
        return expected != null && expected.equals(new String(password))
                ? AuthResult.success(username)
                : AuthResult.failure("wrong user name or password for '" + username + "'");
    }
}
