package org.tandembroker.core.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loads and validates the broker file ({@code etc/broker.xml}) and the virtual host files it names.
 *
 * <h2>Format</h2>
 * <pre>{@code
 * <broker>
 *   <listeners advertisedAddress="host:port">               <!-- required; advertisedAddress optional -->
 *     <listener name="amqp" host="0.0.0.0" port="5672"/>     <!-- at least one -->
 *     <listener name="amqps" host="0.0.0.0" port="5671">
 *       <tls keyStore="broker.p12" keyStoreType="PKCS12" keyStorePassword="changeit"/>
 *     </listener>
 *   </listeners>
 *   <security usersFile="users" anonymous="false"/>          <!-- optional -->
 *   <limits maxFrameSize="256KiB" maxMessageSize="100MiB" idleTimeout="60s"
 *           maxConnections="10000" linkCredit="500"/>        <!-- optional -->
 *   <memory messageBudget="128MiB" queueWindow="20000"/>     <!-- optional -->
 *   <warmUp duration="10s"/>                                 <!-- optional; absent: no warm-up -->
 *   <virtualHosts default="default" onStoreFailure="exit">   <!-- required -->
 *     <virtualHost name="default" file="vhosts/default.xml"/> <!-- at least one -->
 *   </virtualHosts>
 *   <management>                                             <!-- optional; absent: all off -->
 *     <jmx enabled="true" host="0.0.0.0" port="9001" rmiHostname="broker1.example.com"
 *          keyStore="jmx.p12" keyStoreType="PKCS12" keyStorePassword="changeit"/>
 *     <metrics enabled="true" host="127.0.0.1" port="9404" authentication="users"
 *              keyStore="metrics.p12" keyStoreType="PKCS12" keyStorePassword="changeit"/>
 *     <disk watermark="1GiB" checkInterval="5s"/>
 *   </management>
 * </broker>
 * }</pre>
 * <table>
 *   <caption>Elements and attributes</caption>
 *   <tr><th>Attribute</th><th>Allowed</th><th>Default</th></tr>
 *   <tr><td>listeners@advertisedAddress</td><td>{@code host:port} ({@code [v6]:port} for IPv6), port 1-65535
 *       </td><td>the first listener without TLS (else the first listener); a wildcard host (0.0.0.0, ::) is
 *       replaced by this machine's host name</td></tr>
 *   <tr><td>listener@name</td><td>unique name</td><td>required</td></tr>
 *   <tr><td>listener@host</td><td>address to bind</td><td>0.0.0.0</td></tr>
 *   <tr><td>listener@port</td><td>0-65535, 0 = ephemeral (tests); host:port unique</td><td>required</td></tr>
 *   <tr><td>tls@keyStore</td><td>an existing file</td><td>required</td></tr>
 *   <tr><td>tls@keyStoreType</td><td>PKCS12, JKS</td><td>PKCS12</td></tr>
 *   <tr><td>tls@keyStorePassword</td><td>text</td><td>required</td></tr>
 *   <tr><td>security@usersFile</td><td>an existing file</td><td>users</td></tr>
 *   <tr><td>security@anonymous</td><td>true, false</td><td>false</td></tr>
 *   <tr><td>limits@maxFrameSize</td><td>512 B to 2 GiB - 1</td><td>256KiB</td></tr>
 *   <tr><td>limits@maxMessageSize</td><td>&gt;= 1 B</td><td>100MiB</td></tr>
 *   <tr><td>limits@idleTimeout</td><td>0 (none) or a duration</td><td>60s</td></tr>
 *   <tr><td>limits@maxConnections</td><td>&gt;= 1</td><td>10000</td></tr>
 *   <tr><td>limits@linkCredit</td><td>&gt;= 1</td><td>500</td></tr>
 *   <tr><td>memory@messageBudget</td><td>&gt;= 0 B</td><td>128MiB, at most an eighth of the maximum heap</td></tr>
 *   <tr><td>memory@queueWindow</td><td>0 (keep every entry on the heap) to 100000000 entries</td><td>20000
 *       </td></tr>
 *   <tr><td>warmUp@duration</td><td>0 (none) to 2min: at most how long the broker moves messages through a
 *       scratch virtual host on loopback before it opens its stores and listeners, so that its first clients
 *       find the publish and consume paths compiled; it ends sooner once the JIT compiler has little left to
 *       do</td><td>0 (no warm-up) when the element is absent</td></tr>
 *   <tr><td>virtualHosts@default</td><td>a declared virtual host</td><td>the only virtual host, if there is
 *       one; required when there are several</td></tr>
 *   <tr><td>virtualHosts@onStoreFailure</td><td>exit (stop with one line and exit code 1), stay-up (serve the
 *       other hosts, report not ready, refuse this host's clients saying why)</td><td>exit</td></tr>
 *   <tr><td>virtualHost@name</td><td>unique, equal to the name in its file</td><td>required</td></tr>
 *   <tr><td>virtualHost@file</td><td>a virtual host file (see {@link VirtualHostConfigLoader})</td>
 *       <td>required</td></tr>
 *   <tr><td>management</td><td>jmx, metrics, disk (each optional, at most once)</td><td>absent: JMX, metrics
 *       and the disk watermark off</td></tr>
 *   <tr><td>jmx@enabled</td><td>true, false</td><td>true (when {@code <jmx>} is present)</td></tr>
 *   <tr><td>jmx@host</td><td>address to bind</td><td>0.0.0.0</td></tr>
 *   <tr><td>jmx@port</td><td>1-65535: the RMI registry and the RMI server share it</td><td>9001</td></tr>
 *   <tr><td>jmx@rmiHostname</td><td>the host name clients reach this node by, put in RMI stubs</td>
 *       <td>jmx@host unless a wildcard, else the JVM's default</td></tr>
 *   <tr><td>jmx@keyStore</td><td>an existing file: the connector uses TLS</td><td>none (no TLS)</td></tr>
 *   <tr><td>jmx@keyStoreType</td><td>PKCS12, JKS</td><td>PKCS12</td></tr>
 *   <tr><td>jmx@keyStorePassword</td><td>text; required with keyStore</td><td>none</td></tr>
 *   <tr><td>metrics@enabled</td><td>true, false</td><td>true (when {@code <metrics>} is present)</td></tr>
 *   <tr><td>metrics@host</td><td>address to bind (the metrics and health endpoint)</td><td>127.0.0.1</td></tr>
 *   <tr><td>metrics@port</td><td>1-65535, not the JMX port on the same host</td><td>9404</td></tr>
 *   <tr><td>metrics@authentication</td><td>none, users (HTTP basic, a users-file user with role monitor or
 *       admin; the probes /health/live and /health/ready stay open)</td><td>none</td></tr>
 *   <tr><td>metrics@keyStore</td><td>an existing file: the endpoint serves HTTPS</td><td>none (HTTP)</td></tr>
 *   <tr><td>metrics@keyStoreType</td><td>PKCS12, JKS</td><td>PKCS12</td></tr>
 *   <tr><td>metrics@keyStorePassword</td><td>text; required with keyStore</td><td>none</td></tr>
 *   <tr><td>disk@watermark</td><td>a size; 0 = off</td><td>0 (off)</td></tr>
 *   <tr><td>disk@checkInterval</td><td>100ms to 1h</td><td>5s</td></tr>
 * </table>
 * Relative paths (usersFile, keyStore, virtual host files) resolve against the broker file's directory. Sizes
 * are {@link Units#BYTES_FORMAT}; durations {@link Units#DURATION_FORMAT}.
 *
 * <h2>Variables</h2>
 * Any value may read {@code ${NAME}} or {@code ${NAME:-default}} from a system property or the environment
 * ({@link ConfigVariables}); the result is validated like a value written in the file, and errors name the variable.
 *
 * <h2>Overrides</h2>
 * {@link #load(Path, Map)} accepts a few values from outside the file (tests, the launcher's {@code --port}):
 * {@code listeners.<name>.port} and {@code listeners.<name>.host}. They are validated like the file's values.
 * A listener with port 0 is advertised with port 0 unless advertisedAddress is set: whoever binds it knows the
 * real port.
 */
public final class BrokerConfigLoader {

    /** The longest {@code <warmUp duration>}. */
    static final Duration MAX_WARM_UP = Duration.ofMinutes(2);

    /** The largest {@code <memory queueWindow>}: a hundred million entries would not fit any heap anyway. */
    static final int MAX_QUEUE_WINDOW = 100_000_000;

    /** Upper bound of the body budget when {@code <memory messageBudget>} is not set. */
    public static final long DEFAULT_MESSAGE_BUDGET = 128L * 1024 * 1024;

    /** The body budget when none is configured: 128MiB, but never more than an eighth of the maximum heap. */
    public static long defaultMessageBudget() {
        return Math.min(DEFAULT_MESSAGE_BUDGET, Runtime.getRuntime().maxMemory() / 8);
    }
    public static final String DEFAULT_USERS_FILE = "users";
    public static final String DEFAULT_PERMISSIONS_FILE = "permissions";

    private static final int MIN_FRAME_SIZE = 512; // AMQP 1.0 MIN-MAX-FRAME-SIZE
    private static final Pattern OVERRIDE = Pattern.compile("listeners\\.(.+)\\.(port|host)");
    private static final String OVERRIDE_KEYS = "listeners.<name>.port, listeners.<name>.host";
    private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9A-Fa-f:.%\\w]+]|[^\\s:\\[\\]/]+):(\\d{1,5})");
    private static final String HOST_PORT_RULE = "host:port or [ipv6]:port with port 1-65535";
    private static final String PORT_RULE = "an integer from 0 to 65535 (0 = ephemeral)";

    private BrokerConfigLoader() {
    }

    public static BrokerConfig load(Path brokerXml) throws ConfigException {
        return load(brokerXml, Map.of());
    }

    /**
     * Loads {@code brokerXml} with some values replaced (see the class comment).
     *
     * @throws ConfigException if the file, an override or a virtual host file is invalid
     */
    public static BrokerConfig load(Path brokerXml, Map<String, String> overrides) throws ConfigException {
        return load(brokerXml, overrides, ConfigVariables.SYSTEM);
    }

    /**
     * Loads {@code brokerXml} (and its virtual host files) with some values replaced, their placeholders reading
     * {@code variables} (see {@link ConfigVariables}).
     */
    public static BrokerConfig load(Path brokerXml, Map<String, String> overrides, ConfigVariables variables)
            throws ConfigException {
        Path file = brokerXml.toAbsolutePath().normalize();
        Path base = file.getParent();
        Map<String, Map<String, String>> listenerOverrides = parseOverrides(file, overrides);

        ConfigElement root = ConfigElement.parseRoot(file, "broker", variables);
        root.checkStructure(List.of(), List.of("listeners", "security", "limits", "memory", "virtualHosts",
                "management", "warmUp"));

        ConfigElement listenersElement = root.requiredChild("listeners", "<listeners> with one <listener> or more");
        List<ListenerConfig> listeners = listeners(listenersElement, base, listenerOverrides);
        String advertised = advertisedAddress(listenersElement, listeners);

        Optional<ConfigElement> security = root.optionalChild("security");
        Path usersFile = base.resolve(DEFAULT_USERS_FILE);
        boolean anonymous = false;
        SecurityConfig securityConfig = new SecurityConfig(defaultPermissionsFile(base), false,
                SecurityConfig.DEFAULT_FAILURE_DELAY, SecurityConfig.DEFAULT_FAILURE_DELAY_MAX);
        if (security.isPresent()) {
            security.get().checkStructure(List.of("usersFile", "anonymous", "permissionsFile",
                    "allowPlainWithoutTls", "authFailureDelay", "authFailureDelayMax"), List.of());
            usersFile = existingFile(security.get(), "usersFile", base, DEFAULT_USERS_FILE,
                    "a readable users file (create one with bin/tandem-passwd)");
            anonymous = security.get().bool("anonymous", false);
            securityConfig = securityConfig(security.get(), base);
        } else if (!Files.isReadable(usersFile)) {
            throw ConfigException.invalidValue(file, "security@usersFile", usersFile.toString(),
                    "a readable users file (create one with bin/tandem-passwd)");
        }

        ConnectionLimits limits = limits(root.optionalChild("limits"));

        long messageBudget = defaultMessageBudget();
        int queueWindow = BrokerConfig.DEFAULT_QUEUE_WINDOW;
        Optional<ConfigElement> memory = root.optionalChild("memory");
        if (memory.isPresent()) {
            memory.get().checkStructure(List.of("messageBudget", "queueWindow"), List.of());
            messageBudget = memory.get().bytes("messageBudget", 0, Long.MAX_VALUE, messageBudget);
            queueWindow = (int) memory.get().integer("queueWindow", 0, MAX_QUEUE_WINDOW, queueWindow);
        }

        Duration warmUp = Duration.ZERO;
        Optional<ConfigElement> warmUpElement = root.optionalChild("warmUp");
        if (warmUpElement.isPresent()) {
            warmUpElement.get().checkStructure(List.of("duration"), List.of());
            warmUp = warmUpElement.get().duration("duration", Duration.ZERO);
            if (warmUp.compareTo(MAX_WARM_UP) > 0) {
                throw warmUpElement.get().invalid("duration", warmUpElement.get().attribute("duration").orElse(""),
                        "0 (no warm-up) to " + MAX_WARM_UP.toSeconds() + "s");
            }
        }

        ConfigElement hostsElement = root.requiredChild("virtualHosts",
                "<virtualHosts> with one <virtualHost name=\"...\" file=\"...\"/> or more");
        List<VirtualHostConfig> virtualHosts = virtualHosts(hostsElement, base, variables);
        String defaultHost = defaultVirtualHost(hostsElement, virtualHosts);
        BrokerConfig.OnStoreFailure onStoreFailure = switch (hostsElement.attribute("onStoreFailure")
                .map(String::trim).orElse("exit")) {
            case "exit" -> BrokerConfig.OnStoreFailure.EXIT;
            case "stay-up" -> BrokerConfig.OnStoreFailure.STAY_UP;
            default -> throw hostsElement.invalid("onStoreFailure",
                    hostsElement.attribute("onStoreFailure").orElse(""), "exit, stay-up");
        };

        ManagementConfig management = management(root.optionalChild("management"), base, listeners);

        return new BrokerConfig(file, listeners, advertised, usersFile, anonymous, limits, messageBudget,
                virtualHosts, defaultHost, management, securityConfig, onStoreFailure, queueWindow,
                warmUp);
    }

    /** {@code permissions} beside the broker file when it exists; else none (authorization off). */
    private static Optional<Path> defaultPermissionsFile(Path base) {
        Path candidate = base.resolve(DEFAULT_PERMISSIONS_FILE);
        return Files.isRegularFile(candidate) ? Optional.of(candidate) : Optional.empty();
    }

    private static SecurityConfig securityConfig(ConfigElement element, Path base) throws ConfigException {
        Optional<Path> permissions = element.attribute("permissionsFile").isPresent()
                ? Optional.of(existingFile(element, "permissionsFile", base, null,
                        "a readable permissions file (see etc/permissions)"))
                : defaultPermissionsFile(base);
        boolean allowPlain = element.bool("allowPlainWithoutTls", false);
        Duration delay = element.duration("authFailureDelay", SecurityConfig.DEFAULT_FAILURE_DELAY);
        if (delay.compareTo(Duration.ofMinutes(1)) > 0) {
            throw element.invalid("authFailureDelay", element.attribute("authFailureDelay").orElse(""),
                    "0 (no delays) or a duration up to 1min, e.g. 250ms");
        }
        Duration max = element.duration("authFailureDelayMax", SecurityConfig.DEFAULT_FAILURE_DELAY_MAX);
        if (max.compareTo(delay) < 0 || max.compareTo(Duration.ofMinutes(1)) > 0) {
            throw element.invalid("authFailureDelayMax", element.attribute("authFailureDelayMax").orElse(""),
                    "a duration from authFailureDelay (" + delay.toMillis() + "ms) up to 1min, e.g. 5s");
        }
        return new SecurityConfig(permissions, allowPlain, delay, max);
    }

    private static Map<String, Map<String, String>> parseOverrides(Path file, Map<String, String> overrides)
            throws ConfigException {
        Map<String, Map<String, String>> byListener = new HashMap<>();
        for (Map.Entry<String, String> entry : new TreeMap<>(overrides).entrySet()) {
            Matcher m = OVERRIDE.matcher(entry.getKey());
            if (!m.matches()) {
                throw new ConfigException(file + ": override '" + entry.getKey() + "' is not supported; allowed: "
                        + OVERRIDE_KEYS);
            }
            byListener.computeIfAbsent(m.group(1), k -> new HashMap<>()).put(m.group(2), entry.getValue());
        }
        return byListener;
    }

    private static List<ListenerConfig> listeners(ConfigElement element, Path base,
                                                  Map<String, Map<String, String>> overrides)
            throws ConfigException {
        element.checkStructure(List.of("advertisedAddress"), List.of("listener"));
        List<ConfigElement> elements = element.children("listener");
        if (elements.isEmpty()) {
            throw ConfigException.missing(element.file(), "listeners/listener",
                    "<listener name=\"amqp\" host=\"0.0.0.0\" port=\"5672\"/>");
        }
        List<ListenerConfig> listeners = new ArrayList<>();
        Map<String, String> hostPortOwners = new HashMap<>();
        for (ConfigElement listener : elements) {
            listener.checkStructure(List.of("name", "host", "port"), List.of("tls", "clientCertificates"));
            String name = listener.name("name");
            if (listeners.stream().anyMatch(l -> l.name().equals(name))) {
                throw listener.invalid("name", name, "a name not used by another listener");
            }
            Map<String, String> own = overrides.getOrDefault(name, Map.of());
            for (Map.Entry<String, String> o : own.entrySet()) {
                listener.override(o.getKey(), o.getValue(), "listeners." + name + "." + o.getKey());
            }
            String host = listener.attribute("host").map(String::trim).orElse("0.0.0.0");
            if (!ConfigElement.isValidName(host)) {
                throw listener.invalid("host", host, "an address or host name to bind, e.g. 0.0.0.0, 127.0.0.1, ::");
            }
            if (listener.attribute("port").isEmpty()) {
                throw ConfigException.missing(listener.file(), listener.attributePath("port"), PORT_RULE);
            }
            int port = (int) listener.integer("port", 0, 65535, 0);
            if (port != 0) {
                String previous = hostPortOwners.putIfAbsent(host + ":" + port, name);
                if (previous != null) {
                    throw listener.invalid("port", String.valueOf(port),
                            "a port not already used on host " + host + " by listener " + previous);
                }
            }
            Optional<TlsConfig> tls = Optional.empty();
            Optional<ConfigElement> tlsElement = listener.optionalChild("tls");
            if (tlsElement.isPresent()) {
                tlsElement.get().checkStructure(List.of("keyStore", "keyStoreType", "keyStorePassword"), List.of());
                tls = Optional.of(tls(tlsElement.get(), base));
            }
            Optional<ClientCertificateConfig> clientCertificates = Optional.empty();
            Optional<ConfigElement> certificatesElement = listener.optionalChild("clientCertificates");
            if (certificatesElement.isPresent()) {
                if (tls.isEmpty()) {
                    throw ConfigException.missing(listener.file(), listener.path() + "/tls",
                            "<tls keyStore=\"...\" keyStorePassword=\"...\"/>: <clientCertificates> needs a TLS "
                                    + "listener");
                }
                clientCertificates = Optional.of(clientCertificates(certificatesElement.get(), base));
            }
            listeners.add(new ListenerConfig(name, host, port, tls, clientCertificates));
        }
        for (String name : new TreeMap<>(overrides).keySet()) {
            if (listeners.stream().noneMatch(l -> l.name().equals(name))) {
                throw new ConfigException(element.file() + ": override listeners." + name + "."
                        + overrides.get(name).keySet().iterator().next() + " names no listener; allowed: "
                        + "a listener declared in the file: "
                        + String.join(", ", listeners.stream().map(ListenerConfig::name).toList()));
            }
        }
        return listeners;
    }

    /** Key material from the keyStore, keyStoreType and keyStorePassword attributes of {@code element}. */
    private static TlsConfig tls(ConfigElement element, Path base) throws ConfigException {
        Path keyStore = existingFile(element, "keyStore", base, null, "a readable key store file");
        String type = element.attribute("keyStoreType").map(String::trim).orElse("PKCS12")
                .toUpperCase(Locale.ROOT);
        if (!type.equals("PKCS12") && !type.equals("JKS")) {
            throw element.invalid("keyStoreType", element.attribute("keyStoreType").orElse(""), "PKCS12, JKS");
        }
        if (element.attribute("keyStorePassword").isEmpty()) {
            throw ConfigException.missing(element.file(), element.attributePath("keyStorePassword"),
                    "the key store's password");
        }
        return new TlsConfig(keyStore, type, element.attribute("keyStorePassword").get());
    }

    private static ClientCertificateConfig clientCertificates(ConfigElement element, Path base)
            throws ConfigException {
        element.checkStructure(List.of("mode", "trustStore", "trustStoreType", "trustStorePassword", "userName"),
                List.of());
        String mode = element.attribute("mode").map(String::trim).orElse("optional");
        if (!mode.equals("optional") && !mode.equals("required")) {
            throw element.invalid("mode", mode, "optional (a client may present a certificate), required (a client "
                    + "must)");
        }
        Path trustStore = existingFile(element, "trustStore", base, null, "a readable trust store file");
        String type = element.attribute("trustStoreType").map(String::trim).orElse("PKCS12").toUpperCase(Locale.ROOT);
        if (!type.equals("PKCS12") && !type.equals("JKS")) {
            throw element.invalid("trustStoreType", element.attribute("trustStoreType").orElse(""), "PKCS12, JKS");
        }
        if (element.attribute("trustStorePassword").isEmpty()) {
            throw ConfigException.missing(element.file(), element.attributePath("trustStorePassword"),
                    "the trust store's password");
        }
        String userName = element.attribute("userName").map(String::trim).orElse("cn");
        ClientCertificateConfig.UserName mapping = switch (userName.toLowerCase(Locale.ROOT)) {
            case "cn" -> ClientCertificateConfig.UserName.CN;
            case "dn" -> ClientCertificateConfig.UserName.DN;
            default -> throw element.invalid("userName", userName,
                    "cn (the subject's common name), dn (the whole subject, RFC 2253)");
        };
        return new ClientCertificateConfig(mode.equals("required"), trustStore, type,
                element.attribute("trustStorePassword").get(), mapping);
    }

    private static String advertisedAddress(ConfigElement element, List<ListenerConfig> listeners)
            throws ConfigException {
        Optional<String> configured = element.attribute("advertisedAddress").map(String::trim);
        if (configured.isPresent()) {
            Matcher m = HOST_PORT.matcher(configured.get());
            if (!m.matches() || Integer.parseInt(m.group(2)) < 1 || Integer.parseInt(m.group(2)) > 65535) {
                throw element.invalid("advertisedAddress", configured.get(), HOST_PORT_RULE);
            }
            return configured.get();
        }
        ListenerConfig chosen = listeners.stream().filter(l -> l.tls().isEmpty()).findFirst()
                .orElse(listeners.get(0));
        String host = chosen.host();
        if (isWildcard(host)) {
            host = localHostName();
        }
        if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        return host + ":" + chosen.port();
    }

    private static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.equals("0:0:0:0:0:0:0:0");
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private static ManagementConfig management(Optional<ConfigElement> element, Path base,
                                               List<ListenerConfig> listeners) throws ConfigException {
        if (element.isEmpty()) {
            return ManagementConfig.OFF;
        }
        ConfigElement management = element.get();
        management.checkStructure(List.of(), List.of("jmx", "metrics", "disk"));

        ManagementConfig.Jmx jmx = ManagementConfig.Jmx.OFF;
        Optional<ConfigElement> jmxElement = management.optionalChild("jmx");
        if (jmxElement.isPresent()) {
            ConfigElement e = jmxElement.get();
            e.checkStructure(List.of("enabled", "host", "port", "rmiHostname", "keyStore", "keyStoreType",
                    "keyStorePassword"), List.of());
            String host = bindHost(e);
            int port = (int) e.integer("port", 1, 65535, ManagementConfig.DEFAULT_JMX_PORT);
            Optional<String> rmiHostname = e.attribute("rmiHostname").map(String::trim);
            if (rmiHostname.isPresent() && (!ConfigElement.isValidName(rmiHostname.get())
                    || rmiHostname.get().contains("/"))) {
                throw e.invalid("rmiHostname", rmiHostname.get(),
                        "the host name or address clients reach this node by, e.g. broker1.example.com, 127.0.0.1");
            }
            Optional<TlsConfig> tls = Optional.empty();
            if (e.attribute("keyStore").isPresent()) {
                tls = Optional.of(tls(e, base));
            } else if (e.attribute("keyStorePassword").isPresent() || e.attribute("keyStoreType").isPresent()) {
                throw ConfigException.missing(e.file(), e.attributePath("keyStore"),
                        "a readable key store file when keyStoreType or keyStorePassword is given");
            }
            jmx = new ManagementConfig.Jmx(e.bool("enabled", true), host, port, rmiHostname, tls);
            if (jmx.enabled()) {
                checkPortFree(e, host, port, listeners, null);
            }
        }

        ManagementConfig.Metrics metrics = ManagementConfig.Metrics.OFF;
        Optional<ConfigElement> metricsElement = management.optionalChild("metrics");
        if (metricsElement.isPresent()) {
            ConfigElement e = metricsElement.get();
            e.checkStructure(List.of("enabled", "host", "port", "authentication", "keyStore", "keyStoreType",
                    "keyStorePassword"), List.of());
            String host = bindHost(e, ManagementConfig.Metrics.DEFAULT_HOST);
            int port = (int) e.integer("port", 1, 65535, ManagementConfig.DEFAULT_METRICS_PORT);
            Optional<TlsConfig> tls = Optional.empty();
            if (e.attribute("keyStore").isPresent()) {
                tls = Optional.of(tls(e, base));
            } else if (e.attribute("keyStorePassword").isPresent() || e.attribute("keyStoreType").isPresent()) {
                throw ConfigException.missing(e.file(), e.attributePath("keyStore"),
                        "a readable key store file when keyStoreType or keyStorePassword is given");
            }
            ManagementConfig.HttpAuthentication authentication = switch (e.attribute("authentication")
                    .map(String::trim).orElse("none")) {
                case "none" -> ManagementConfig.HttpAuthentication.NONE;
                case "users" -> ManagementConfig.HttpAuthentication.USERS;
                default -> throw e.invalid("authentication", e.attribute("authentication").orElse(""),
                        "none, users (HTTP basic authentication of a users-file user with role monitor or admin)");
            };
            metrics = new ManagementConfig.Metrics(e.bool("enabled", true), host, port, tls, authentication);
            if (metrics.enabled()) {
                checkPortFree(e, host, port, listeners, jmx.enabled() ? jmx : null);
            }
        }

        ManagementConfig.DiskWatermark disk = ManagementConfig.DiskWatermark.OFF;
        Optional<ConfigElement> diskElement = management.optionalChild("disk");
        if (diskElement.isPresent()) {
            ConfigElement e = diskElement.get();
            e.checkStructure(List.of("watermark", "checkInterval"), List.of());
            long watermark = e.bytes("watermark", 0, Long.MAX_VALUE, 0);
            Duration interval = e.duration("checkInterval", ManagementConfig.DEFAULT_DISK_CHECK_INTERVAL);
            if (interval.compareTo(Duration.ofMillis(100)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
                throw e.invalid("checkInterval", e.attribute("checkInterval").orElse(""),
                        "a duration from 100ms to 1h, e.g. 5s");
            }
            disk = new ManagementConfig.DiskWatermark(watermark, interval);
        }
        return new ManagementConfig(jmx, metrics, disk);
    }

    private static String bindHost(ConfigElement element) throws ConfigException {
        return bindHost(element, "0.0.0.0");
    }

    private static String bindHost(ConfigElement element, String defaultHost) throws ConfigException {
        String host = element.attribute("host").map(String::trim).orElse(defaultHost);
        if (!ConfigElement.isValidName(host)) {
            throw element.invalid("host", host, "an address or host name to bind, e.g. 0.0.0.0, 127.0.0.1, ::");
        }
        return host;
    }

    /** A management port may not be a listener's (or the JMX connector's) port on an overlapping address. */
    private static void checkPortFree(ConfigElement element, String host, int port, List<ListenerConfig> listeners,
                                      ManagementConfig.Jmx jmx) throws ConfigException {
        for (ListenerConfig listener : listeners) {
            if (listener.port() == port && overlaps(host, listener.host())) {
                throw element.invalid("port", String.valueOf(port),
                        "a port not used by listener " + listener.name() + " on " + listener.host());
            }
        }
        if (jmx != null && jmx.port() == port && overlaps(host, jmx.host())) {
            throw element.invalid("port", String.valueOf(port), "a port not used by <management/jmx> on "
                    + jmx.host());
        }
    }

    private static boolean overlaps(String host, String otherHost) {
        return host.equals(otherHost) || isWildcard(host) || isWildcard(otherHost);
    }

    private static ConnectionLimits limits(Optional<ConfigElement> element) throws ConfigException {
        ConnectionLimits d = ConnectionLimits.DEFAULTS;
        if (element.isEmpty()) {
            return d;
        }
        ConfigElement e = element.get();
        e.checkStructure(List.of("maxFrameSize", "maxMessageSize", "idleTimeout", "maxConnections", "linkCredit"),
                List.of());
        int maxFrameSize = (int) e.bytes("maxFrameSize", MIN_FRAME_SIZE, Integer.MAX_VALUE, d.maxFrameSize());
        long maxMessageSize = e.bytes("maxMessageSize", 1, Long.MAX_VALUE, d.maxMessageSize());
        Duration idleTimeout = e.duration("idleTimeout", d.idleTimeout());
        int maxConnections = (int) e.integer("maxConnections", 1, Integer.MAX_VALUE, d.maxConnections());
        int linkCredit = (int) e.integer("linkCredit", 1, Integer.MAX_VALUE, d.linkCredit());
        return new ConnectionLimits(maxFrameSize, maxMessageSize, idleTimeout, maxConnections, linkCredit);
    }

    private static List<VirtualHostConfig> virtualHosts(ConfigElement element, Path base, ConfigVariables variables)
            throws ConfigException {
        element.checkStructure(List.of("default", "onStoreFailure"), List.of("virtualHost"));
        List<ConfigElement> elements = element.children("virtualHost");
        if (elements.isEmpty()) {
            throw ConfigException.missing(element.file(), "virtualHosts/virtualHost",
                    "<virtualHost name=\"default\" file=\"vhosts/default.xml\"/>");
        }
        Map<String, VirtualHostConfig> hosts = new LinkedHashMap<>();
        for (ConfigElement host : elements) {
            host.checkStructure(List.of("name", "file"), List.of());
            String name = host.name("name");
            if (hosts.containsKey(name)) {
                throw host.invalid("name", name, "a name not used by another virtual host");
            }
            Path hostFile = existingFile(host, "file", base, null, "a readable virtual host file");
            VirtualHostConfig config = VirtualHostConfigLoader.load(hostFile, variables);
            if (!config.name().equals(name)) {
                throw ConfigException.invalidValue(config.sourceFile(), "virtualHost@name", config.name(),
                        "'" + name + "', the name " + element.file().getFileName() + " gives this file");
            }
            hosts.put(name, config);
        }
        return List.copyOf(hosts.values());
    }

    private static String defaultVirtualHost(ConfigElement element, List<VirtualHostConfig> hosts)
            throws ConfigException {
        List<String> names = hosts.stream().map(VirtualHostConfig::name).toList();
        Optional<String> configured = element.attribute("default");
        if (configured.isEmpty()) {
            if (hosts.size() == 1) {
                return names.get(0);
            }
            throw ConfigException.missing(element.file(), element.attributePath("default"),
                    "one of the declared virtual hosts: " + String.join(", ", names));
        }
        if (!names.contains(configured.get())) {
            throw element.invalid("default", configured.get(),
                    "one of the declared virtual hosts: " + String.join(", ", names));
        }
        return configured.get();
    }

    /** A file attribute resolved against {@code base}; it must exist and be readable now. */
    private static Path existingFile(ConfigElement element, String attribute, Path base, String defaultValue,
                                     String allowed) throws ConfigException {
        String value = element.attribute(attribute).map(String::trim).orElse(defaultValue);
        if (value == null || value.isEmpty()) {
            throw ConfigException.missing(element.file(), element.attributePath(attribute), allowed);
        }
        Path resolved = base.resolve(value).normalize();
        if (!Files.isRegularFile(resolved) || !Files.isReadable(resolved)) {
            throw element.invalid(attribute, value, allowed + " (" + resolved + " is not one)");
        }
        return resolved;
    }
}
