package org.tandembroker.core.security;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.function.Consumer;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A TLS server's key manager that follows its key store file: before each new handshake it compares the file's
 * modification time and size with those of the version it loaded, and loads a changed file again, so that a renewed
 * certificate is presented to new connections without a restart while open connections keep theirs. A file that
 * cannot be loaded (half written, wrong password) leaves the previous key in use and is reported once per version.
 *
 * <p><b>Threads.</b> Called by every thread that runs a handshake (Netty event loops, RMI's accept threads): the
 * current key is one immutable {@link Loaded} behind a volatile field; a reload is done by whichever handshake finds
 * the file changed, under a lock that only reloads take (a stat of the file is all other handshakes do).
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {
    private final Path file;
    private final String type;
    private final char[] password;
    private final String purpose;
    private final Consumer<String> report;
    private final Object reloading = new Object();
    private volatile Loaded current;
    /** The key in use before the last reload: a handshake may have chosen its alias just before the swap. */
    private volatile Loaded previous;
    private volatile Version lastFailed;

    /** What was loaded from which version of the file. Aliases are prefixed with the generation that chose them. */
    private record Loaded(int generation, Version version, X509ExtendedKeyManager keys) {
    }

    private record Version(long modifiedMillis, long size) {
    }

    /**
     * Loads {@code file} now; throws {@link IllegalArgumentException} naming it when it cannot be used.
     *
     * @param purpose what the key serves, for reports (e.g. "amqps listener amqps")
     * @param report  receives one line per reload or failed reload (e.g. the operational log)
     */
    public ReloadingKeyManager(Path file, String type, char[] password, String purpose, Consumer<String> report) {
        this.file = file;
        this.type = type;
        this.password = password.clone();
        this.purpose = purpose;
        this.report = report;
        try {
            Version version = version();
            current = new Loaded(1, version, load());
        } catch (IOException | java.security.GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException("cannot use key store " + file + " (type " + type + ") for the "
                    + purpose + ": " + e.getMessage(), e);
        }
    }

    /** Loads the file again if it changed since the version in use; returns whether a new key is in use. */
    public boolean reloadIfChanged() {
        Version seen;
        try {
            seen = version();
        } catch (IOException e) {
            return false; // replaced this very moment, or removed: keep the key in use
        }
        if (seen.equals(current.version()) || seen.equals(lastFailed)) {
            return false;
        }
        synchronized (reloading) {
            Loaded inUse = current;
            if (seen.equals(inUse.version()) || seen.equals(lastFailed)) {
                return false;
            }
            try {
                X509ExtendedKeyManager keys = load();
                previous = inUse;
                current = new Loaded(inUse.generation() + 1, seen, keys);
                report.accept("reloaded " + file + " for the " + purpose + ": new connections get "
                        + describe(keys));
                return true;
            } catch (IOException | java.security.GeneralSecurityException | RuntimeException e) {
                lastFailed = seen;
                String why = e.getMessage() == null ? "not a readable " + type + " key store: "
                        + e.getClass().getSimpleName() : e.getMessage();
                report.accept("cannot reload " + file + " for the " + purpose + " (" + why
                        + "); keeping the certificate in use until the file changes again");
                return false;
            }
        }
    }

    private Version version() throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        return new Version(attributes.lastModifiedTime().toMillis(), attributes.size());
    }

    private X509ExtendedKeyManager load() throws IOException, java.security.GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password);
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, password);
        for (KeyManager manager : factory.getKeyManagers()) {
            if (manager instanceof X509ExtendedKeyManager keys) {
                if (Arrays.stream(new String[] {"RSA", "EC", "RSASSA-PSS", "EdDSA", "DSA"})
                        .noneMatch(algorithm -> keys.getServerAliases(algorithm, null) != null)) {
                    throw new java.security.KeyStoreException("it holds no private key");
                }
                return keys;
            }
        }
        throw new java.security.KeyStoreException("no X.509 key manager for it");
    }

    private static String describe(X509ExtendedKeyManager keys) {
        for (String algorithm : new String[] {"RSA", "EC", "RSASSA-PSS", "EdDSA", "DSA"}) {
            String[] aliases = keys.getServerAliases(algorithm, null);
            if (aliases != null && aliases.length > 0) {
                X509Certificate[] chain = keys.getCertificateChain(aliases[0]);
                if (chain != null && chain.length > 0) {
                    return chain[0].getSubjectX500Principal().getName() + " (serial "
                            + chain[0].getSerialNumber().toString(16) + ", valid until " + chain[0].getNotAfter()
                            .toInstant() + ")";
                }
            }
        }
        return "its key";
    }

    private String tag(Loaded loaded, String alias) {
        return alias == null ? null : loaded.generation() + ":" + alias;
    }

    /** The key manager and plain alias behind a tagged alias; the current one when its generation is gone. */
    private X509ExtendedKeyManager keysFor(String taggedAlias) {
        Loaded loaded = current;
        Loaded before = previous;
        int colon = taggedAlias == null ? -1 : taggedAlias.indexOf(':');
        if (colon > 0 && before != null && taggedAlias.substring(0, colon).equals(
                Integer.toString(before.generation()))) {
            return before.keys();
        }
        return loaded.keys();
    }

    private static String untag(String taggedAlias) {
        if (taggedAlias == null) {
            return null;
        }
        int colon = taggedAlias.indexOf(':');
        return colon < 0 ? taggedAlias : taggedAlias.substring(colon + 1);
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        reloadIfChanged();
        Loaded loaded = current;
        return tag(loaded, loaded.keys().chooseEngineServerAlias(keyType, issuers, engine));
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        reloadIfChanged();
        Loaded loaded = current;
        return tag(loaded, loaded.keys().chooseServerAlias(keyType, issuers, socket));
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return keysFor(alias).getCertificateChain(untag(alias));
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return keysFor(alias).getPrivateKey(untag(alias));
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return current.keys().getServerAliases(keyType, issuers);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return current.keys().getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        return current.keys().chooseClientAlias(keyTypes, issuers, socket);
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return current.keys().chooseEngineClientAlias(keyTypes, issuers, engine);
    }

    @Override
    public String toString() {
        return "ReloadingKeyManager[" + file + ", " + purpose + "]";
    }
}
