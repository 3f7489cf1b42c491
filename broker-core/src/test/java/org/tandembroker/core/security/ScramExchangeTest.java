package org.tandembroker.core.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** The server side of SCRAM against a client written here from RFC 5802, with the JDK's HMAC and PBKDF2. */
class ScramExchangeTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 40000);
    private static final InetSocketAddress REMOTE = new InetSocketAddress("192.0.2.7", 40000);
    private final FileAuthenticator authenticator = new FileAuthenticator(UsersFile.empty(Path.of("users"))
            .withUser(new UserAccount("alice", PasswordHash.create("wonderland".toCharArray(), 1000), false,
                    ManagementRole.MONITOR))
            .withUser(new UserAccount("guest", PasswordHash.create("guest".toCharArray(), 1000), true))
            .withUser(new UserAccount("old", PasswordHash.createLegacy("old-pw".toCharArray(), 1000), false)),
            false);

    /** A SCRAM client, as Qpid JMS or Cyrus SASL would run it. */
    private record Client(ScramMechanism mechanism, String user, String password, String nonce) {
        String first() {
            return "n,,n=" + user + ",r=" + nonce;
        }

        String last(String serverFirst) {
            String[] parts = serverFirst.split(",");
            String combinedNonce = parts[0].substring(2);
            byte[] salt = Base64.getDecoder().decode(parts[1].substring(2));
            int iterations = Integer.parseInt(parts[2].substring(2));
            byte[] salted = mechanism.saltedPassword(password.toCharArray(), salt, iterations);
            byte[] clientKey = mechanism.hmac(salted, ScramCredential.CLIENT_KEY);
            String withoutProof = "c=biws,r=" + combinedNonce;
            byte[] authMessage = (first().substring(3) + "," + serverFirst + "," + withoutProof)
                    .getBytes(StandardCharsets.UTF_8);
            byte[] signature = mechanism.hmac(mechanism.hash(clientKey), authMessage);
            byte[] proof = new byte[clientKey.length];
            for (int i = 0; i < proof.length; i++) {
                proof[i] = (byte) (clientKey[i] ^ signature[i]);
            }
            return withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
        }

        String expectedServerFinal(String serverFirst, String last) {
            String[] parts = serverFirst.split(",");
            byte[] salt = Base64.getDecoder().decode(parts[1].substring(2));
            byte[] salted = mechanism.saltedPassword(password.toCharArray(), salt, Integer.parseInt(
                    parts[2].substring(2)));
            byte[] authMessage = (first().substring(3) + "," + serverFirst + ","
                    + last.substring(0, last.lastIndexOf(",p="))).getBytes(StandardCharsets.UTF_8);
            return "v=" + Base64.getEncoder().encodeToString(mechanism.hmac(
                    mechanism.hmac(salted, ScramCredential.SERVER_KEY), authMessage));
        }
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private ScramExchange.Done run(Client client, InetSocketAddress from) {
        ScramExchange exchange = authenticator.startScram(client.mechanism(), from).orElseThrow();
        ScramExchange.Step first = exchange.handle(client.first().getBytes(StandardCharsets.UTF_8));
        if (first instanceof ScramExchange.Done done) {
            return done;
        }
        String serverFirst = text(((ScramExchange.Challenge) first).data());
        return (ScramExchange.Done) exchange.handle(client.last(serverFirst).getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void theRightPasswordAuthenticatesAndTheServerProvesItKnowsTheKey(ScramMechanism mechanism) {
        Client client = new Client(mechanism, "alice", "wonderland", "fyko+d2lbbFgONRv9qkxdawL");
        ScramExchange exchange = authenticator.startScram(mechanism, REMOTE).orElseThrow();

        String serverFirst = text(((ScramExchange.Challenge) exchange.handle(
                client.first().getBytes(StandardCharsets.UTF_8))).data());
        String last = client.last(serverFirst);
        ScramExchange.Done done = (ScramExchange.Done) exchange.handle(last.getBytes(StandardCharsets.UTF_8));

        assertThat(serverFirst).startsWith("r=fyko+d2lbbFgONRv9qkxdawL").contains(",i=1000");
        assertThat(done.result().succeeded()).isTrue();
        assertThat(done.result().user()).isEqualTo("alice");
        assertThat(done.result().managementRole()).isEqualTo(ManagementRole.MONITOR);
        assertThat(text(done.serverFinal())).isEqualTo(client.expectedServerFinal(serverFirst, last));
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void aWrongPasswordFailsWithoutAServerSignature(ScramMechanism mechanism) {
        ScramExchange.Done done = run(new Client(mechanism, "alice", "wonderlanD", "abc"), REMOTE);

        assertThat(done.result().succeeded()).isFalse();
        assertThat(done.result().failureKind()).isEqualTo(AuthFailure.WRONG_PASSWORD);
        assertThat(done.result().failureReason()).contains("wrong password", "alice").doesNotContain("wonderlan");
        assertThat(done.serverFinal()).isNull();
    }

    @Test
    void anUnknownUserGetsTheSameMadeUpSaltEachTimeAndFailsOnlyAtTheProof() {
        ScramExchange first = authenticator.startScram(ScramMechanism.SHA_256, REMOTE).orElseThrow();
        ScramExchange second = authenticator.startScram(ScramMechanism.SHA_256, REMOTE).orElseThrow();
        String salt1 = text(((ScramExchange.Challenge) first.handle("n,,n=mallory,r=x".getBytes())).data())
                .split(",")[1];
        String salt2 = text(((ScramExchange.Challenge) second.handle("n,,n=mallory,r=y".getBytes())).data())
                .split(",")[1];

        ScramExchange.Done done = run(new Client(ScramMechanism.SHA_256, "mallory", "guess", "z"), REMOTE);

        assertThat(salt1).isEqualTo(salt2);
        assertThat(done.result().failureKind()).isEqualTo(AuthFailure.UNKNOWN_USER);
        assertThat(done.result().failureReason()).contains("unknown user 'mallory'");
    }

    @Test
    void anEntryOfTheEarlierFormCannotUseScramAndTheReasonSaysHowToMigrate() {
        ScramExchange.Done done = run(new Client(ScramMechanism.SHA_512, "old", "old-pw", "n1"), REMOTE);

        assertThat(done.result().failureKind()).isEqualTo(AuthFailure.NO_CREDENTIAL);
        assertThat(done.result().failureReason()).contains("PLAIN only", "tandem-passwd add");
        assertThat(authenticator.authenticate("old", "old-pw".toCharArray(), REMOTE).succeeded()).isTrue();
    }

    @Test
    void aLoopbackOnlyUserWithTheRightPasswordIsRefusedFromAnotherMachine() {
        assertThat(run(new Client(ScramMechanism.SHA_256, "guest", "guest", "n"), LOOPBACK).result().succeeded())
                .isTrue();
        ScramExchange.Done remote = run(new Client(ScramMechanism.SHA_256, "guest", "guest", "n"), REMOTE);
        assertThat(remote.result().failureKind()).isEqualTo(AuthFailure.LOOPBACK_ONLY);
    }

    @Test
    void aReplayedFinalMessageWithAnotherNonceFails() {
        Client client = new Client(ScramMechanism.SHA_256, "alice", "wonderland", "n1");
        ScramExchange exchange = authenticator.startScram(ScramMechanism.SHA_256, REMOTE).orElseThrow();
        exchange.handle(client.first().getBytes(StandardCharsets.UTF_8));
        String forged = client.last("r=n1OTHER,s=AAAAAAAAAAAAAAAAAAAAAA==,i=1000");

        ScramExchange.Done done = (ScramExchange.Done) exchange.handle(forged.getBytes(StandardCharsets.UTF_8));

        assertThat(done.result().succeeded()).isFalse();
        assertThat(done.result().failureReason()).contains("another nonce");
    }

    @Test
    void channelBindingAndMalformedMessagesAreRefused() {
        ScramExchange bound = authenticator.startScram(ScramMechanism.SHA_256, REMOTE).orElseThrow();
        ScramExchange garbled = authenticator.startScram(ScramMechanism.SHA_256, REMOTE).orElseThrow();

        ScramExchange.Step binding = bound.handle("p=tls-unique,,n=alice,r=x".getBytes());
        ScramExchange.Step malformed = garbled.handle("hello".getBytes());

        assertThat(((ScramExchange.Done) binding).result().failureReason()).contains("channel binding");
        assertThat(((ScramExchange.Done) malformed).result().failureKind()).isEqualTo(AuthFailure.MALFORMED);
    }

    @Test
    void plainAgainstAScramEntryChecksThePassword() {
        assertThat(authenticator.authenticate("alice", "wonderland".toCharArray(), REMOTE).succeeded()).isTrue();
        assertThat(authenticator.authenticate("alice", "nope".toCharArray(), REMOTE).failureKind())
                .isEqualTo(AuthFailure.WRONG_PASSWORD);
    }
}
