package org.tandembroker.tools.arbiter;

import com.sleepycat.je.rep.arbiter.Arbiter;
import com.sleepycat.je.rep.arbiter.ArbiterConfig;
import com.sleepycat.je.rep.ReplicationNetworkConfig;
import com.sleepycat.je.utilint.PropUtil;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.exec.Uninterruptibly;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.store.bdbha.ReplicatedStoreSettings;
import org.tandembroker.store.bdbha.channel.ChannelRefusals;
import org.tandembroker.store.bdbha.channel.RefusalReportingChannelFactory;
import org.tandembroker.store.bdbha.channel.ReplicationTls;
import org.tandembroker.tools.ToolCommandLine;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs a JE arbiter for a two-node group, started by {@code bin/arbiter}:
 * <pre>
 * arbiter --group-name G --node-name N --node-host-port H:P --helper-host-port H1:P1,H2:P2 --dir DIR
 * </pre>
 * (the earlier spellings {@code --group --node --host-port --helpers} are accepted too), plus
 * {@code --replication-tls FILE} when the group replicates over TLS: a properties file with the settings of the
 * brokers' {@code <replicationTls>} ({@code keyStore=...}, {@code keyStorePasswordFile=...}, {@code trustStore=...},
 * {@code allowedNodes=...}; docs/security.md), validated like theirs. Refused connections are logged as
 * {@code HA-1008} lines. An arbiter stores no
 * messages: it votes in elections and acknowledges commits, so that a two-node group with an arbiter fails over
 * without an operator (the surviving node and the arbiter are a majority of three) and a master whose replica fails
 * keeps committing. It runs until the process is stopped (SIGTERM, Ctrl-C). Exit codes: 1 the arbiter could not
 * start, 2 usage.
 *
 * <p><b>Threads.</b> The tool's main thread starts the arbiter (JE runs it on its own threads) and then waits for
 * the shutdown hook ({@code arbiter-shutdown}), which shuts it down.
 */
