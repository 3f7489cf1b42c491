package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Key material made with the JDK's keytool for one test: the broker's self-signed key, a self-signed client key,
 * and a trust store holding the client's certificate (the trusted authority of itself; four keytool runs, each a
 * JVM start, so the test stays short).
 */
record Certificates(Path serverKeyStore, Path clientKeyStore, Path trustStore) {

    static Certificates create(Path dir, String password, String clientSubject) throws Exception {
        Path server = dir.resolve("broker.p12");
        Path client = dir.resolve("client.p12");
        Path clientCert = dir.resolve("client.cer");
        Path trust = dir.resolve("clients-trust.p12");
        String[] store = {"-storetype", "PKCS12", "-storepass", password, "-keypass", password};
        keytool(store, "-genkeypair", "-alias", "broker", "-keyalg", "EC", "-keysize", "256", "-validity", "2",
                "-dname", "CN=localhost", "-keystore", server.toString());
        keytool(store, "-genkeypair", "-alias", "client", "-keyalg", "EC", "-keysize", "256", "-validity", "2",
                "-dname", clientSubject, "-keystore", client.toString());
        keytool(store, "-exportcert", "-rfc", "-alias", "client", "-keystore", client.toString(),
                "-file", clientCert.toString());
        keytool(store, "-importcert", "-noprompt", "-alias", "client", "-keystore", trust.toString(),
                "-file", clientCert.toString());
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
