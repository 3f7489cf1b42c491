package org.tandembroker.core.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * A salted password hash: PBKDF2 with HMAC-SHA256 (the JDK's {@code PBKDF2WithHmacSHA256}), a random 16-byte
 * salt and a 32-byte derived key, written as {@code pbkdf2-sha256:<iterations>:<base64 salt>:<base64 hash>}.
 * Passwords are encoded as UTF-8 by the JDK before hashing.
 *
 * <h2>Cost</h2>
 * {@link #DEFAULT_ITERATIONS} keeps a check at a few milliseconds, so that many clients connecting at once are
 * served within a second (checks run off the network threads; measured in docs/configuration.md, "Users"). The
 * count is stored per hash, so it can be raised later without invalidating existing hashes.
 * <p>Immutable and thread-safe.
 */
public final class PasswordHash {

    public static final String SCHEME = "pbkdf2-sha256";
    public static final int DEFAULT_ITERATIONS = 20_000;
    /** Hashes with more iterations are refused: a check must stay cheap enough to serve many clients. */
    public static final int MAX_ITERATIONS = 10_000_000;
    public static final String FORMAT = SCHEME + ":<iterations>:<base64 salt>:<base64 hash>";

    private static final String ALGORITHM = "PBKDF2WithHmacSHA256";
    private static final int SALT_BYTES = 16;
    private static final int HASH_BYTES = 32;
    private static final int MIN_SALT_BYTES = 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final int iterations;
    private final byte[] salt;
    private final byte[] hash;

    private PasswordHash(int iterations, byte[] salt, byte[] hash) {
        this.iterations = iterations;
        this.salt = salt;
        this.hash = hash;
    }

    /** Hashes {@code password} with a fresh random salt and {@link #DEFAULT_ITERATIONS}. */
    public static PasswordHash create(char[] password) {
        return create(password, DEFAULT_ITERATIONS);
    }

    public static PasswordHash create(char[] password, int iterations) {
        if (iterations < 1 || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be from 1 to " + MAX_ITERATIONS);
        }
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        return new PasswordHash(iterations, salt, derive(password, salt, iterations, HASH_BYTES));
    }

    /**
     * Reads the encoded form.
     *
     * @throws IllegalArgumentException saying what is wrong (never echoing the hash)
     */
    public static PasswordHash decode(String encoded) {
        Objects.requireNonNull(encoded, "encoded");
        String[] parts = encoded.split(":", -1);
        if (parts.length != 4 || !parts[0].equals(SCHEME)) {
            throw new IllegalArgumentException("not of the form " + FORMAT);
        }
        int iterations;
        try {
            iterations = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("iterations is not a number");
        }
        if (iterations < 1 || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be from 1 to " + MAX_ITERATIONS);
        }
        byte[] salt;
        byte[] hash;
        try {
            salt = Base64.getDecoder().decode(parts[2]);
            hash = Base64.getDecoder().decode(parts[3]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("salt or hash is not base64");
        }
        if (salt.length < MIN_SALT_BYTES) {
            throw new IllegalArgumentException("salt is shorter than " + MIN_SALT_BYTES + " bytes");
        }
        if (hash.length != HASH_BYTES) {
            throw new IllegalArgumentException("hash is not " + HASH_BYTES + " bytes");
        }
        return new PasswordHash(iterations, salt, hash);
    }

    public String encode() {
        Base64.Encoder b64 = Base64.getEncoder();
        return SCHEME + ":" + iterations + ":" + b64.encodeToString(salt) + ":" + b64.encodeToString(hash);
    }

    /** Whether {@code password} hashes to this hash; the comparison takes the same time wherever they differ. */
    public boolean matches(char[] password) {
        return MessageDigest.isEqual(hash, derive(password, salt, iterations, hash.length));
    }

    public int iterations() {
        return iterations;
    }

    @Override
    public String toString() {
        return SCHEME + ":" + iterations + ":...";
    }

    private static byte[] derive(char[] password, byte[] salt, int iterations, int bytes) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, bytes * 8);
        try {
            return SecretKeyFactory.getInstance(ALGORITHM).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is missing from this JDK", e);
        } finally {
            spec.clearPassword();
        }
    }
}