@Command(name = "arbiter", sortOptions = false, usageHelpAutoWidth = true,
        customSynopsis = {"arbiter --group-name=GROUP --node-name=NAME --node-host-port=HOST:PORT",
                "        --helper-host-port=HOST:PORT[,HOST:PORT] --dir=DIR [--replication-tls=FILE]",
                "        [--rep-config=NAME=VALUE]..."},
        description = {"Runs a JE arbiter for a two-node Tandem HA group: it votes and acknowledges but stores no "
                + "messages, so that the group fails over without an operator. Stop it with SIGTERM or Ctrl-C."},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class ArbiterMain implements Callable<Integer> {
    @Option(names = {"--group-name", "--group"}, paramLabel = "GROUP", required = true,
            description = "The brokers' <groupName>.")
    String group;

    @Option(names = {"--node-name", "--node"}, paramLabel = "NAME", required = true,
            description = "The arbiter's node name, unused in the group.")
    String node;

    @Option(names = {"--node-host-port", "--host-port"}, paramLabel = "HOST:PORT", required = true,
            description = "Where the arbiter listens.")
    String hostPort;

    @Option(names = {"--helper-host-port", "--helpers"}, paramLabel = "HOST:PORT[,HOST:PORT]", required = true,
            description = "The brokers' <nodeHostPort>s.")
    String helpers;

    @Option(names = "--dir", paramLabel = "DIR", required = true,
            description = "A directory of the arbiter's own (created if missing).")
    Path directory;

    @Option(names = "--replication-tls", paramLabel = "FILE",
            description = "A properties file with the brokers' <replicationTls> settings (keyStore, keyStoreType, "
                    + "keyStorePasswordFile or keyStorePasswordEnv, trustStore, trustStoreType, allowedNodes, "
                    + "protocols), when the group replicates over TLS.")
    Path replicationTls;

    @Option(names = "--rep-config", paramLabel = "NAME=VALUE",
            description = "A JE replication parameter for the arbiter (repeatable), checked by JE, e.g. "
                    + "--rep-config je.rep.electionsOpenTimeout=\"3 s\". The arbiter's defaults: "
                    + "je.rep.electionsOpenTimeout and je.rep.electionsReadTimeout 2 s, as the brokers'.")
    java.util.List<String> repConfig = new java.util.ArrayList<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    private PrintWriter out;

    /**
     * JE parameters the arbiter sets unless {@code --rep-config} overrides them: the brokers' election timeouts
     * ({@link ReplicatedStoreSettings#BROKER_REP_DEFAULTS}). After the master dies the arbiter asks every helper
     * who is master now, and with JE's 10 s an address that no longer answers held it for 10 s each time (about
     * 30 s before it acknowledged for the new master, which cannot commit without it).
     */
    public static final Map<String, String> ARBITER_REP_DEFAULTS = Map.of(
            ReplicatedStoreSettings.ELECTIONS_OPEN_TIMEOUT, ReplicatedStoreSettings.ELECTION_MESSAGE_TIMEOUT,
            ReplicatedStoreSettings.ELECTIONS_READ_TIMEOUT, ReplicatedStoreSettings.ELECTION_MESSAGE_TIMEOUT);

    /**
     * The parsed options; {@code repConfig} holds the JE parameters in force (defaults, then the options'),
     * {@code replicationTls} is empty for a plain TCP group.
     */
    public record Options(String group, String node, String hostPort, String helpers, Path directory,
                          Map<String, String> repConfig, Optional<ReplicationTls> replicationTls) {
        public Options {
            repConfig = Collections.unmodifiableMap(new TreeMap<>(repConfig));
        }
    }

    private ArbiterMain() {
    }

    public static void main(String[] args) {
        int exitCode = run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
        if (exitCode != ToolFailure.OK) {
            System.exit(exitCode);
        }
    }

    /**
     * Runs the command line: prints the usage and returns, or returns a failure's exit code, or runs the arbiter
     * until the JVM shuts down.
     */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        ArbiterMain command = new ArbiterMain();
        command.out = out;
        return ToolCommandLine.create(command, out, err).execute(args);
    }

    /** Parses the command line; throws picocli's {@code ParameterException} on a usage error. */
    public static Options parse(String... args) {
        ArbiterMain command = new ArbiterMain();
        new CommandLine(command).parseArgs(args);
        return command.options();
    }

    private Options options() {
        Map<String, String> parameters = new TreeMap<>(ARBITER_REP_DEFAULTS);
        for (String pair : repConfig) {
            int eq = pair.indexOf('=');
            if (eq < 1) {
                throw ToolFailure.usage("--rep-config takes NAME=VALUE (a JE replication parameter), not '" + pair
                        + "'");
            }
            String name = pair.substring(0, eq).trim();
            String value = pair.substring(eq + 1).trim();
            try {
                new ArbiterConfig().setConfigParam(name, value);
            } catch (IllegalArgumentException e) {
                throw ToolFailure.usage("--rep-config " + pair + ": not a JE replication parameter with a valid "
                        + "value; JE says: " + e.getMessage());
            }
            parameters.put(name, value);
        }
        return new Options(nonBlank("--group-name", group), nonBlank("--node-name", node),
                nonBlank("--node-host-port", hostPort), nonBlank("--helper-host-port", helpers).replace(" ", ""),
                directory.toAbsolutePath(), parameters, replicationTls == null ? Optional.empty()
                        : Optional.of(replicationTls(replicationTls)));
    }

    /** Reads and validates {@code --replication-tls}; a bad file or setting is a usage error naming it. */
    static ReplicationTls replicationTls(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw ToolFailure.usage("--replication-tls " + file + " cannot be read: " + e.getMessage());
        }
        Map<String, String> values = new LinkedHashMap<>();
        properties.stringPropertyNames().forEach(name -> values.put(name, properties.getProperty(name)));
        Path absolute = file.toAbsolutePath();
        try {
            return ReplicationTls.from(file, "replicationTls", values, absolute.getParent(), System::getenv);
        } catch (ConfigException e) {
            throw ToolFailure.usage(e.getMessage());
        }
    }

    private static String nonBlank(String option, String value) {
        if (value.isBlank()) {
            throw ToolFailure.usage(option + " is empty");
        }
        return value.trim();
    }

    @Override
    public Integer call() {
        Options options = options();
        Arbiter arbiter;
        try {
            arbiter = start(options);
        } catch (IOException | RuntimeException e) {
            throw ToolFailure.refused("cannot start node " + options.node() + " of group " + options.group() + ": "
                    + ToolFailure.firstLine(e));
        }
        CompletableFuture<Void> stopped = new CompletableFuture<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            arbiter.shutdown();
            stopped.complete(null);
        }, "arbiter-shutdown"));
        out.println("arbiter " + options.node() + " of group " + options.group() + " at " + options.hostPort()
                + " is " + arbiter.getState() + "; stop it with SIGTERM or Ctrl-C");
        out.flush();
        try {
            Uninterruptibly.get(stopped); // keep running until the shutdown hook ran
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
        return ToolFailure.OK;
    }

    /** Starts an arbiter; returns once it found the master (or after JE's unknown-state timeout without one). */
    public static Arbiter start(Options options) throws IOException {
        Files.createDirectories(options.directory());
        return new Arbiter(config(options));
    }

    /**
     * How long the arbiter waits for any answer from a node it asks something (who is master, the group's members,
     * whether the master is alive): its {@code je.rep.electionsReadTimeout}. JE asks the group's members with a
     * fixed 10 s read timeout, and asks every helper; after a failover one of them is the old master, and a silent
     * one (paused, hung, its packets dropped) held the arbiter for 10 s per question, twice while joining the new
     * master, which meanwhile gave the arbiter up (its {@code je.rep.feederTimeout}) and had no quorum.
     */
    public static int answerTimeoutMillis(Options options) {
        return PropUtil.parseDuration(options.repConfig().getOrDefault(ReplicatedStoreSettings.ELECTIONS_READ_TIMEOUT,
                ReplicatedStoreSettings.ELECTION_MESSAGE_TIMEOUT));
    }

    /** The JE configuration of an arbiter started with {@code options}. */
    public static ArbiterConfig config(Options options) {
        ArbiterConfig config = new ArbiterConfig();
        config.setArbiterHome(options.directory().toString());
        config.setGroupName(options.group());
        config.setNodeName(options.node());
        config.setNodeHostPort(options.hostPort());
        config.setHelperHosts(options.helpers());
        OperationalLog log = new OperationalLog();
        ChannelRefusals refusals = ChannelRefusals.register(options.node(), (peer, reason) ->
                log.log(LogCode.HA_1008, options.node(), peer, reason));
        String channelParams = RefusalReportingChannelFactory.params(refusals.token(), answerTimeoutMillis(options));
        config.setRepNetConfig(options.replicationTls().<ReplicationNetworkConfig>map(tls ->
                tls.networkConfig(channelParams)).orElseGet(() -> ReplicationTls.plainNetworkConfig(channelParams)));
        // Do not wait forever for a master at startup: report and keep trying in the background.
        config.setUnknownStateTimeout(10, TimeUnit.SECONDS);
        options.repConfig().forEach(config::setConfigParam);
        return config;
    }
}
