package org.tandembroker.store.bdbha.channel;

import com.sleepycat.je.rep.ReplicationBasicConfig;
import com.sleepycat.je.rep.ReplicationNetworkConfig;
import com.sleepycat.je.rep.ReplicationSSLConfig;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import javax.net.ssl.SSLContext;
import org.tandembroker.core.config.ConfigException;

/**
 * The validated settings of the TLS replication channel ({@code <replicationTls>} of a {@code bdb-ha} store, or the
 * arbiter's {@code --replication-tls} file): JE's {@link ReplicationSSLConfig} with a key store (this node's
 * certificate), a trust store (the authorities that sign the group's certificates) and an allow-list of the
 * certificate names that may take part, checked in both directions (JE's DN authenticator for nodes connecting here,
 * its DN host verifier for nodes this one connects to). Immutable; {@link #from} checks every value, opens both
 * stores and fails with one line naming the file, the setting, the value and what is allowed. docs/security.md
 * describes it for operators.
 *
 * @param keyStore         this node's key store (absolute)
 * @param keyStoreType     its type, e.g. PKCS12 or JKS
 * @param keyStorePassword where the key store's password (also its key's) is read from
 * @param trustStore       the trust store (absolute), read without a password as JE does
 * @param trustStoreType   its type
 * @param allowedNodes     {@code mirror}, or a regular expression the whole RFC 1779 name of a peer's certificate
 *                         must match (e.g. {@code CN=node-[abc]\.example\.com, O=Example})
 * @param protocols        the TLS protocol versions allowed, e.g. TLSv1.3
 */
