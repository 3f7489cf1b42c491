package org.tandembroker.perftests;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A replication group of {@code bdb-ha} brokers on loopback, one process per node, each with its own directory
 * ({@code node-<i>/etc}, {@code node-<i>/work}), AMQP port, replication port and (optionally) JMX port. Node 1
 * starts first and is the helper of the others, so it becomes the master. Every node shares node 1's users file
 * (the benchmark user, and an {@code admin} user with the admin role when JMX is on).
 *
 * <p>Threads: used by one thread.
 */
public final class HaCluster implements AutoCloseable {
    public static final String GROUP = "tandem-perf";
    /** The node name of the group's arbiter, when it has one. */
    public static final String ARBITER = "arbiter";

    private final Path directory;
    private final Path lib;
    private final List<String> jvmOptions;
    private final List<BrokerFiles> files = new ArrayList<>();
    private final List<Integer> amqpPorts = new ArrayList<>();
    private final List<Integer> jmxPorts = new ArrayList<>();
    private final List<Integer> replicationPorts = new ArrayList<>();
    private final BrokerProcess[] processes;
    private final String adminPassword;
    private Process arbiter;
    private volatile boolean keepFiles;
    private Path arbiterOutput;

    private HaCluster(Path directory, Path lib, List<String> jvmOptions, int nodes, String adminPassword) {
        this.directory = directory;
        this.lib = lib;
        this.jvmOptions = jvmOptions;
        this.processes = new BrokerProcess[nodes];
        this.adminPassword = adminPassword;
    }

    /**
     * Writes the configuration of {@code nodes} nodes under {@code directory}.
     *
     * @param durability     the {@code <durability>} triplet, e.g. {@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY}
     * @param coalescingSync the {@code <coalescingSync>} value
     * @param jmx            whether each node gets a JMX port and the users file an admin user
     * @param repConfig      extra {@code je.rep.*} parameters as NAME=VALUE
     */
    public static HaCluster write(Path directory, Path lib, List<String> jvmOptions, int nodes, String durability,
                                  boolean coalescingSync, boolean jmx, List<String> repConfig)
            throws IOException, InterruptedException {
        return write(directory, lib, jvmOptions, nodes, durability, coalescingSync, jmx, repConfig, false);
    }

    /**
     * As {@link #write(Path, Path, List, int, String, boolean, boolean, List)}; with {@code replicationTls} the
     * group replicates over TLS: each node gets a self-signed certificate {@code CN=node-I, O=Tandem perftests}
     * (made with keytool under {@code directory/tls}), every node trusts all of them, and {@code <allowedNodes>}
     * allows exactly those names (docs/security.md).
     */
    public static HaCluster write(Path directory, Path lib, List<String> jvmOptions, int nodes, String durability,
                                  boolean coalescingSync, boolean jmx, List<String> repConfig, boolean replicationTls)
            throws IOException, InterruptedException {
        return write(directory, lib, jvmOptions, nodes, durability, coalescingSync, jmx, repConfig, replicationTls,
                List.of());
    }

