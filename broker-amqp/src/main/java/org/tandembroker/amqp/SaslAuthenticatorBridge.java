package org.tandembroker.amqp;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.SaslListener;
import org.apache.qpid.proton.engine.Transport;
import org.tandembroker.core.security.AuthFailure;
import org.tandembroker.core.security.AuthResult;
import org.tandembroker.core.security.ScramExchange;
import org.tandembroker.core.security.ScramMechanism;

/**
 * The server side of SASL: offers what {@link SaslMechanisms} allows this connection, and runs the chosen
 * mechanism: PLAIN (a password checked by the core's authenticator), SCRAM-SHA-256/512 (a challenge and a response,
 * the server's signature sent with the outcome), EXTERNAL (the user named by the client's trusted TLS certificate)
 * or ANONYMOUS. Every check runs off the event loop (PBKDF2 is slow on purpose). Before the outcome the connection
 * waits as long as the {@code AuthenticationThrottle} says for the client's address, by scheduling, never blocking.
 * Passwords are never logged and are wiped once checked.
 *
 * <p>Thread: Proton calls the listener methods on the connection's event loop, which owns {@code offered},
 * {@code chosen} and {@code finished}; checks run on the front end's authentication executor; results come back
 * through the {@link ConnectionExecutor}. {@code exchange} is set on the authentication executor before the
 * challenge is handed to the event loop (the hand-off publishes it) and only read on the event loop after that.
 */
final class SaslAuthenticatorBridge implements SaslListener {
    static final String ANONYMOUS_USER = "anonymous";

    /** What the connection learns when SASL ends; called on the event loop. */
    interface Outcome {
        void authenticated(String user);

        void authenticationFailed(String reason);
    }

    private final FrontEndResources resources;
    private final ConnectionExecutor connectionExecutor;
    private final SocketAddress remote;
    private final Supplier<Optional<String>> certificateUser;
    private final Outcome outcome;
    private String[] offered = new String[0];
    private ScramExchange exchange;
    private String chosen;
    private boolean finished;

    SaslAuthenticatorBridge(FrontEndResources resources, ConnectionExecutor connectionExecutor, SocketAddress remote,
                            Supplier<Optional<String>> certificateUser, Outcome outcome) {
        this.resources = resources;
        this.connectionExecutor = connectionExecutor;
        this.remote = remote;
        this.certificateUser = certificateUser;
        this.outcome = outcome;
    }

    /** Sets what {@link SaslMechanisms} offers; before the first SASL frame is written. */
    void offer(Sasl sasl, String[] mechanisms) {
        this.offered = mechanisms.clone();
        sasl.setMechanisms(mechanisms);
    }

    /** For the log when the client leaves before the outcome: how far the exchange came. */
    String progress() {
        return chosen == null
                ? "the client closed the connection without choosing a SASL mechanism; offered: "
                        + String.join(" ", offered)
                : "the client closed the connection during its " + chosen + " exchange";
    }

    boolean finished() {
        return finished;
    }

    @Override
    public void onSaslInit(Sasl sasl, Transport transport) {
        String[] mechanisms = sasl.getRemoteMechanisms();
        String mechanism = mechanisms == null || mechanisms.length == 0 ? "" : mechanisms[0];
        chosen = mechanism;
        byte[] response = receive(sasl);
        if (!Arrays.asList(offered).contains(mechanism)) {
            Arrays.fill(response, (byte) 0);
            finish(sasl, AuthResult.failure(AuthFailure.MECHANISM, "mechanism '" + mechanism + "' is not offered "
                    + "to this client; offered: " + String.join(" ", offered)), null);
            return;
        }
        Optional<ScramMechanism> scram = ScramMechanism.ofSaslName(mechanism);
        switch (mechanism) {
            case SaslMechanisms.ANONYMOUS -> finish(sasl, AuthResult.success(ANONYMOUS_USER), null);
            case SaslMechanisms.PLAIN -> checkPlain(sasl, response);
            case SaslMechanisms.EXTERNAL -> {
                Optional<String> user = certificateUser.get();
                if (user.isEmpty()) {
                    finish(sasl, AuthResult.failure(AuthFailure.MECHANISM,
                            "EXTERNAL without a trusted client certificate"), null);
                } else {
                    offTheEventLoop(sasl, () -> new Step(
                            resources.authenticator().authenticateCertificate(user.get(), remote), null, null));
                }
            }
            default -> offTheEventLoop(sasl, () -> {
                Optional<ScramExchange> started = resources.authenticator().startScram(scram.orElseThrow(), remote);
                if (started.isEmpty()) {
                    return new Step(AuthResult.failure(AuthFailure.MECHANISM, mechanism
                            + " is not served by this broker's authenticator"), null, null);
                }
                exchange = started.get();
                return step(exchange.handle(response));
            });
        }
    }

