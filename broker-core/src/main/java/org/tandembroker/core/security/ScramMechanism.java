package org.tandembroker.core.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM mechanisms Tandem serves (RFC 5802, RFC 7677), each with its hash, HMAC and {@code Hi()} (PBKDF2 with
 * that HMAC and a key as long as the hash), all from the JDK. Stateless; any thread.
 */
public enum ScramMechanism {
    SHA_256("SCRAM-SHA-256", "HmacSHA256", "SHA-256", "PBKDF2WithHmacSHA256", 32),
    SHA_512("SCRAM-SHA-512", "HmacSHA512", "SHA-512", "PBKDF2WithHmacSHA512", 64);

    private final String saslName;
    private final String hmac;
    private final String digest;
    private final String pbkdf2;
    private final int keyBytes;

    ScramMechanism(String saslName, String hmac, String digest, String pbkdf2, int keyBytes) {
        this.saslName = saslName;
        this.hmac = hmac;
        this.digest = digest;
        this.pbkdf2 = pbkdf2;
        this.keyBytes = keyBytes;
    }

    /** The SASL name, e.g. {@code SCRAM-SHA-256}. */
    public String saslName() {
        return saslName;
    }

    /** The scheme name in the users file, e.g. {@code scram-sha-256}. */
    public String scheme() {
        return saslName.toLowerCase(Locale.ROOT);
    }

    int keyBytes() {
        return keyBytes;
    }

    /** The mechanism of a SASL name, exactly as a client sends it. */
    public static Optional<ScramMechanism> ofSaslName(String name) {
        for (ScramMechanism m : values()) {
            if (m.saslName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** The mechanism of a users-file scheme name. */
    static Optional<ScramMechanism> ofScheme(String scheme) {
        for (ScramMechanism m : values()) {
            if (m.scheme().equals(scheme)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** {@code Hi(password, salt, iterations)}: the salted password. */
    byte[] saltedPassword(char[] password, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, keyBytes * 8);
        try {
            return SecretKeyFactory.getInstance(pbkdf2).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(pbkdf2 + " is missing from this JDK", e);
        } finally {
            spec.clearPassword();
        }
    }

    byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(hmac);
            mac.init(new SecretKeySpec(key, hmac));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(hmac + " is missing from this JDK", e);
        }
    }

    byte[] hash(byte[] data) {
        try {
            return MessageDigest.getInstance(digest).digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(digest + " is missing from this JDK", e);
        }
    }
}