public record ReplicationTls(Path keyStore, String keyStoreType, SecretSource keyStorePassword, Path trustStore,
                             String trustStoreType, String allowedNodes, List<String> protocols) {

    /** The store's element holding these settings. */
    public static final String ELEMENT = "replicationTls";
    public static final String KEY_STORE = "keyStore";
    public static final String KEY_STORE_TYPE = "keyStoreType";
    public static final String KEY_STORE_PASSWORD_FILE = "keyStorePasswordFile";
    public static final String KEY_STORE_PASSWORD_ENV = "keyStorePasswordEnv";
    public static final String TRUST_STORE = "trustStore";
    public static final String TRUST_STORE_TYPE = "trustStoreType";
    public static final String ALLOWED_NODES = "allowedNodes";
    public static final String PROTOCOLS = "protocols";
    /** The settings, in documentation order. */
    public static final List<String> SETTINGS = List.of(KEY_STORE, KEY_STORE_TYPE, KEY_STORE_PASSWORD_FILE,
            KEY_STORE_PASSWORD_ENV, TRUST_STORE, TRUST_STORE_TYPE, ALLOWED_NODES, PROTOCOLS);
    public static final String DEFAULT_STORE_TYPE = "PKCS12";
    public static final String DEFAULT_PROTOCOLS = "TLSv1.3,TLSv1.2";
    /** The {@link #allowedNodes} value for JE's mirror check: a peer's name must equal this node's own. */
    public static final String MIRROR = "mirror";

    public ReplicationTls {
        protocols = List.copyOf(protocols);
    }

    /**
     * Validates the settings {@code values} (setting name to text) read from {@code file}; {@code where} prefixes
     * setting names in messages (e.g. {@code store/replicationTls}); relative paths are resolved against
     * {@code base}.
     */
    public static ReplicationTls from(Path file, String where, Map<String, String> values, Path base,
                                      UnaryOperator<String> environment) throws ConfigException {
        Set<String> unknown = new TreeSet<>(values.keySet());
        SETTINGS.forEach(unknown::remove);
        if (unknown.contains("keyStorePassword") || unknown.contains("trustStorePassword")) {
            String name = unknown.contains("keyStorePassword") ? "keyStorePassword" : "trustStorePassword";
            throw ConfigException.invalidValue(file, where + "/" + name, "(not shown)", "none: a password is not "
                    + "written in the configuration; give <" + KEY_STORE_PASSWORD_FILE + "> (a file readable only "
                    + "by the broker's user) or <" + KEY_STORE_PASSWORD_ENV + "> (an environment variable)"
                    + (name.equals("trustStorePassword") ? "; a trust store is read without a password" : ""));
        }
        if (!unknown.isEmpty()) {
            throw new ConfigException(file + ": <" + where + "> has unknown setting" + (unknown.size() > 1 ? "s " : " ")
                    + unknown.stream().map(name -> "<" + name + ">").toList() + "; allowed: "
                    + String.join(", ", SETTINGS));
        }
        Path keyStore = existingFile(file, where, KEY_STORE, values, base);
        String keyStoreType = storeType(file, where, KEY_STORE_TYPE, values);
        SecretSource password = password(file, where, values, base, environment);
        Path trustStore = existingFile(file, where, TRUST_STORE, values, base);
        String trustStoreType = storeType(file, where, TRUST_STORE_TYPE, values);
        String allowed = allowedNodes(file, where, values);
        List<String> protocols = protocols(file, where, values);
        checkKeyStore(file, where, keyStore, keyStoreType, password);
        checkTrustStore(file, where, trustStore, trustStoreType);
        return new ReplicationTls(keyStore, keyStoreType, password, trustStore, trustStoreType, allowed, protocols);
    }

    /**
     * JE's network configuration for this channel. Refusals are reported to the {@link ChannelRefusals} registered
     * as {@code refusalsToken}.
     */
    public ReplicationSSLConfig networkConfig(String refusalsToken) {
        ReplicationSSLConfig config = new ReplicationSSLConfig();
        config.setSSLKeyStore(keyStore.toString());
        config.setSSLKeyStoreType(keyStoreType);
        config.setSSLKeyStorePasswordSource(keyStorePassword::read);
        config.setSSLTrustStore(trustStore.toString());
        config.setSSLTrustStoreType(trustStoreType);
        config.setSSLProtocols(String.join(",", protocols));
        config.setSSLAuthenticatorClass(AllowListAuthenticator.class.getName());
        config.setSSLAuthenticatorParams(allowedNodes);
        config.setSSLHostVerifierClass(AllowListHostVerifier.class.getName());
        config.setSSLHostVerifierParams(allowedNodes);
        config.setChannelFactoryClass(RefusalReportingChannelFactory.class.getName());
        config.setChannelFactoryParams(refusalsToken);
        return config;
    }

    /**
     * JE's network configuration for a plain TCP channel whose refusals (a TLS peer) are reported to the
     * {@link ChannelRefusals} registered as {@code refusalsToken}.
     */
    public static ReplicationNetworkConfig plainNetworkConfig(String refusalsToken) {
        ReplicationBasicConfig config = new ReplicationBasicConfig();
        config.setChannelFactoryClass(RefusalReportingChannelFactory.class.getName());
        config.setChannelFactoryParams(refusalsToken);
        return config;
    }

    private static Path existingFile(Path file, String where, String name, Map<String, String> values, Path base)
            throws ConfigException {
        String text = values.get(name);
        String allowed = "the path of a readable key store file (absolute, or relative to " + base + ")";
        if (text == null || text.isBlank()) {
            throw ConfigException.missing(file, where + "/" + name, allowed);
        }
        Path path = base.resolve(text.trim()).toAbsolutePath().normalize();
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
            throw ConfigException.invalidValue(file, where + "/" + name, text.trim(), allowed + "; " + path
                    + (Files.exists(path) ? " is not a readable file" : " does not exist"));
        }
        return path;
    }

    private static String storeType(Path file, String where, String name, Map<String, String> values)
            throws ConfigException {
        String type = values.getOrDefault(name, DEFAULT_STORE_TYPE).trim();
        try {
            KeyStore.getInstance(type);
        } catch (KeyStoreException e) {
            throw ConfigException.invalidValue(file, where + "/" + name, type, "a key store type of this Java, e.g. "
                    + "PKCS12 (default) or JKS");
        }
        return type;
    }

    private static SecretSource password(Path file, String where, Map<String, String> values, Path base,
                                         UnaryOperator<String> environment) throws ConfigException {
        String fileText = values.get(KEY_STORE_PASSWORD_FILE);
        String variable = values.get(KEY_STORE_PASSWORD_ENV);
        String allowed = "exactly one of <" + KEY_STORE_PASSWORD_FILE + "> (a file whose first line is the key "
                + "store's password) and <" + KEY_STORE_PASSWORD_ENV + "> (the name of an environment variable)";
        if ((fileText == null) == (variable == null)) {
            if (fileText == null) {
                throw ConfigException.missing(file, where + "/" + KEY_STORE_PASSWORD_FILE, allowed);
            }
            throw ConfigException.invalidValue(file, where + "/" + KEY_STORE_PASSWORD_ENV, variable, allowed);
        }
        SecretSource source;
        if (fileText != null) {
            Path path = base.resolve(fileText.trim()).toAbsolutePath().normalize();
            source = new SecretSource(path, null, environment);
        } else {
            if (!variable.trim().matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw ConfigException.invalidValue(file, where + "/" + KEY_STORE_PASSWORD_ENV, variable,
                        "an environment variable name (letters, digits, '_')");
            }
            source = new SecretSource(null, variable.trim(), environment);
        }
        try {
            Arrays.fill(source.read(), ' ');
        } catch (IllegalStateException e) {
            String element = fileText != null ? KEY_STORE_PASSWORD_FILE : KEY_STORE_PASSWORD_ENV;
            throw ConfigException.invalidValue(file, where + "/" + element, (fileText != null ? fileText : variable)
                    .trim(), allowed + "; " + e.getMessage());
        }
        return source;
    }

    private static String allowedNodes(Path file, String where, Map<String, String> values) throws ConfigException {
        String allowed = "'" + MIRROR + "' (a peer's certificate name must equal this node's) or a regular "
                + "expression the whole RFC 1779 name of a peer's certificate must match, e.g. "
                + "CN=node-[abc]\\.example\\.com, O=Example";
        String text = values.get(ALLOWED_NODES);
        if (text == null || text.isBlank()) {
            throw ConfigException.missing(file, where + "/" + ALLOWED_NODES, allowed);
        }
        text = text.trim();
        if (!text.equals(MIRROR)) {
            try {
                Pattern.compile(text);
            } catch (PatternSyntaxException e) {
                throw ConfigException.invalidValue(file, where + "/" + ALLOWED_NODES, text, allowed + " ("
                        + e.getDescription() + " at index " + e.getIndex() + ")");
            }
        }
        return text;
    }

    private static List<String> protocols(Path file, String where, Map<String, String> values)
            throws ConfigException {
        String text = values.getOrDefault(PROTOCOLS, DEFAULT_PROTOCOLS).trim();
        List<String> supported;
        try {
            supported = Arrays.asList(SSLContext.getDefault().getSupportedSSLParameters().getProtocols());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java has no TLS", e);
        }
        List<String> result = new ArrayList<>();
        for (String part : text.split(",")) {
            String protocol = part.trim();
            if (!supported.contains(protocol) || protocol.startsWith("SSL")) {
                throw ConfigException.invalidValue(file, where + "/" + PROTOCOLS, text, "a comma-separated list of "
                        + "TLS versions this Java supports (" + String.join(", ", supported.stream()
                        .filter(p -> p.startsWith("TLS")).toList()) + "); default " + DEFAULT_PROTOCOLS);
            }
            result.add(protocol);
        }
        return result;
    }

    private static void checkKeyStore(Path file, String where, Path path, String type, SecretSource password)
            throws ConfigException {
        char[] secret = password.read();
        try (InputStream in = Files.newInputStream(path)) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, secret);
            boolean hasKey = false;
            for (String alias : Collections.list(store.aliases())) {
                if (store.isKeyEntry(alias)) {
                    store.getKey(alias, secret); // JE uses the store's password for the key too
                    hasKey = true;
                }
            }
            if (!hasKey) {
                throw ConfigException.invalidValue(file, where + "/" + KEY_STORE, path.toString(), "a key store "
                        + "holding this node's private key and certificate (it holds certificates only)");
            }
        } catch (ConfigException e) {
            throw e;
        } catch (Exception e) {
            throw ConfigException.invalidValue(file, where + "/" + KEY_STORE, path.toString(), "a " + type
                    + " key store that opens with the password from " + password.describe() + " (also the key's "
                    + "password); Java says: " + e.getMessage());
        } finally {
            Arrays.fill(secret, ' ');
        }
    }

    private static void checkTrustStore(Path file, String where, Path path, String type) throws ConfigException {
        int certificates = 0;
        try (InputStream in = Files.newInputStream(path)) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, null); // as JE reads it
            for (String alias : Collections.list(store.aliases())) {
                if (store.getCertificate(alias) != null) {
                    certificates++;
                }
            }
        } catch (Exception e) {
            throw ConfigException.invalidValue(file, where + "/" + TRUST_STORE, path.toString(), "a " + type
                    + " trust store; Java says: " + e.getMessage());
        }
        if (certificates == 0) {
            throw ConfigException.invalidValue(file, where + "/" + TRUST_STORE, path.toString(), "a trust store whose "
                    + "certificates can be read without a password, as JE reads it (it holds none that can): create "
                    + "it with keytool -importcert -storetype JKS, or PKCS12 with "
                    + "-J-Dkeystore.pkcs12.certProtectionAlgorithm=NONE -J-Dkeystore.pkcs12.macAlgorithm=NONE");
        }
    }
}