    @Override
    public void onSaslResponse(Sasl sasl, Transport transport) {
        byte[] response = receive(sasl);
        ScramExchange current = exchange;
        if (current == null || finished) {
            finish(sasl, AuthResult.failure(AuthFailure.MALFORMED, "an unexpected SASL response"), null);
            return;
        }
        offTheEventLoop(sasl, () -> step(current.handle(response)));
    }

    /** A mechanism's answer: a challenge to send, or a result (with the data to send with a success). */
    private record Step(AuthResult result, byte[] challenge, byte[] additionalData) {
    }

    private static Step step(ScramExchange.Step step) {
        if (step instanceof ScramExchange.Challenge challenge) {
            return new Step(null, challenge.data(), null);
        }
        ScramExchange.Done done = (ScramExchange.Done) step;
        return new Step(done.result(), null, done.serverFinal());
    }

    private static byte[] receive(Sasl sasl) {
        byte[] bytes = new byte[Math.max(0, sasl.pending())];
        if (bytes.length > 0) {
            sasl.recv(bytes, 0, bytes.length);
        }
        return bytes;
    }

    private void checkPlain(Sasl sasl, byte[] response) {
        // authzid NUL authcid NUL password
        int first = indexOf(response, 0);
        int second = first < 0 ? -1 : indexOf(response, first + 1);
        if (second < 0) {
            Arrays.fill(response, (byte) 0);
            finish(sasl, AuthResult.failure(AuthFailure.MALFORMED, "malformed PLAIN response"), null);
            return;
        }
        String user = new String(response, first + 1, second - first - 1, StandardCharsets.UTF_8);
        char[] password;
        try {
            password = decodePassword(response, second + 1);
        } catch (CharacterCodingException e) {
            finish(sasl, AuthResult.failure(AuthFailure.MALFORMED, "password is not UTF-8"), null);
            return;
        } finally {
            Arrays.fill(response, (byte) 0);
        }
        offTheEventLoop(sasl, () -> {
            try {
                return new Step(resources.authenticator().authenticate(user, password, remote), null, null);
            } finally {
                Arrays.fill(password, '\0');
            }
        });
    }

    /** Runs a check on the authentication executor and acts on its answer back on the event loop. */
    private void offTheEventLoop(Sasl sasl, Supplier<Step> check) {
        try {
            resources.authExecutor().execute(() -> {
                Step answer;
                try {
                    answer = check.get();
                } catch (RuntimeException e) {
                    answer = new Step(AuthResult.failure(AuthFailure.OTHER, "authenticator failed: " + e), null, null);
                }
                Step result = answer;
                connectionExecutor.execute(() -> {
                    if (result.challenge() != null) {
                        sasl.send(result.challenge(), 0, result.challenge().length);
                    } else {
                        finish(sasl, result.result(), result.additionalData());
                    }
                });
            });
        } catch (RejectedExecutionException e) {
            finish(sasl, AuthResult.failure(AuthFailure.OTHER, "broker is shutting down"), null);
        }
    }

    /** Counts and throttles, then (now or after the delay) sends the outcome. */
    private void finish(Sasl sasl, AuthResult result, byte[] additionalData) {
        if (finished) {
            return;
        }
        finished = true;
        Duration delay = resources.throttle().delayFor(remote);
        if (!result.succeeded()) {
            resources.throttle().failed(remote);
            resources.statistics().authenticationFailed(result.failureKind());
        }
        if (delay.isZero() || !connectionExecutor.schedule(() -> sendOutcome(sasl, result, additionalData), delay)) {
            sendOutcome(sasl, result, additionalData);
        }
    }

    private void sendOutcome(Sasl sasl, AuthResult result, byte[] additionalData) {
        if (result.succeeded()) {
            sasl.done(Sasl.SaslOutcome.PN_SASL_OK);
            if (additionalData != null) {
                sasl.send(additionalData, 0, additionalData.length); // after done(): the outcome's additional-data
            }
            outcome.authenticated(result.user());
        } else {
            sasl.done(Sasl.SaslOutcome.PN_SASL_AUTH);
            outcome.authenticationFailed((chosen == null || chosen.isEmpty() ? "" : chosen + ": ")
                    + result.failureReason());
        }
    }

    private static char[] decodePassword(byte[] bytes, int from) throws CharacterCodingException {
        CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                .decode(ByteBuffer.wrap(bytes, from, bytes.length - from));
        char[] password = new char[chars.remaining()];
        chars.get(password);
        Arrays.fill(chars.array(), '\0');
        return password;
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void onSaslMechanisms(Sasl sasl, Transport transport) {
        // client side only
    }

    @Override
    public void onSaslChallenge(Sasl sasl, Transport transport) {
        // client side only
    }

    @Override
    public void onSaslOutcome(Sasl sasl, Transport transport) {
        // client side only
    }
}
