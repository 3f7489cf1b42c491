package org.tandembroker.core.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * The server side of one SCRAM exchange (RFC 5802 as profiled by RFC 7677), without channel binding:
 * <pre>
 * client-first  n,,n=user,r=cnonce              -> server-first  r=cnonce+snonce,s=salt,i=iterations
 * client-final  c=biws,r=cnonce+snonce,p=proof  -> server-final  v=ServerSignature   (or a failure)
 * </pre>
 * An unknown user, or one whose entry serves PLAIN only, gets a made-up salt that is the same on every attempt, and
 * fails only at the proof: the exchange does not tell which user names exist. Failure reasons are for the broker's
 * log, never sent to the client.
 *
 * <p>Thread: one exchange belongs to one connection and is driven by one thread at a time (the SASL executor);
 * not thread-safe.
 */
public final class ScramExchange {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int NONCE_BYTES = 18;

    /** What an exchange needs of the users. */
    public interface Accounts {
        /** The user's credential for {@code mechanism}; empty for an unknown user or a PLAIN-only entry. */
        Optional<ScramCredential> credential(String user, ScramMechanism mechanism);

        /** Why {@link #credential} is empty: UNKNOWN_USER or NO_CREDENTIAL, with the text for the log. */
        AuthResult missingReason(String user, ScramMechanism mechanism);

        /** The proof was right: the account's remaining checks (loopback-only, role). */
        AuthResult verified(String user);

        /** A salt for users without a credential, stable per user and mechanism. */
        byte[] decoySalt(String user, ScramMechanism mechanism);
    }

    /** What the exchange answers a client message with. */
    public sealed interface Step {
    }

    /** Send {@code data} as a challenge and wait for the client's next message. */
    public record Challenge(byte[] data) implements Step {
    }

    /** The exchange is over: the result, and for a success the server-final message to send with the outcome. */
    public record Done(AuthResult result, byte[] serverFinal) implements Step {
    }

    private final ScramMechanism mechanism;
    private final Accounts accounts;
    private String user;
    private ScramCredential credential;
    private AuthResult missing;
    private String clientFirstBare;
    private String serverFirst;
    private String gs2Header;
    private String nonce;

    public ScramExchange(ScramMechanism mechanism, Accounts accounts) {
        this.mechanism = mechanism;
        this.accounts = accounts;
    }

    public ScramMechanism mechanism() {
        return mechanism;
    }

    /** The user the client named (null before its first message). */
    public String user() {
        return user;
    }

    /** Handles the client's next message. */
    public Step handle(byte[] message) {
        String text = new String(message, StandardCharsets.UTF_8);
        try {
            return serverFirst == null ? first(text) : last(text);
        } catch (IllegalArgumentException e) {
            return new Done(AuthResult.failure(AuthFailure.MALFORMED, mechanism.saslName()
                    + ": malformed client message: " + e.getMessage()), null);
        }
    }

