package org.tandembroker.store.bdbha;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Test certificates for a replication group: authorities, node key stores they sign, and trust stores, made in
 * process by broker-core's {@link org.tandembroker.core.testing.TestCertificates} (milliseconds, where a keytool
 * process per step took seconds) and written as keytool writes them. Every key lives in a temporary directory, with a
 * fixed test password.
 */
final class TestCertificates {
    static final String PASSWORD = "test-only-password";
    static final String ORGANISATION = "O=Tandem Test";

    private final Path directory;
    private final Map<String, org.tandembroker.core.testing.TestCertificates.Authority> authorities =
            new HashMap<>();

    TestCertificates(Path directory) {
        this.directory = directory;
    }

    /** A self-signed authority; returns the file of its certificate (PEM). */
    Path authority(String name) {
        var authority = org.tandembroker.core.testing.TestCertificates.authority("CN=" + name + ", " + ORGANISATION);
        authorities.put(name, authority);
        authority.writePkcs12(directory.resolve(name + ".p12"), name, PASSWORD);
        return authority.writeCertificate(directory.resolve(name + ".crt"));
    }

    /** A key store for {@code commonName}, signed by {@code authority} (null: self-signed). */
    Path nodeKeyStore(String commonName, String authority) {
        return nodeKeyStore(commonName, commonName, authority);
    }

    /** A key store in file {@code fileName}.p12 for {@code commonName}, signed by {@code authority}. */
    Path nodeKeyStore(String fileName, String commonName, String authority) {
        String name = "CN=" + commonName + ", " + ORGANISATION;
        var issued = authority == null ? org.tandembroker.core.testing.TestCertificates.selfSigned(name)
                : authorities.get(authority).issue(name);
        return issued.writePkcs12(directory.resolve(fileName + ".p12"), "node", PASSWORD);
    }

    /** A JKS trust store (readable without a password, as JE reads it) holding these certificates. */
    Path trustStore(String name, Path... certificates) {
        return org.tandembroker.core.testing.TestCertificates.writeTrustStore(directory.resolve(name + ".jks"), "JKS",
                PASSWORD, java.util.Arrays.stream(certificates)
                        .map(org.tandembroker.core.testing.TestCertificates::readCertificate)
                        .toArray(java.security.cert.Certificate[]::new));
    }

    /** The test password in a file, as {@code keyStorePasswordFile} wants it. */
    Path passwordFile() {
        Path file = directory.resolve("keystore.password");
        try {
            Files.writeString(file, PASSWORD + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return file;
    }

    /** {@code <replicationTls>} settings as the store's flattened elements. */
    static Map<String, String> replicationTls(Path keyStore, Path trustStore, Path passwordFile, String allowed) {
        return Map.of("replicationTls/keyStore", keyStore.toString(),
                "replicationTls/keyStorePasswordFile", passwordFile.toString(),
                "replicationTls/trustStore", trustStore.toString(),
                "replicationTls/trustStoreType", "JKS",
                "replicationTls/allowedNodes", allowed);
    }
}
