package org.tandembroker.amqp;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.SaslListener;
import org.apache.qpid.proton.engine.Transport;
import org.tandembroker.core.security.AuthResult;
import org.tandembroker.core.security.Authenticator;

/**
 * The server side of SASL: offers PLAIN (and ANONYMOUS when enabled), checks a PLAIN response with the core's
 * {@link Authenticator} off the event loop (password hashing is slow), and finishes the exchange on the event
 * loop when the answer is back. Passwords are never logged and are wiped once checked.
 *
 * <p>Thread: Proton calls the listener methods on the connection's event loop; {@code authenticate} runs on
 * the front end's authentication executor; the result comes back through the {@link ConnectionExecutor}.
 */
final class SaslAuthenticatorBridge implements SaslListener {
    static final String PLAIN = "PLAIN";
    static final String ANONYMOUS = "ANONYMOUS";
    static final String ANONYMOUS_USER = "anonymous";

    /** What the connection learns when SASL ends; called on the event loop. */
    interface Outcome {
        void authenticated(String user);

        void authenticationFailed(String reason);
    }

    private final Authenticator authenticator;
    private final Executor authExecutor;
    private final ConnectionExecutor connectionExecutor;
    private final SocketAddress remote;
    private final Outcome outcome;

    SaslAuthenticatorBridge(Authenticator authenticator, Executor authExecutor,
                            ConnectionExecutor connectionExecutor, SocketAddress remote, Outcome outcome) {
        this.authenticator = authenticator;
        this.authExecutor = authExecutor;
        this.connectionExecutor = connectionExecutor;
        this.remote = remote;
        this.outcome = outcome;
    }

    /** The mechanisms to offer. */
    static String[] mechanisms(boolean anonymousEnabled) {
        return anonymousEnabled ? new String[]{PLAIN, ANONYMOUS} : new String[]{PLAIN};
    }

    @Override
    public void onSaslInit(Sasl sasl, Transport transport) {
        String[] chosen = sasl.getRemoteMechanisms();
        String mechanism = chosen == null || chosen.length == 0 ? "" : chosen[0];
        byte[] response = new byte[Math.max(0, sasl.pending())];
        if (response.length > 0) {
            sasl.recv(response, 0, response.length);
        }
        if (ANONYMOUS.equals(mechanism) && authenticator.anonymousEnabled()) {
            finish(sasl, AuthResult.success(ANONYMOUS_USER));
        } else if (PLAIN.equals(mechanism)) {
            checkPlain(sasl, response);
        } else {
            finish(sasl, AuthResult.failure("mechanism '" + mechanism + "' is not offered"));
        }
    }

    private void checkPlain(Sasl sasl, byte[] response) {
        // authzid NUL authcid NUL password
        int first = indexOf(response, 0);
        int second = first < 0 ? -1 : indexOf(response, first + 1);
        if (second < 0) {
            Arrays.fill(response, (byte) 0);
            finish(sasl, AuthResult.failure("malformed PLAIN response"));
            return;
        }
        String user = new String(response, first + 1, second - first - 1, StandardCharsets.UTF_8);
        char[] password;
        try {
            password = decodePassword(response, second + 1);
        } catch (CharacterCodingException e) {
            finish(sasl, AuthResult.failure("password is not UTF-8"));
            return;
        } finally {
            Arrays.fill(response, (byte) 0);
        }
        try {
            authExecutor.execute(() -> {
                AuthResult result;
                try {
                    result = authenticator.authenticate(user, password, remote);
                } catch (RuntimeException e) {
                    result = AuthResult.failure("authenticator failed: " + e);
                } finally {
                    Arrays.fill(password, '\0');
                }
                AuthResult answer = result;
                connectionExecutor.execute(() -> finish(sasl, answer));
            });
        } catch (RejectedExecutionException e) {
            Arrays.fill(password, '\0');
            finish(sasl, AuthResult.failure("broker is shutting down"));
        }
    }

    private void finish(Sasl sasl, AuthResult result) {
        if (result.succeeded()) {
            sasl.done(Sasl.SaslOutcome.PN_SASL_OK);
            outcome.authenticated(result.user());
        } else {
            sasl.done(Sasl.SaslOutcome.PN_SASL_AUTH);
            outcome.authenticationFailed(result.failureReason());
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
    public void onSaslResponse(Sasl sasl, Transport transport) {
        // PLAIN and ANONYMOUS finish with the init frame
    }

    @Override
    public void onSaslOutcome(Sasl sasl, Transport transport) {
        // client side only
    }
}