    private Step first(String text) {
        // gs2-header: cbind-flag "," [authzid] ","
        int comma1 = text.indexOf(',');
        int comma2 = comma1 < 0 ? -1 : text.indexOf(',', comma1 + 1);
        if (comma2 < 0) {
            throw new IllegalArgumentException("no GS2 header");
        }
        String flag = text.substring(0, comma1);
        if (flag.startsWith("p=")) {
            return failure(mechanism.saslName() + ": the client asked for channel binding, which is not offered");
        }
        if (!flag.equals("n") && !flag.equals("y")) {
            throw new IllegalArgumentException("unknown channel binding flag");
        }
        String authzid = text.substring(comma1 + 1, comma2);
        gs2Header = text.substring(0, comma2 + 1);
        clientFirstBare = text.substring(comma2 + 1);
        String[] attributes = clientFirstBare.split(",", -1);
        if (attributes.length < 2 || !attributes[0].startsWith("n=") || !attributes[1].startsWith("r=")) {
            throw new IllegalArgumentException("expected n=user,r=nonce");
        }
        user = saslName(attributes[0].substring(2));
        String clientNonce = attributes[1].substring(2);
        if (clientNonce.isEmpty()) {
            throw new IllegalArgumentException("empty nonce");
        }
        if (!authzid.isEmpty() && !(authzid.startsWith("a=") && saslName(authzid.substring(2)).equals(user))) {
            return failure(mechanism.saslName() + ": user '" + user + "' asked to act as another identity ("
                    + authzid + "), which is not allowed");
        }
        Optional<ScramCredential> found = accounts.credential(user, mechanism);
        byte[] salt;
        int iterations;
        if (found.isPresent()) {
            credential = found.get();
            salt = credential.salt();
            iterations = credential.iterations();
        } else {
            missing = accounts.missingReason(user, mechanism);
            salt = accounts.decoySalt(user, mechanism);
            iterations = PasswordHash.DEFAULT_ITERATIONS;
        }
        byte[] serverNonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(serverNonce);
        nonce = clientNonce + Base64.getEncoder().encodeToString(serverNonce);
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(salt) + ",i=" + iterations;
        return new Challenge(serverFirst.getBytes(StandardCharsets.UTF_8));
    }

    private Step last(String text) {
        int proofAt = text.lastIndexOf(",p=");
        if (proofAt < 0) {
            throw new IllegalArgumentException("no proof");
        }
        String withoutProof = text.substring(0, proofAt);
        String[] attributes = withoutProof.split(",", -1);
        if (attributes.length < 2 || !attributes[0].startsWith("c=") || !attributes[1].startsWith("r=")) {
            throw new IllegalArgumentException("expected c=...,r=...,p=...");
        }
        byte[] binding = Base64.getDecoder().decode(attributes[0].substring(2));
        if (!Arrays.equals(binding, gs2Header.getBytes(StandardCharsets.UTF_8))) {
            return failure(mechanism.saslName() + ": channel binding data differs from the GS2 header");
        }
        if (!attributes[1].substring(2).equals(nonce)) {
            return failure(mechanism.saslName() + ": the client's final message carries another nonce");
        }
        byte[] proof = Base64.getDecoder().decode(text.substring(proofAt + 3));
        if (credential == null) {
            return new Done(missing, null);
        }
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof)
                .getBytes(StandardCharsets.UTF_8);
        byte[] storedKey = credential.storedKey();
        byte[] clientSignature = mechanism.hmac(storedKey, authMessage);
        if (proof.length != clientSignature.length) {
            return new Done(AuthResult.failure(AuthFailure.WRONG_PASSWORD, "wrong password for user '" + user + "'"), null);
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
        }
        if (!MessageDigest.isEqual(mechanism.hash(clientKey), storedKey)) {
            return new Done(AuthResult.failure(AuthFailure.WRONG_PASSWORD, "wrong password for user '" + user + "'"), null);
        }
        AuthResult result = accounts.verified(user);
        if (!result.succeeded()) {
            return new Done(result, null);
        }
        byte[] serverSignature = mechanism.hmac(credential.serverKey(), authMessage);
        String serverFinal = "v=" + Base64.getEncoder().encodeToString(serverSignature);
        return new Done(result, serverFinal.getBytes(StandardCharsets.UTF_8));
    }

    private static Done failure(String reason) {
        return new Done(AuthResult.failure(AuthFailure.MALFORMED, reason), null);
    }

    /** RFC 5802 saslname: "=2C" is ',' and "=3D" is '='; any other '=' is malformed. */
    private static String saslName(String escaped) {
        StringBuilder name = new StringBuilder(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c == '=') {
                String code = escaped.length() >= i + 3 ? escaped.substring(i + 1, i + 3) : "";
                if (code.equals("2C")) {
                    name.append(',');
                } else if (code.equals("3D")) {
                    name.append('=');
                } else {
                    throw new IllegalArgumentException("bad escape in user name");
                }
                i += 2;
            } else {
                name.append(c);
            }
        }
        return name.toString();
    }
}
