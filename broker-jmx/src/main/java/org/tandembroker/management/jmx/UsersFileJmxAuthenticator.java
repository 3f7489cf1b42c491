package org.tandembroker.management.jmx;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.rmi.server.RemoteServer;
import java.rmi.server.ServerNotActiveException;
import java.util.Arrays;
import java.util.Set;
import javax.management.remote.JMXAuthenticator;
import javax.management.remote.JMXPrincipal;
import javax.security.auth.Subject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.AuthResult;
import org.tandembroker.core.security.ManagementRole;
import org.tandembroker.management.OperatorAuthentication;

/**
 * Authenticates JMX clients against the broker's users file (the same {@link Authenticator} as AMQP clients:
 * hashed passwords, loopback-only users), and admits only users with a {@link ManagementRole}. The credentials are
 * JMX's standard {@code String[] {user, password}} ({@code JMXConnector.CREDENTIALS}). A refusal is a
 * {@link SecurityException} at connect; its reason goes to the operational log (CON-1004), not to the client.
 * Failures are counted, and an address with recent failures waits before its answer ({@link OperatorAuthentication}).
 *
 * <p><b>Threads.</b> Called on RMI's connection threads (one per connecting client, so the wait holds back only that
 * client); stateless and thread-safe. Each call costs one password hash (milliseconds of CPU).
 */
final class UsersFileJmxAuthenticator implements JMXAuthenticator {
    private static final Logger LOG = LoggerFactory.getLogger(UsersFileJmxAuthenticator.class);

    private final OperatorAuthentication authentication;
    private final OperationalLog operationalLog;

    UsersFileJmxAuthenticator(OperatorAuthentication authentication, OperationalLog operationalLog) {
        this.authentication = authentication;
        this.operationalLog = operationalLog;
    }

    @Override
    public Subject authenticate(Object credentials) {
        SocketAddress remote = clientAddress();
        String client = "JMX client " + describe(remote);
        if (!(credentials instanceof String[] userAndPassword) || userAndPassword.length != 2
                || userAndPassword[0] == null || userAndPassword[1] == null) {
            authentication.malformed(remote);
            operationalLog.log(LogCode.CON_1004, client, "no user name and password (JMXConnector.CREDENTIALS must "
                    + "be a String[] {user, password})");
            throw new SecurityException("Authentication failed: give JMXConnector.CREDENTIALS as a String[] "
                    + "{user, password}");
        }
        char[] password = userAndPassword[1].toCharArray();
        AuthResult result;
        try {
            result = authentication.authenticate(userAndPassword[0], password, remote);
        } finally {
            Arrays.fill(password, '\0');
        }
        if (!result.succeeded()) {
            operationalLog.log(LogCode.CON_1004, client, result.failureReason());
            throw new SecurityException("Authentication failed");
        }
        if (result.managementRole() == ManagementRole.NONE) {
            operationalLog.log(LogCode.CON_1004, client, "user '" + result.user() + "' has no management role");
            throw new SecurityException("Authentication failed: user '" + result.user() + "' has no JMX role; an "
                    + "administrator gives it one with bin/tandem-passwd add <usersFile> " + result.user()
                    + " --role admin|monitor");
        }
        if (result.managementRole() == ManagementRole.ADMIN) {
            LOG.info("JMX connection from {} as user '{}' (role admin)", describe(remote), result.user());
        } else {
            LOG.debug("JMX connection from {} as user '{}' (role monitor)", describe(remote), result.user());
        }
        return new Subject(true, Set.of(new JMXPrincipal(result.user()),
                new ManagementPrincipal(result.user(), result.managementRole())), Set.of(), Set.of());
    }

    /** The client's address while RMI serves its call; null when unknown (then loopback-only users are refused). */
    private static SocketAddress clientAddress() {
        try {
            return new InetSocketAddress(InetAddress.getByName(RemoteServer.getClientHost()), 0);
        } catch (ServerNotActiveException | UnknownHostException e) {
            return null;
        }
    }

    private static String describe(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : "(unknown address)";
    }
}
