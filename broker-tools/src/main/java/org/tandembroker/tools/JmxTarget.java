package org.tandembroker.tools;

import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import javax.rmi.ssl.SslRMIClientSocketFactory;
import org.tandembroker.core.exec.NamedThreadFactory;
import picocli.CommandLine.Option;

/**
 * Where a running broker's JMX connector is and how to log in: the connection options every operator's tool that
 * talks to a broker shares ({@code ha-admin}, and {@code backup.sh} for a running broker), as a picocli mixin.
 *
 * <p>The password comes from {@code --password}, else the first line of {@code --password-file}, else the
 * environment variable {@value #PASSWORD_VARIABLE}, else the terminal (asked without echo). With {@code --tls}
 * the registry lookup and the connection use TLS (the broker's {@code <jmx keyStore=...>}); {@code --trust-store}
 * names the certificates to trust, otherwise the JVM's default trust store applies (set with
 * {@code -Djavax.net.ssl.trustStore} in {@code JAVA_OPTS}). The trust store becomes the JVM's default SSL context,
 * and the JDK's RMI TLS client keeps the first default it used: one trust store per JVM (a command-line tool's).
 *
 * <p>Failures become {@link ToolFailure}s: {@link ToolFailure#CANNOT_CONNECT} when nothing answers,
 * {@link ToolFailure#ACCESS_DENIED} for refused credentials, {@link ToolFailure#USAGE} for unusable options.
 */
public final class JmxTarget {
    public static final String USER_VARIABLE = "TANDEM_JMX_USER";
    public static final String PASSWORD_VARIABLE = "TANDEM_JMX_PASSWORD";

