package org.tandembroker.core.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

/**
 * What the users file keeps of a password for one SCRAM mechanism (RFC 5802 section 3): the salt, the iteration
 * count, {@code StoredKey = H(HMAC(SaltedPassword, "Client Key"))} and {@code ServerKey = HMAC(SaltedPassword,
 * "Server Key")}. Neither key lets anyone log in: the client proof needs {@code ClientKey}, which only the password
 * gives. Written as {@code scram-sha-256:<iterations>:<base64 salt>:<base64 StoredKey>:<base64 ServerKey>}.
 * <p>Immutable and thread-safe (the arrays are never handed out).
 */
public final class ScramCredential {
    static final byte[] CLIENT_KEY = "Client Key".getBytes(StandardCharsets.US_ASCII);
    static final byte[] SERVER_KEY = "Server Key".getBytes(StandardCharsets.US_ASCII);

    private final ScramMechanism mechanism;
    private final int iterations;
    private final byte[] salt;
    private final byte[] storedKey;
    private final byte[] serverKey;

    ScramCredential(ScramMechanism mechanism, int iterations, byte[] salt, byte[] storedKey, byte[] serverKey) {
        this.mechanism = mechanism;
        this.iterations = iterations;
        this.salt = salt.clone();
        this.storedKey = storedKey.clone();
        this.serverKey = serverKey.clone();
    }

    /** Derives the credential of {@code password}. */
    static ScramCredential derive(ScramMechanism mechanism, char[] password, byte[] salt, int iterations) {
        byte[] salted = mechanism.saltedPassword(password, salt, iterations);
        try {
            return fromSaltedPassword(mechanism, salted, salt, iterations);
        } finally {
            Arrays.fill(salted, (byte) 0);
        }
    }

    static ScramCredential fromSaltedPassword(ScramMechanism mechanism, byte[] salted, byte[] salt, int iterations) {
        byte[] clientKey = mechanism.hmac(salted, CLIENT_KEY);
        byte[] stored = mechanism.hash(clientKey);
        Arrays.fill(clientKey, (byte) 0);
        return new ScramCredential(mechanism, iterations, salt, stored, mechanism.hmac(salted, SERVER_KEY));
    }

    public ScramMechanism mechanism() {
        return mechanism;
    }

    public int iterations() {
        return iterations;
    }

    byte[] salt() {
        return salt.clone();
    }

    byte[] storedKey() {
        return storedKey.clone();
    }

    byte[] serverKey() {
        return serverKey.clone();
    }

    /** Whether {@code password} derives this credential (PLAIN against a SCRAM entry); constant-time compare. */
    boolean matches(char[] password) {
        ScramCredential other = derive(mechanism, password, salt, iterations);
        return MessageDigest.isEqual(storedKey, other.storedKey);
    }

    String encode() {
        Base64.Encoder b64 = Base64.getEncoder();
        return mechanism.scheme() + ":" + iterations + ":" + b64.encodeToString(salt) + ":"
                + b64.encodeToString(storedKey) + ":" + b64.encodeToString(serverKey);
    }
}
