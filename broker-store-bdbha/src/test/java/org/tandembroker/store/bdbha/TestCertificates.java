package org.tandembroker.store.bdbha;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Test certificates made with the JDK's keytool: an authority, node key stores it signs, and trust stores. Only for
 * tests: every key is generated in a temporary directory, with a fixed test password.
 */
final class TestCertificates {
    static final String PASSWORD = "test-only-password";
    static final String ORGANISATION = "O=Tandem Test";

    private final Path directory;

    TestCertificates(Path directory) {
        this.directory = directory;
    }

    /** A self-signed authority; returns the file of its certificate. */
    Path authority(String name) {
        Path store = directory.resolve(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "3",
                "-dname", "CN=" + name + ", " + ORGANISATION, "-ext", "bc:c", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        Path certificate = directory.resolve(name + ".crt");
        keytool("-exportcert", "-rfc", "-alias", name, "-keystore", store.toString(), "-storepass", PASSWORD,
                "-file", certificate.toString());
        return certificate;
    }

    /** A key store for {@code commonName}, signed by {@code authority} (null: self-signed). */
    Path nodeKeyStore(String commonName, String authority) {
        return nodeKeyStore(commonName, commonName, authority);
    }

    /** A key store in file {@code fileName}.p12 for {@code commonName}, signed by {@code authority}. */
    Path nodeKeyStore(String fileName, String commonName, String authority) {
        Path store = directory.resolve(fileName + ".p12");
        keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "3",
                "-dname", "CN=" + commonName + ", " + ORGANISATION, "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        if (authority != null) {
            Path request = directory.resolve(fileName + ".csr");
            Path signed = directory.resolve(fileName + ".crt");
            keytool("-certreq", "-alias", "node", "-keystore", store.toString(), "-storepass", PASSWORD,
                    "-file", request.toString());
            keytool("-gencert", "-alias", authority, "-keystore", directory.resolve(authority + ".p12").toString(),
                    "-storepass", PASSWORD, "-infile", request.toString(), "-outfile", signed.toString(),
                    "-validity", "3", "-rfc");
            keytool("-importcert", "-noprompt", "-alias", authority, "-file",
                    directory.resolve(authority + ".crt").toString(), "-keystore", store.toString(),
                    "-storepass", PASSWORD);
            keytool("-importcert", "-alias", "node", "-file", signed.toString(), "-keystore", store.toString(),
                    "-storepass", PASSWORD);
        }
        return store;
    }

    /** A JKS trust store (readable without a password, as JE reads it) holding these certificates. */
    Path trustStore(String name, Path... certificates) {
        Path store = directory.resolve(name + ".jks");
        for (Path certificate : certificates) {
            keytool("-importcert", "-noprompt", "-alias", certificate.getFileName().toString(), "-file",
                    certificate.toString(), "-storetype", "JKS", "-keystore", store.toString(), "-storepass",
                    PASSWORD);
        }
        return store;
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

    private static void keytool(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", arguments) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
