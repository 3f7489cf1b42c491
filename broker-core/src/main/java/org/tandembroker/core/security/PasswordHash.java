package org.tandembroker.core.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * What the users file keeps of a user's password: never the password, only values derived from it with a random
 * salt.
 * <ul>
 *   <li>Current form ({@link #create}): one {@link ScramCredential} per SCRAM mechanism, SCRAM-SHA-256 and
 *   SCRAM-SHA-512, written {@code scram-sha-256:<iterations>:<salt>:<StoredKey>:<ServerKey>:scram-sha-512:...}.
 *   It serves SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN (the presented password is derived and compared with
 *   StoredKey).</li>
 *   <li>Earlier form, still read: {@code pbkdf2-sha256:<iterations>:<base64 salt>:<base64 hash>} (PBKDF2 with
 *   HMAC-SHA256, a 32-byte key). It serves PLAIN only; {@code tandem-passwd add} with the password writes the
 *   current form (docs/security.md, "Client authentication").</li>
 * </ul>
 * Passwords are encoded as UTF-8 by the JDK before hashing.
 *
 * <h2>Cost</h2>
 * {@link #DEFAULT_ITERATIONS} keeps a PLAIN check at a few milliseconds, so that many clients connecting at once
 * are served within a second (checks run off the network threads; measured in docs/configuration.md, "Users"). A
 * SCRAM exchange costs the broker two HMACs; the client pays the iterations. The count is stored per credential,
 * so it can be raised later without invalidating existing entries.
 * <p>Immutable and thread-safe.
 */
public final class PasswordHash {

    /** The scheme of the earlier, PLAIN-only form. */
    public static final String SCHEME = "pbkdf2-sha256";
    public static final int DEFAULT_ITERATIONS = 20_000;
    /** Entries with more iterations are refused: a check must stay cheap enough to serve many clients. */
    public static final int MAX_ITERATIONS = 10_000_000;
    public static final String FORMAT = "scram-sha-256:<iterations>:<salt>:<StoredKey>:<ServerKey>"
            + ":scram-sha-512:<iterations>:<salt>:<StoredKey>:<ServerKey> (or the earlier " + SCHEME
            + ":<iterations>:<salt>:<hash>); all values base64";

    private static final String LEGACY_ALGORITHM = "PBKDF2WithHmacSHA256";
    private static final int SALT_BYTES = 16;
    private static final int LEGACY_HASH_BYTES = 32;
    private static final int MIN_SALT_BYTES = 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Set for the earlier form only. */
    private final Legacy legacy;
    private final Map<ScramMechanism, ScramCredential> scram;

    private record Legacy(int iterations, byte[] salt, byte[] hash) {
    }

    private PasswordHash(Legacy legacy, Map<ScramMechanism, ScramCredential> scram) {
        this.legacy = legacy;
        this.scram = scram;
    }

    /** The credentials of {@code password} for every SCRAM mechanism, fresh salts, {@link #DEFAULT_ITERATIONS}. */
    public static PasswordHash create(char[] password) {
        return create(password, DEFAULT_ITERATIONS);
    }

    public static PasswordHash create(char[] password, int iterations) {
        checkIterations(iterations);
        Map<ScramMechanism, ScramCredential> credentials = new EnumMap<>(ScramMechanism.class);
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            byte[] salt = new byte[SALT_BYTES];
            RANDOM.nextBytes(salt);
            credentials.put(mechanism, ScramCredential.derive(mechanism, password, salt, iterations));
        }
        return new PasswordHash(null, credentials);
    }

    /** An entry of the earlier, PLAIN-only form (tests of the migration). */
    public static PasswordHash createLegacy(char[] password, int iterations) {
        checkIterations(iterations);
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        return new PasswordHash(new Legacy(iterations, salt, deriveLegacy(password, salt, iterations,
                LEGACY_HASH_BYTES)), Map.of());
    }

    /**
     * How many {@code :}-separated fields starting at {@code from} belong to a password entry (0 when
     * {@code fields[from]} starts none): what follows them are the users file's options.
     */
    public static int fieldCount(String[] fields, int from) {
        int i = from;
        while (i < fields.length) {
            if (fields[i].equals(SCHEME)) {
                i += 4;
            } else if (ScramMechanism.ofScheme(fields[i]).isPresent()) {
                i += 5;
            } else {
                break;
            }
        }
        return Math.min(i, fields.length) - from;
    }

    /**
     * Reads the encoded form.
     *
     * @throws IllegalArgumentException saying what is wrong (never echoing a key)
     */
    public static PasswordHash decode(String encoded) {
        Objects.requireNonNull(encoded, "encoded");
        String[] parts = encoded.split(":", -1);
        if (parts.length == 4 && parts[0].equals(SCHEME)) {
            int iterations = iterations(parts[1]);
            byte[] salt = base64(parts[2], "salt");
            byte[] hash = base64(parts[3], "hash");
            checkSalt(salt);
            if (hash.length != LEGACY_HASH_BYTES) {
                throw new IllegalArgumentException("hash is not " + LEGACY_HASH_BYTES + " bytes");
            }
            return new PasswordHash(new Legacy(iterations, salt, hash), Map.of());
        }
        Map<ScramMechanism, ScramCredential> credentials = new EnumMap<>(ScramMechanism.class);
        int i = 0;
        while (i < parts.length) {
            Optional<ScramMechanism> mechanism = ScramMechanism.ofScheme(parts[i]);
            if (mechanism.isEmpty() || i + 5 > parts.length) {
                throw new IllegalArgumentException("not of the form " + FORMAT);
            }
            if (credentials.containsKey(mechanism.get())) {
                throw new IllegalArgumentException(parts[i] + " is given twice");
            }
            int iterations = iterations(parts[i + 1]);
            byte[] salt = base64(parts[i + 2], "salt");
            byte[] stored = base64(parts[i + 3], "StoredKey");
            byte[] server = base64(parts[i + 4], "ServerKey");
            checkSalt(salt);
            int keyBytes = mechanism.get().keyBytes();
            if (stored.length != keyBytes || server.length != keyBytes) {
                throw new IllegalArgumentException(parts[i] + " keys are not " + keyBytes + " bytes");
            }
            credentials.put(mechanism.get(), new ScramCredential(mechanism.get(), iterations, salt, stored, server));
            i += 5;
        }
        if (credentials.isEmpty()) {
            throw new IllegalArgumentException("not of the form " + FORMAT);
        }
        return new PasswordHash(null, credentials);
    }

    public String encode() {
        if (legacy != null) {
            Base64.Encoder b64 = Base64.getEncoder();
            return SCHEME + ":" + legacy.iterations() + ":" + b64.encodeToString(legacy.salt()) + ":"
                    + b64.encodeToString(legacy.hash());
        }
        List<String> parts = new ArrayList<>();
        scram.values().forEach(c -> parts.add(c.encode()));
        return String.join(":", parts);
    }

    /**
     * Runs the PLAIN check {@code checks} times on a throwaway password, so that the JIT has compiled it before
     * clients need it. The first checks of a JVM run interpreted, 20-30 times slower than compiled ones (650 ms
     * against 20 ms on the project's machine); a replica that becomes master would make the clients reconnecting to
     * it wait for them in a row on the two password threads.
     */
    public static void warmUp(int checks) {
        char[] password = "warm-up".toCharArray();
        ScramCredential credential = ScramCredential.derive(ScramMechanism.SHA_256, password, new byte[SALT_BYTES],
                DEFAULT_ITERATIONS);
        for (int i = 0; i < checks; i++) {
            credential.matches(password);
        }
    }

    /**
     * Whether {@code password} is the password (PLAIN); the comparison takes the same time wherever the values
     * differ.
     */
    public boolean matches(char[] password) {
        if (legacy != null) {
            return MessageDigest.isEqual(legacy.hash(), deriveLegacy(password, legacy.salt(), legacy.iterations(),
                    legacy.hash().length));
        }
        ScramCredential credential = scram.containsKey(ScramMechanism.SHA_256) ? scram.get(ScramMechanism.SHA_256)
                : scram.values().iterator().next();
        return credential.matches(password);
    }

    /** The credential for a SCRAM mechanism; empty for an entry of the earlier form (PLAIN only). */
    public Optional<ScramCredential> scram(ScramMechanism mechanism) {
        return Optional.ofNullable(scram.get(mechanism));
    }

    /** Whether this is the earlier, PLAIN-only form ({@code tandem-passwd add} with the password migrates it). */
    public boolean plainOnly() {
        return legacy != null;
    }

    /** The iteration count (of SCRAM-SHA-256 for the current form). */
    public int iterations() {
        return legacy != null ? legacy.iterations()
                : scram.values().iterator().next().iterations();
    }

    /** The scheme(s), e.g. "scram-sha-256, scram-sha-512" or "pbkdf2-sha256". */
    public String schemes() {
        return legacy != null ? SCHEME : String.join(", ", scram.keySet().stream().map(ScramMechanism::scheme).toList());
    }

    @Override
    public String toString() {
        return schemes().replace(", ", "+") + ":" + iterations() + ":...";
    }

    private static void checkIterations(int iterations) {
        if (iterations < 1 || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be from 1 to " + MAX_ITERATIONS);
        }
    }

    private static int iterations(String text) {
        int iterations;
        try {
            iterations = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("iterations is not a number");
        }
        checkIterations(iterations);
        return iterations;
    }

    private static byte[] base64(String text, String what) {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not base64");
        }
    }

    private static void checkSalt(byte[] salt) {
        if (salt.length < MIN_SALT_BYTES) {
            throw new IllegalArgumentException("salt is shorter than " + MIN_SALT_BYTES + " bytes");
        }
    }

    private static byte[] deriveLegacy(char[] password, byte[] salt, int iterations, int bytes) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, bytes * 8);
        try {
            return SecretKeyFactory.getInstance(LEGACY_ALGORITHM).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(LEGACY_ALGORITHM + " is missing from this JDK", e);
        } finally {
            spec.clearPassword();
        }
    }
}