    /**
     * As {@link #write(Path, Path, List, int, String, boolean, boolean, List, boolean)}, with JE environment
     * parameters ({@code <envConfig>}, NAME=VALUE) for every node's store.
     */
    public static HaCluster write(Path directory, Path lib, List<String> jvmOptions, int nodes, String durability,
                                  boolean coalescingSync, boolean jmx, List<String> repConfig, boolean replicationTls,
                                  List<String> envConfig)
            throws IOException, InterruptedException {
        byte[] secret = new byte[18];
        new SecureRandom().nextBytes(secret);
        HaCluster cluster = new HaCluster(directory, lib, jvmOptions, nodes,
                java.util.Base64.getUrlEncoder().encodeToString(secret));
        List<Integer> replicationPorts = cluster.replicationPorts;
        for (int i = 0; i < nodes; i++) {
            cluster.amqpPorts.add(FreePorts.next());
            cluster.jmxPorts.add(FreePorts.next());
            replicationPorts.add(FreePorts.next());
        }
        String storeParameters = BrokerFiles.parameterElements("envConfig", envConfig)
                + BrokerFiles.parameterElements("repConfig", repConfig);
        List<String> tls = replicationTls ? replicationTls(directory.resolve("tls"), nodes) : null;
        for (int i = 0; i < nodes; i++) {
            BrokerFiles node = BrokerFiles.write(directory.resolve("node-" + (i + 1)), lib, StoreSetup.COALESCING,
                    "128MiB", List.of());
            Path etc = node.directory().resolve("etc");
            if (i == 0) {
                if (jmx) {
                    addUser(lib, etc.resolve("users"), "admin", cluster.adminPassword, "admin");
                }
            } else {
                Files.copy(cluster.files.get(0).directory().resolve("etc/users"), etc.resolve("users"),
                        StandardCopyOption.REPLACE_EXISTING);
            }
            int amqp = cluster.amqpPorts.get(i);
            Files.writeString(etc.resolve("broker.xml"), """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <!-- Written by the perftests harness (HA node %d). -->
                    <broker>
                      <listeners advertisedAddress="127.0.0.1:%d">
                        <listener name="amqp" host="127.0.0.1" port="%d"/>
                      </listeners>
                      <security usersFile="users" anonymous="false"/>
                      <limits maxFrameSize="256KiB" maxMessageSize="100MiB" idleTimeout="60s" maxConnections="10000" linkCredit="500"/>
                      <memory messageBudget="128MiB"/>
                      <warmUp duration="${tandem.warmUp:-0}"/>
                      <virtualHosts default="%s">
                        <virtualHost name="%s" file="vhost.xml"/>
                      </virtualHosts>
                    %s</broker>
                    """.formatted(i + 1, amqp, amqp, BrokerFiles.VIRTUAL_HOST, BrokerFiles.VIRTUAL_HOST,
                    jmx ? "  <management><jmx host=\"127.0.0.1\" port=\"" + cluster.jmxPorts.get(i)
                            + "\" rmiHostname=\"127.0.0.1\"/></management>\n" : ""));
            Files.writeString(etc.resolve("vhost.xml"), """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <!-- Written by the perftests harness: bdb-ha node %d of %d. -->
                    <virtualHost name="%s">
                      <store type="bdb-ha">
                        <storePath>%s/store</storePath>
                        <groupName>%s</groupName>
                        <nodeName>node-%d</nodeName>
                        <nodeHostPort>127.0.0.1:%d</nodeHostPort>
                        <helperHostPort>127.0.0.1:%d</helperHostPort>
                        <durability>%s</durability>
                        <coalescingSync>%s</coalescingSync>
                        <designatedPrimary>false</designatedPrimary>
                    %s%s  </store>
                      <queues autoCreate="true">
                        <defaults durable="true" maxDepthMessages="0" maxDepthBytes="0" messageTtl="0" maxDeliveries="10"
                                  deadLetterQueue="DLQ"/>
                        <queue name="DLQ"/>
                      </queues>
                    </virtualHost>
                    """.formatted(i + 1, nodes, BrokerFiles.VIRTUAL_HOST, BrokerFiles.VIRTUAL_HOST, GROUP, i + 1,
                    replicationPorts.get(i), replicationPorts.get(0), durability, coalescingSync, storeParameters,
                    tls == null ? "" : tls.get(i)));
            cluster.files.add(node);
        }
        return cluster;
    }

    /** Starts the nodes in order, each once the previous one listens; then waits {@code settle}. */
    public void start(Duration settle) throws IOException, InterruptedException {
        for (int i = 0; i < processes.length; i++) {
            processes[i] = BrokerProcess.start(lib, files.get(i), jvmOptions);
        }
        Thread.sleep(settle.toMillis());
    }