    @Option(names = "--host", paramLabel = "HOST", defaultValue = "localhost",
            description = "Host of the broker's JMX connector (default: ${DEFAULT-VALUE}).")
    String host = "localhost";

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "9001",
            description = "Port of the broker's JMX connector, <management><jmx port> (default: ${DEFAULT-VALUE}).")
    int port = 9001;

    @Option(names = {"--user", "-u"}, paramLabel = "USER", defaultValue = "${env:" + USER_VARIABLE + "}",
            description = "JMX user (a users-file user with role=admin, or monitor for reading); default: $"
                    + USER_VARIABLE + ".")
    String user;

    @Option(names = "--password", paramLabel = "PASSWORD",
            description = "The user's password. Visible to other users of this machine (ps): prefer "
                    + "--password-file or $" + PASSWORD_VARIABLE + ".")
    String password;

    @Option(names = "--password-file", paramLabel = "FILE",
            description = "A file whose first line is the password.")
    Path passwordFile;

    @Option(names = "--tls", description = "The broker's JMX connector uses TLS (<jmx keyStore=...>).")
    boolean tls;

    @Option(names = "--trust-store", paramLabel = "FILE",
            description = "Certificates to trust for --tls (PKCS12 or JKS); default: the JVM's trust store.")
    Path trustStore;

    @Option(names = "--trust-store-password", paramLabel = "PASSWORD", defaultValue = "",
            description = "Password of --trust-store.")
    String trustStorePassword = "";

    @Option(names = "--trust-store-type", paramLabel = "TYPE", defaultValue = "PKCS12",
            description = "PKCS12 (default) or JKS.")
    String trustStoreType = "PKCS12";

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "20",
            description = "Give up connecting after this long (default: ${DEFAULT-VALUE}).")
    int connectTimeoutSeconds = 20;

    /** Sets the address and credentials directly (for programs and tests; the command line sets them otherwise). */
    public static JmxTarget of(String host, int port, String user, String password) {
        JmxTarget target = new JmxTarget();
        target.host = host;
        target.port = port;
        target.user = user;
        target.password = password;
        return target;
    }

    /**
     * The same credentials and TLS options for another node's connector at {@code hostPort} (as a node publishes
     * it to its group).
     */
    public JmxTarget at(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw ToolFailure.usage("'" + hostPort + "' is not a JMX address (HOST:PORT)");
        }
        JmxTarget other = new JmxTarget();
        other.host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
        try {
            other.port = Integer.parseInt(hostPort.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
            throw ToolFailure.usage("'" + hostPort + "' is not a JMX address (HOST:PORT)");
        }
        other.user = user;
        other.password = password;
        other.passwordFile = passwordFile;
        other.tls = tls;
        other.trustStore = trustStore;
        other.trustStorePassword = trustStorePassword;
        other.trustStoreType = trustStoreType;
        other.connectTimeoutSeconds = connectTimeoutSeconds;
        return other;
    }

    /** The JMX connector's port. */
    public int port() {
        return port;
    }

    /** True when the operator named a user (option or environment): the tool may log in. */
    public boolean hasUser() {
        return user != null && !user.isBlank();
    }

    /** True when the connector is on another machine than this one, as far as the options tell. */
    public boolean isRemote() {
        return !(host.equals("localhost") || host.equals("127.0.0.1") || host.equals("::1"));
    }

    /** {@code service:jmx:rmi:///jndi/rmi://HOST:PORT/jmxrmi}. */
    public String serviceUrl() {
        String bracketed = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return "service:jmx:rmi:///jndi/rmi://" + bracketed + ":" + port + "/jmxrmi";
    }

    /** Connects and logs in; the caller closes the session. */
    public JmxSession connect() {
        if (!hasUser()) {
            throw ToolFailure.usage("no JMX user: give --user (a users-file user with role=admin; see "
                    + "bin/tandem-passwd add ... --role admin) or set $" + USER_VARIABLE);
        }
        if (port < 1 || port > 65535) {
            throw ToolFailure.usage("--port " + port + " is not a port (1-65535)");
        }
        Map<String, Object> environment = new HashMap<>();
        environment.put(JMXConnector.CREDENTIALS, new String[] {user, resolvePassword()});
        if (tls) {
            useTrustStore();
            environment.put("com.sun.jndi.rmi.factory.socket", new SslRMIClientSocketFactory());
        }
        JMXServiceURL url;
        try {
            url = new JMXServiceURL(serviceUrl());
        } catch (IOException e) {
            throw ToolFailure.usage("--host " + host + " does not make a JMX service URL: " + ToolFailure.firstLine(e));
        }
        CompletableFuture<JMXConnector> connecting = CompletableFuture.supplyAsync(() -> {
            try {
                return JMXConnectorFactory.connect(url, environment);
            } catch (IOException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, runnable -> NamedThreadFactory.daemonThread("jmx-connect").newThread(runnable).start());
        try {
            JMXConnector connector = connecting.get(connectTimeoutSeconds, TimeUnit.SECONDS);
            return new JmxSession(connector, serviceUrl());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                    ? c.getCause() : e.getCause();
            throw connectFailure(cause);
        } catch (TimeoutException e) {
            connecting.cancel(true);
            throw new ToolFailure(ToolFailure.CANNOT_CONNECT, "the JMX connector at " + serviceUrl()
                    + " did not answer within " + Duration.ofSeconds(connectTimeoutSeconds).toSeconds() + " s (a "
                    + "hung or paused broker, or a firewall dropping packets)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolFailure(ToolFailure.CANNOT_CONNECT, "interrupted while connecting to " + serviceUrl());
        }
    }

    private ToolFailure connectFailure(Throwable cause) {
        if (cause instanceof SecurityException) {
            return new ToolFailure(ToolFailure.ACCESS_DENIED, "the broker at " + host + ":" + port + " refused user '"
                    + user + "': " + ToolFailure.firstLine(cause) + " (wrong password, unknown user, or a user "
                    + "without a JMX role)", cause);
        }
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String hint;
        if (root instanceof ConnectException || root instanceof NoRouteToHostException) {
            hint = "nothing listens there: is the broker running, with <management><jmx port=\"" + port + "\"> in "
                    + "its broker file? right --host/--port?";
        } else if (root instanceof UnknownHostException) {
            hint = "unknown host " + host;
        } else if (root instanceof SSLException || (!tls && String.valueOf(root.getMessage()).contains("non-JRMP"))) {
            hint = tls ? "the TLS handshake failed: does --trust-store trust the broker's certificate?"
                    : "if the broker's JMX uses TLS (<jmx keyStore=...>), add --tls";
        } else {
            hint = tls ? "if the broker's JMX does not use TLS, leave out --tls" : "if the broker's JMX uses TLS "
                    + "(<jmx keyStore=...>), add --tls";
        }
        return new ToolFailure(ToolFailure.CANNOT_CONNECT, "cannot connect to " + serviceUrl() + ": "
                + ToolFailure.firstLine(root) + " (" + hint + ")", cause);
    }

    private String resolvePassword() {
        if (password != null) {
            return password;
        }
        if (passwordFile != null) {
            try {
                return Files.readAllLines(passwordFile, StandardCharsets.UTF_8).stream().findFirst().orElse("");
            } catch (IOException e) {
                throw ToolFailure.usage("cannot read --password-file " + passwordFile + ": " + ToolFailure.firstLine(e));
            }
        }
        String fromEnvironment = System.getenv(PASSWORD_VARIABLE);
        if (fromEnvironment != null) {
            return fromEnvironment;
        }
        Console console = System.console();
        if (console != null) {
            char[] typed = console.readPassword("JMX password for %s at %s:%d: ", user, host, port);
            if (typed != null) {
                return new String(typed);
            }
        }
        throw ToolFailure.usage("no password for JMX user '" + user + "': give --password-file FILE (or --password,"
                + " or set $" + PASSWORD_VARIABLE + ")");
    }

    /** Makes the JVM trust {@code --trust-store} (the JDK's RMI TLS client uses the default SSL context). */
    private void useTrustStore() {
        if (trustStore == null) {
            return;
        }
        try (InputStream in = Files.newInputStream(trustStore)) {
            KeyStore trusted = KeyStore.getInstance(trustStoreType);
            trusted.load(in, trustStorePassword.toCharArray());
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            SSLContext.setDefault(context);
        } catch (IOException | GeneralSecurityException e) {
            throw ToolFailure.usage("cannot use --trust-store " + trustStore + " (" + trustStoreType + "): "
                    + ToolFailure.firstLine(e));
        }
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
