package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key material made with the JDK's keytool for one test: a certificate authority, the broker's self-signed key,
 * a client key signed by the authority, and a trust store holding the authority.
 */
record Certificates(Path serverKeyStore, Path clientKeyStore, Path trustStore) {

    static Certificates create(Path dir, String password, String clientSubject) throws Exception {
        Path ca = dir.resolve("ca.p12");
        Path caCert = dir.resolve("ca.cer");
        Path server = dir.resolve("broker.p12");
        Path client = dir.resolve("client.p12");
        Path request = dir.resolve("client.csr");
        Path clientCert = dir.resolve("client.cer");
        Path trust = dir.resolve("clients-trust.p12");
        String[] store = {"-storetype", "PKCS12", "-storepass", password, "-keypass", password};
        keytool(store, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-keysize", "256", "-validity", "2",
                "-dname", "CN=Tandem Test CA", "-ext", "bc:c", "-keystore", ca.toString());
        keytool(store, "-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caCert.toString());
        keytool(store, "-genkeypair", "-alias", "broker", "-keyalg", "EC", "-keysize", "256", "-validity", "2",
                "-dname", "CN=localhost", "-keystore", server.toString());
        keytool(store, "-genkeypair", "-alias", "client", "-keyalg", "EC", "-keysize", "256", "-validity", "2",
                "-dname", clientSubject, "-keystore", client.toString());
        keytool(store, "-certreq", "-alias", "client", "-keystore", client.toString(), "-file", request.toString());
        keytool(store, "-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-validity", "2",
                "-infile", request.toString(), "-outfile", clientCert.toString());
        keytool(store, "-importcert", "-noprompt", "-alias", "ca", "-keystore", client.toString(),
                "-file", caCert.toString());
        keytool(store, "-importcert", "-noprompt", "-alias", "client", "-keystore", client.toString(),
                "-file", clientCert.toString());
        keytool(store, "-importcert", "-noprompt", "-alias", "ca", "-keystore", trust.toString(),
                "-file", caCert.toString());
        return new Certificates(server, client, trust);
    }

    private static void keytool(String[] store, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of(store));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