    /**
     * Starts {@code bin/arbiter} (broker-tools' {@code ArbiterMain}, from the same lib) for this group as node
     * {@value #ARBITER}, with every broker as helper; returns once it printed its state (it has then found the
     * master, or JE's unknown-state timeout passed: {@link CatchUpProbe} tells which).
     */
    public void startArbiter() throws IOException, InterruptedException {
        Path home = directory.resolve(ARBITER);
        Files.createDirectories(home);
        arbiterOutput = home.resolve("arbiter.out");
        StringBuilder helpers = new StringBuilder();
        for (int port : replicationPorts) {
            helpers.append(helpers.length() == 0 ? "" : ",").append("127.0.0.1:").append(port);
        }
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-cp", lib.toAbsolutePath() + "/*", "org.tandembroker.tools.arbiter.ArbiterMain",
                "--group-name", GROUP, "--node-name", ARBITER, "--node-host-port", "127.0.0.1:" + FreePorts.next(),
                "--helper-host-port", helpers.toString(), "--dir", home.resolve("env").toString());
        arbiter = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(arbiterOutput.toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.readString(arbiterOutput).contains(" is ")) {
            if (!arbiter.isAlive() || System.nanoTime() > deadline) {
                throw new IOException("the arbiter did not start: " + Files.readString(arbiterOutput).strip());
            }
            Thread.sleep(50);
        }
    }

    /** Whether this group has an arbiter ({@link #startArbiter}). */
    public boolean hasArbiter() {
        return arbiter != null;
    }

    public BrokerProcess node(int index) {
        return processes[index];
    }

    public int size() {
        return processes.length;
    }

    /** {@code failover:(amqp://127.0.0.1:P1,...)} with a short, constant reconnect delay. */
    public String failoverUri() {
        StringBuilder uri = new StringBuilder("failover:(");
        for (int i = 0; i < amqpPorts.size(); i++) {
            uri.append(i == 0 ? "" : ",").append("amqp://127.0.0.1:").append(amqpPorts.get(i));
        }
        return uri.append(")?failover.reconnectDelay=20&failover.useReconnectBackOff=false")
                .append("&failover.maxReconnectAttempts=-1").toString();
    }

    /**
     * {@code failover:(amqp://127.0.0.1:P1,...)} with no options at all: Qpid JMS's own reconnect defaults (no
     * delay first, then 10 ms doubling up to 30 s), as a new user would write it.
     */
    public String plainFailoverUri() {
        StringBuilder uri = new StringBuilder("failover:(");
        for (int i = 0; i < amqpPorts.size(); i++) {
            uri.append(i == 0 ? "" : ",").append("amqp://127.0.0.1:").append(amqpPorts.get(i));
        }
        return uri.append(")").toString();
    }

    public String user() {
        return files.get(0).user();
    }

    public String password() {
        return files.get(0).password();
    }

    /** Sets {@code DesignatedPrimary} true on node {@code index} over JMX. */
    public void designate(int index) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPorts.get(index)
                + "/jmxrmi");
        Map<String, Object> env = new HashMap<>();
        env.put(JMXConnector.CREDENTIALS, new String[] {"admin", adminPassword});
        try (JMXConnector connector = JMXConnectorFactory.connect(url, env)) {
            MBeanServerConnection mbeans = connector.getMBeanServerConnection();
            mbeans.setAttribute(new ObjectName("org.apache.qpid:type=BDBHAMessageStore,name="
                    + BrokerFiles.VIRTUAL_HOST), new Attribute("DesignatedPrimary", true));
        }
    }

    /** Reads an attribute of the store MBean of node {@code index} (e.g. {@code NodeState}). */
    public Object storeAttribute(int index, String attribute) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPorts.get(index)
                + "/jmxrmi");
        Map<String, Object> env = new HashMap<>();
        env.put(JMXConnector.CREDENTIALS, new String[] {"admin", adminPassword});
        try (JMXConnector connector = JMXConnectorFactory.connect(url, env)) {
            return connector.getMBeanServerConnection().getAttribute(new ObjectName(
                    "org.apache.qpid:type=BDBHAMessageStore,name=" + BrokerFiles.VIRTUAL_HOST), attribute);
        }
    }

    /** The name of node {@code index} in the group: {@code node-<index + 1>}. */
    public String nodeName(int index) {
        return "node-" + (index + 1);
    }

    /** {@code org.apache.qpid:type=BDBHAMessageStore,name=default}: the store MBean every node registers. */
    public static ObjectName storeMBeanName() {
        try {
            return new ObjectName("org.apache.qpid:type=BDBHAMessageStore,name=" + BrokerFiles.VIRTUAL_HOST);
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A JMX connection to node {@code index} as the admin user (the cluster was written with JMX); close it. */
    public JMXConnector openJmx(int index) throws IOException {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPorts.get(index)
                + "/jmxrmi");
        return JMXConnectorFactory.connect(url, Map.of(JMXConnector.CREDENTIALS,
                new String[] {"admin", adminPassword}));
    }

    /** {@code kill -9} of node {@code index}; returns once the process has ended. */
    public void kill(int index) throws IOException, InterruptedException {
        // SIGKILL (kill -9), sent directly rather than by a forked kill(1), so that the moment is precise.
        ProcessHandle handle = ProcessHandle.of(processes[index].pid()).orElseThrow();
        handle.destroyForcibly();
        handle.onExit().join();
        processes[index].close();
    }

    /**
     * Starts node {@code index} again from its files and store, after it was stopped or killed; returns once it
     * listens. The previous process's console is gone: save it first.
     */
    public BrokerProcess restart(int index) throws IOException, InterruptedException {
        if (processes[index] != null && processes[index].isAlive()) {
            throw new IllegalStateException(nodeName(index) + " still runs");
        }
        processes[index] = BrokerProcess.start(lib, files.get(index), jvmOptions);
        return processes[index];
    }

    /** Stops every node still running (SIGTERM), saves each console into {@code results}. */
    public void stopAll(Path results, String prefix) throws IOException, InterruptedException {
        for (int i = processes.length - 1; i >= 0; i--) {
            if (processes[i] != null) {
                processes[i].stop(Duration.ofSeconds(60));
                processes[i].saveOutput(results.resolve(prefix + "-node-" + (i + 1) + ".log"));
                Path jeLog = files.get(i).work().resolve(BrokerFiles.VIRTUAL_HOST).resolve("store/je.info.0");
                if (Files.exists(jeLog)) {
                    Files.copy(jeLog, results.resolve(prefix + "-node-" + (i + 1) + ".je.info"),
                            StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        if (arbiter != null) {
            arbiter.destroy();
            arbiter.waitFor(30, TimeUnit.SECONDS);
            arbiter.destroyForcibly();
            Files.copy(arbiterOutput, results.resolve(prefix + "-arbiter.log"), StandardCopyOption.REPLACE_EXISTING);
            Path jeLog = directory.resolve(ARBITER).resolve("env/je.info.0");
            if (Files.exists(jeLog)) {
                Files.copy(jeLog, results.resolve(prefix + "-arbiter.je.info"), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (arbiter != null) {
            arbiter.destroyForcibly();
            arbiter.waitFor(30, TimeUnit.SECONDS);
        }
        for (BrokerProcess process : processes) {
            if (process != null) {
                process.close();
            }
        }
        if (!keepFiles) {
            ResultsFolder.deleteTree(directory);
        }
    }

    /** Keeps the group's directory (stores, configuration) after {@link #close()}: evidence of a failed run. */
    public void keepFiles() {
        keepFiles = true;
    }

    /** Where the group's files live (each node's configuration and store). */
    public Path directory() {
        return directory;
    }

    /**
     * Makes each node's key store and the shared trust store with keytool; returns each node's
     * {@code <replicationTls>} element.
     */
    private static List<String> replicationTls(Path tls, int nodes) throws IOException, InterruptedException {
        Files.createDirectories(tls);
        String password = "perftests-" + Long.toHexString(new SecureRandom().nextLong());
        Path passwordFile = tls.resolve("password");
        Files.writeString(passwordFile, password + "\n", StandardCharsets.UTF_8);
        Path trust = tls.resolve("trust.jks");
        List<String> elements = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            Path keyStore = tls.resolve("node-" + i + ".p12");
            Path certificate = tls.resolve("node-" + i + ".crt");
            keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "30",
                    "-dname", "CN=node-" + i + ", O=Tandem perftests", "-storetype", "PKCS12", "-keystore",
                    keyStore.toString(), "-storepass", password, "-keypass", password);
            keytool("-exportcert", "-rfc", "-alias", "node", "-keystore", keyStore.toString(), "-storepass", password,
                    "-file", certificate.toString());
            keytool("-importcert", "-noprompt", "-alias", "node-" + i, "-file", certificate.toString(),
                    "-storetype", "JKS", "-keystore", trust.toString(), "-storepass", password);
            elements.add("""
                        <replicationTls>
                          <keyStore>%s</keyStore>
                          <keyStorePasswordFile>%s</keyStorePasswordFile>
                          <trustStore>%s</trustStore>
                          <trustStoreType>JKS</trustStoreType>
                          <allowedNodes>CN=node-[0-9]+, O=Tandem perftests</allowedNodes>
                        </replicationTls>
                    """.formatted(keyStore.toAbsolutePath(), passwordFile.toAbsolutePath(), trust.toAbsolutePath()));
        }
        return elements;
    }

    private static void keytool(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool " + arguments[0] + " failed: " + output.strip());
        }
    }


    private static void addUser(Path lib, Path usersFile, String user, String password, String role)
            throws IOException, InterruptedException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", lib.toAbsolutePath() + "/*", "org.tandembroker.tools.passwd.UserAdmin",
                "add", usersFile.toString(), user, "--role", role);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (OutputStream in = process.getOutputStream()) {
            in.write((password + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("UserAdmin add " + user + " failed: " + output.strip());
        }
    }
}
