package org.tandembroker.core.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.config.ListenerConfig;

class FileAuthenticatorTest {

    static final SocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 40000);
    static final SocketAddress LOOPBACK_V6 = new InetSocketAddress("::1", 40000);
    static final SocketAddress REMOTE = new InetSocketAddress("10.0.0.1", 40000);

    private final FileAuthenticator authenticator = new FileAuthenticator(users(), false);

    private static UsersFile users() {
        return UsersFile.empty(Path.of("users"))
                .withUser(new UserAccount("alice", PasswordHash.create("alice-pw".toCharArray(), 1000), false))
                .withUser(new UserAccount("guest", PasswordHash.create("guest".toCharArray(), 1000), true))
                .withUser(new UserAccount("ops", PasswordHash.create("ops-pw".toCharArray(), 1000), false,
                        ManagementRole.ADMIN));
    }

    @Test
    void aSuccessCarriesTheUsersManagementRole() {
        assertThat(authenticator.authenticate("ops", "ops-pw".toCharArray(), REMOTE).managementRole())
                .isEqualTo(ManagementRole.ADMIN);
        assertThat(authenticator.authenticate("alice", "alice-pw".toCharArray(), REMOTE).managementRole())
                .isEqualTo(ManagementRole.NONE);
        assertThat(authenticator.authenticate("ops", "wrong".toCharArray(), REMOTE).managementRole())
                .isEqualTo(ManagementRole.NONE);
    }

    @Test
    void acceptsTheRightPassword() {
        AuthResult result = authenticator.authenticate("alice", "alice-pw".toCharArray(), REMOTE);

        assertThat(result.succeeded()).isTrue();
        assertThat(result.user()).isEqualTo("alice");
    }

    @Test
    void refusesAWrongPassword() {
        AuthResult result = authenticator.authenticate("alice", "guess".toCharArray(), LOOPBACK);

        assertThat(result.succeeded()).isFalse();
        assertThat(result.failureReason()).contains("wrong password", "alice").doesNotContain("guess");
    }

    @Test
    void refusesAnUnknownUser() {
        AuthResult result = authenticator.authenticate("mallory", "alice-pw".toCharArray(), LOOPBACK);

        assertThat(result.succeeded()).isFalse();
        assertThat(result.failureReason()).contains("unknown user", "mallory").doesNotContain("alice-pw");
    }

    @Test
    void refusesMissingCredentials() {
        assertThat(authenticator.authenticate(null, null, LOOPBACK).succeeded()).isFalse();
        assertThat(authenticator.authenticate("alice", null, LOOPBACK).succeeded()).isFalse();
    }

    @Test
    void refusesALoopbackOnlyUserFromANonLoopbackAddressSayingWhy() {
        AuthResult result = authenticator.authenticate("guest", "guest".toCharArray(), REMOTE);

        assertThat(result.succeeded()).isFalse();
        assertThat(result.failureReason()).contains("guest", "loopback", "10.0.0.1");
    }

    @Test
    void acceptsALoopbackOnlyUserFromIpv4AndIpv6Loopback() {
        assertThat(authenticator.authenticate("guest", "guest".toCharArray(), LOOPBACK).succeeded()).isTrue();
        assertThat(authenticator.authenticate("guest", "guest".toCharArray(), LOOPBACK_V6).succeeded()).isTrue();
    }

    @Test
    void treatsAnUnknownOrUnresolvedAddressAsNotLoopbackAndALocalChannelAsLoopback() {
        SocketAddress unresolved = InetSocketAddress.createUnresolved("localhost", 5672);

        assertThat(authenticator.authenticate("guest", "guest".toCharArray(), null).succeeded()).isFalse();
        assertThat(authenticator.authenticate("guest", "guest".toCharArray(), unresolved).succeeded()).isFalse();
        assertThat(authenticator.authenticate("guest", "guest".toCharArray(),
                UnixDomainSocketAddress.of("/tmp/tandem.sock")).succeeded()).isTrue();
    }

    @Test
    void aWrongPasswordOfALoopbackOnlyUserIsReportedAsAWrongPassword() {
        AuthResult result = authenticator.authenticate("guest", "nope".toCharArray(), REMOTE);

        assertThat(result.failureReason()).contains("wrong password");
    }

    @Test
    void offersAnonymousOnlyWhenTheConfigurationEnablesIt() throws ConfigException {
        assertThat(authenticator.anonymousEnabled()).isFalse();
        assertThat(new FileAuthenticator(users(), true).anonymousEnabled()).isTrue();

        BrokerConfig config = new BrokerConfig(Path.of("broker.xml"),
                List.of(new ListenerConfig("amqp", "127.0.0.1", 0, Optional.empty())), "localhost:0",
                ShippedUsersFile.PATH, true, ConnectionLimits.DEFAULTS, 0, List.of(), "default");
        assertThat(FileAuthenticator.fromConfig(config).anonymousEnabled()).isTrue();
    }

    @Test
    void theShippedGuestUserLogsInWithPasswordGuestFromThisMachineOnly() throws ConfigException {
        FileAuthenticator shipped = new FileAuthenticator(UsersFile.load(ShippedUsersFile.PATH), false);

        assertThat(shipped.authenticate("guest", "guest".toCharArray(), LOOPBACK).succeeded()).isTrue();
        assertThat(shipped.authenticate("guest", "guest".toCharArray(), REMOTE).succeeded()).isFalse();
        assertThat(shipped.authenticate("guest", "Guest".toCharArray(), LOOPBACK).succeeded()).isFalse();
    }

    /** etc/users, seen from the module directory where tests run. */
    static final class ShippedUsersFile {
        static final Path PATH = Path.of("..", "etc", "users").toAbsolutePath().normalize();
    }
}
