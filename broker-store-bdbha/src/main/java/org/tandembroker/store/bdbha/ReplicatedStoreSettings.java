package org.tandembroker.store.bdbha;

import com.sleepycat.je.CacheMode;
import com.sleepycat.je.DbInternal;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Durability.ReplicaAckPolicy;
import com.sleepycat.je.Durability.SyncPolicy;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.rep.NoConsistencyRequiredPolicy;
import com.sleepycat.je.rep.ReplicationConfig;
import com.sleepycat.je.rep.ReplicationMutableConfig;
import com.sleepycat.je.rep.ReplicationNetworkConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.NameValue;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.config.Units;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.store.bdb.BdbStoreSettings;
import org.tandembroker.store.bdbha.channel.ChannelRefusals;
import org.tandembroker.store.bdbha.channel.ReplicationTls;

/**
 * The validated settings of a {@code <store type="bdb-ha">} element (spec 1.6.5). Immutable; made only by
 * {@link #from(StoreSettings, StoreContext)}, which checks every value so that a bad one stops the broker at
 * startup with one line naming the file, the element, the value and what is allowed. {@code docs/ha.md} describes
 * every element and default for operators.
 *
 * <p>JE's own parameters: {@code envConfig} and {@code repConfig} pairs are checked by JE
 * ({@link EnvironmentConfig#setConfigParam}, {@link ReplicationConfig#setConfigParam}). The broker's defaults
 * ({@link #BROKER_REP_DEFAULTS}, {@link #BROKER_ENV_DEFAULTS}) come first, so that a pair overrides them; the
 * parameters an element decides cannot be given as pairs. A {@code je.properties} file in the store directory
 * is ignored, as in the standalone store.
 *
 * @param sourceFile        the virtual host file, for error messages
 * @param virtualHostName   names the store's threads
 * @param storePath         absolute environment directory
 * @param groupName         JE replication group
 * @param nodeName          this node's unique name in the group
 * @param nodeHostPort      host:port this node replicates on
 * @param helperHostPort    host:port list new nodes contact, as written (comma separated)
 * @param durability        the triplet: master sync, replica sync, replica acknowledgement policy
 * @param coalescingSync    whether the master's commits share one fsync per batch
 * @param designatedPrimary the initial designated-primary flag (two-node groups)
 * @param prefillLogFiles   whether JE's log files are written into space filled beforehand (as in {@code bdb})
 * @param maxDisk           {@code je.maxDisk} in bytes (always set)
 * @param maxDiskText       how {@code maxDisk} was given (or its default), for status and logs
 * @param envConfig         extra JE environment parameters, validated, in file order
 * @param repConfig         extra JE replication parameters, validated, in file order
 * @param replicationTls    the TLS replication channel ({@code <replicationTls>}), or empty for plain TCP
 */
public record ReplicatedStoreSettings(Path sourceFile, String virtualHostName, Path storePath, String groupName,
                                      String nodeName, String nodeHostPort, String helperHostPort,
                                      Durability durability, boolean coalescingSync, boolean designatedPrimary,
                                      boolean prefillLogFiles, long maxDisk, String maxDiskText,
                                      List<NameValue> envConfig, List<NameValue> repConfig,
                                      Optional<ReplicationTls> replicationTls) {

    public static final String STORE_PATH = "storePath";
    public static final String GROUP_NAME = "groupName";
    public static final String NODE_NAME = "nodeName";
    public static final String NODE_HOST_PORT = "nodeHostPort";
    public static final String HELPER_HOST_PORT = "helperHostPort";
    public static final String DURABILITY = "durability";
    public static final String COALESCING_SYNC = "coalescingSync";
    public static final String DESIGNATED_PRIMARY = "designatedPrimary";
    public static final String PREFILL_LOG_FILES = BdbStoreSettings.PREFILL_LOG_FILES;
    public static final String MAX_DISK = "maxDisk";

    /** The simple child elements of {@code <store type="bdb-ha">}, in documentation order. */
    public static final List<String> ELEMENTS = List.of(STORE_PATH, GROUP_NAME, NODE_NAME, NODE_HOST_PORT,
            HELPER_HOST_PORT, DURABILITY, COALESCING_SYNC, DESIGNATED_PRIMARY, PREFILL_LOG_FILES, MAX_DISK);

    public static final String DEFAULT_DURABILITY = "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY";
    /** Default {@code maxDisk}: this share of the size of the volume holding the store. */
    public static final int DEFAULT_MAX_DISK_PERCENT = 50;

    /** JE's (hidden) parameter: how long a node waits to connect to another during an election. */
    public static final String ELECTIONS_OPEN_TIMEOUT = "je.rep.electionsOpenTimeout";
    /** JE's (hidden) parameter: how long a node waits for another's answer during an election. */
    public static final String ELECTIONS_READ_TIMEOUT = "je.rep.electionsReadTimeout";
    /** The broker's (and {@code bin/arbiter}'s) value for both election timeouts. */
    public static final String ELECTION_MESSAGE_TIMEOUT = "2 s";

    /** Replication parameters the broker sets unless {@code repConfig} overrides them (see docs/ha.md). */
    public static final Map<String, String> BROKER_REP_DEFAULTS = orderedMap(
            // Open in UNKNOWN without a quorum instead of blocking until one is found.
            ReplicationConfig.ENV_UNKNOWN_STATE_TIMEOUT, "5 s",
            // JE's default is 10 h: a broker that cannot join must say so within minutes.
            ReplicationConfig.ENV_SETUP_TIMEOUT, "180 s",
            // Replicas never serve reads; a consistency wait could only hang a node that just left MASTER.
            ReplicationConfig.CONSISTENCY_POLICY, NoConsistencyRequiredPolicy.NAME,
            // How long a commit waits for enough replicas to be connected, and for their acknowledgements.
            ReplicationConfig.INSUFFICIENT_REPLICAS_TIMEOUT, "5 s",
            ReplicationConfig.REPLICA_ACK_TIMEOUT, "5 s",
            // An election asks every member and waits for each answer or these timeouts (JE: 10 s each). A killed
            // node whose address no longer answers (a removed container, a powered-off machine, a partition)
            // made every election after a failure wait 10 s for it. They bound only how long a node waits for one
            // message of an election, never what a majority decides; a failed round is retried.
            ELECTIONS_OPEN_TIMEOUT, ELECTION_MESSAGE_TIMEOUT,
            ELECTIONS_READ_TIMEOUT, ELECTION_MESSAGE_TIMEOUT);

    /** Environment parameters the broker sets unless {@code envConfig} overrides them. */
    public static final Map<String, String> BROKER_ENV_DEFAULTS = orderedMap(
            // One cache for every store in the JVM.
            EnvironmentConfig.SHARED_CACHE, "true",
            // JE's default (60 % of the heap) leaves too little for queues and message bodies: a broker holds a
            // few hundred bytes per queued message on the heap besides JE (docs/performance.md, Memory).
            EnvironmentConfig.MAX_MEMORY_PERCENT, BdbStoreSettings.BROKER_CACHE_PERCENT,
            // A commit keeps its write locks while it waits for acknowledgements (up to je.rep.replicaAckTimeout):
            // a conflicting writer must be able to wait that long. JE detects deadlocks without the timeout.
            EnvironmentConfig.LOCK_TIMEOUT, "10 s");

    /** JE environment parameters that {@code envConfig} may not set, and why. */
    public static final Map<String, String> RESERVED_ENV_PARAMETERS = Map.of(
            EnvironmentConfig.MAX_DISK, "set it with <maxDisk>",
            EnvironmentConfig.TXN_DURABILITY, "set it with <durability> and <coalescingSync>",
            EnvironmentConfig.ENV_IS_TRANSACTIONAL, "the store needs a transactional environment",
            EnvironmentConfig.ENV_IS_LOCKING, "the store needs a locking environment",
            EnvironmentConfig.ENV_READ_ONLY, "the store writes to its environment");

    /** JE replication parameters that {@code repConfig} may not set, and why. */
    public static final Map<String, String> RESERVED_REP_PARAMETERS = Map.of(
            ReplicationConfig.GROUP_NAME, "set it with <groupName>",
            ReplicationConfig.NODE_NAME, "set it with <nodeName>",
            ReplicationConfig.NODE_HOST_PORT, "set it with <nodeHostPort>",
            ReplicationConfig.HELPER_HOSTS, "set it with <helperHostPort>",
            ReplicationMutableConfig.DESIGNATED_PRIMARY, "set it with <designatedPrimary>");

    static final String SYNC_VALUES = "SYNC, WRITE_NO_SYNC, NO_SYNC";
    static final String ACK_VALUES = "ALL, SIMPLE_MAJORITY, NONE";
    private static final String HOST_PORT_RULE = "host:port (a host name or IPv4 address, a port from 1 to 65535)";
    private static final String NAME_RULE = "1-64 letters, digits, '.', '_' or '-'";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern HOST_PORT = Pattern.compile("([^\\s:,]+):(\\d{1,5})");
    private static final Pattern PERCENT = Pattern.compile("(\\d{1,2})\\s*%");
    private static final long JE_DEFAULT_LOG_FILE_MAX = 10_000_000L;

    public ReplicatedStoreSettings {
        envConfig = List.copyOf(envConfig);
        repConfig = List.copyOf(repConfig);
    }

    /** Validates every value of {@code settings}; the first bad one is a {@link ConfigException}. */
    public static ReplicatedStoreSettings from(StoreSettings settings, StoreContext context) throws ConfigException {
        Path file = settings.sourceFile();
        rejectUnknownElements(settings);
        Path storePath = BdbStoreSettings.storePath(settings, context);
        String groupName = name(settings, GROUP_NAME);
        String nodeName = name(settings, NODE_NAME);
        String nodeHostPort = hostPort(settings, NODE_HOST_PORT, settings.required(NODE_HOST_PORT, HOST_PORT_RULE));
        String helperHostPort = helpers(settings);
        checkWithJe(settings, groupName, nodeName, nodeHostPort, helperHostPort);
        Durability durability = parseDurability(file, settings.text(DURABILITY, DEFAULT_DURABILITY));
        boolean coalescingSync = settings.bool(COALESCING_SYNC, true);
        if (coalescingSync && durability.getLocalSync() == SyncPolicy.SYNC) {
            throw new ConfigException(file + ": <store/" + DURABILITY + "> with master sync policy SYNC cannot be "
                    + "used with <store/" + COALESCING_SYNC + "> true (the spec says it cannot be used: coalescing "
                    + "sync already fsyncs every batch of commits, so SYNC would add an fsync per commit for no "
                    + "durability gain); allowed: master sync NO_SYNC or WRITE_NO_SYNC with coalescingSync true, "
                    + "or any durability with coalescingSync false");
        }
        boolean designatedPrimary = settings.bool(DESIGNATED_PRIMARY, false);
        boolean prefillLogFiles = settings.bool(PREFILL_LOG_FILES, true);

        EnvironmentConfig envProbe = new EnvironmentConfig();
        List<NameValue> envConfig = BdbStoreSettings.envConfig(settings, envProbe, RESERVED_ENV_PARAMETERS);
        ReplicationConfig repProbe = new ReplicationConfig();
        List<NameValue> repConfig = repConfig(settings, repProbe);
        MaxDisk maxDisk = maxDisk(settings, storePath, envProbe);
        Optional<ReplicationTls> replicationTls = replicationTls(settings, System::getenv);
        return new ReplicatedStoreSettings(file, context.virtualHostName(), storePath, groupName, nodeName,
                nodeHostPort, helperHostPort, durability, coalescingSync, designatedPrimary, prefillLogFiles,
                maxDisk.bytes(), maxDisk.text(), envConfig, repConfig, replicationTls);
    }

    /**
     * Parses a durability triplet {@code <master sync>,<replica sync>,<replica ack>}, each part named
     * case-insensitively; a bad triplet names the part that is wrong.
     */
    public static Durability parseDurability(Path file, String text) throws ConfigException {
        String element = "store/" + DURABILITY;
        String allowed = "<master sync>,<replica sync>,<replica ack> with sync policies " + SYNC_VALUES
                + " and ack policies " + ACK_VALUES + " (default " + DEFAULT_DURABILITY + ")";
        String[] parts = text.split(",", -1);
        if (parts.length != 3) {
            throw ConfigException.invalidValue(file, element, text, allowed);
        }
        SyncPolicy master = enumPart(SyncPolicy.class, parts[0]);
        SyncPolicy replica = enumPart(SyncPolicy.class, parts[1]);
        ReplicaAckPolicy ack = enumPart(ReplicaAckPolicy.class, parts[2]);
        if (master == null) {
            throw ConfigException.invalidValue(file, element, text, "master sync policy (first part) one of "
                    + SYNC_VALUES + "; " + allowed);
        }
        if (replica == null) {
            throw ConfigException.invalidValue(file, element, text, "replica sync policy (second part) one of "
                    + SYNC_VALUES + "; " + allowed);
        }
        if (ack == null) {
            throw ConfigException.invalidValue(file, element, text, "replica acknowledgement policy (third part) "
                    + "one of " + ACK_VALUES + "; " + allowed);
        }
        return new Durability(master, replica, ack);
    }

    /** The durability triplet as written in the configuration, e.g. {@code NO_SYNC,NO_SYNC,SIMPLE_MAJORITY}. */
    public static String format(Durability durability) {
        return durability.getLocalSync() + "," + durability.getReplicaSync() + "," + durability.getReplicaAck();
    }

    /** The helper addresses, one per entry. */
    public List<String> helperHostPorts() {
        return Arrays.stream(helperHostPort.split(",")).map(String::trim).toList();
    }

    /**
     * The durability of a commit that stores data: the configured triplet. With coalescing sync the master sync
     * policy is NO_SYNC or WRITE_NO_SYNC (SYNC is refused) and the batch's flush adds the fsync; the replica
     * policies hold per commit either way.
     */
    public Durability commitDurability() {
        return durability;
    }

    /** A fresh JE environment configuration (JE's configuration objects are mutable, so one per open). */
    /** The store's disk limits as JE applies them: {@code maxDisk}, {@code je.freeDisk}, {@code je.log.fileMax}. */
    DiskLimitHeadroom.Limits diskLimits() {
        EnvironmentConfig config = environmentConfig();
        return new DiskLimitHeadroom.Limits(maxDisk, Long.parseLong(config.getConfigParam(EnvironmentConfig.FREE_DISK)),
                Long.parseLong(config.getConfigParam(EnvironmentConfig.LOG_FILE_MAX)));
    }

    public EnvironmentConfig environmentConfig() {
        EnvironmentConfig config = new EnvironmentConfig();
        BROKER_ENV_DEFAULTS.forEach(config::setConfigParam);
        for (NameValue parameter : envConfig) {
            config.setConfigParam(parameter.name(), parameter.value());
        }
        config.setConfigParam(EnvironmentConfig.MAX_DISK, Long.toString(maxDisk));
        config.setAllowCreate(true);
        config.setTransactional(true);
        config.setDurability(commitDurability());
        // A replica replays every record with the environment's default cache mode. The master writes a record
        // that holds a body with EVICT_LN (StoreDatabases: bodies are read at most once); without this default a
        // replica kept every replayed body in JE's cache, and paid for evicting and collecting them (about a
        // third of its CPU per message while a backlog filled: docs/perf/log.md). Internal nodes stay cached.
        config.setCacheMode(CacheMode.EVICT_LN);
        // See the class comment: je.properties is ignored. JE only offers this switch through DbInternal.
        DbInternal.setLoadPropertyFile(config, false);
        return config;
    }

    /**
     * The {@code <replicationTls>} settings, if the element is present. Relative paths are resolved against the
     * directory of the virtual host file; {@code environment} reads environment variables.
     */
    static Optional<ReplicationTls> replicationTls(StoreSettings settings, UnaryOperator<String> environment)
            throws ConfigException {
        String prefix = ReplicationTls.ELEMENT + "/";
        Map<String, String> values = new LinkedHashMap<>();
        settings.elements().forEach((name, value) -> {
            if (name.startsWith(prefix)) {
                values.put(name.substring(prefix.length()), value);
            }
        });
        if (values.isEmpty()) {
            if (settings.elements().containsKey(ReplicationTls.ELEMENT)) {
                throw ConfigException.missing(settings.sourceFile(), "store/" + ReplicationTls.ELEMENT + "/"
                        + ReplicationTls.KEY_STORE, "the TLS settings of the replication channel: "
                        + String.join(", ", ReplicationTls.SETTINGS) + " (docs/security.md)");
            }
            return Optional.empty();
        }
        Path file = settings.sourceFile().toAbsolutePath();
        Path base = file.getParent() == null ? Path.of("").toAbsolutePath() : file.getParent();
        return Optional.of(ReplicationTls.from(settings.sourceFile(), "store/" + ReplicationTls.ELEMENT, values,
                base, environment));
    }

    /**
     * JE's network configuration of every connection this node makes or takes: TLS when {@code <replicationTls>}
     * is given, plain TCP otherwise; refusals go to the {@link ChannelRefusals} registered as {@code refusalsToken}.
     */
    public ReplicationNetworkConfig networkConfig(String refusalsToken) {
        return replicationTls.<ReplicationNetworkConfig>map(tls -> tls.networkConfig(refusalsToken))
                .orElseGet(() -> ReplicationTls.plainNetworkConfig(refusalsToken));
    }

    /** A fresh JE replication configuration; channel refusals go to {@code refusalsToken}. */
    public ReplicationConfig replicationConfig(String refusalsToken) {
        ReplicationConfig config = new ReplicationConfig(groupName, nodeName, nodeHostPort);
        config.setRepNetConfig(networkConfig(refusalsToken));
        config.setHelperHosts(helperHostPort.replace(" ", ""));
        BROKER_REP_DEFAULTS.forEach(config::setConfigParam);
        for (NameValue parameter : repConfig) {
            config.setConfigParam(parameter.name(), parameter.value());
        }
        config.setDesignatedPrimary(designatedPrimary);
        return config;
    }

    private static void rejectUnknownElements(StoreSettings settings) throws ConfigException {
        Set<String> unknown = new TreeSet<>(settings.elements().keySet());
        ELEMENTS.forEach(unknown::remove);
        unknown.removeIf(name -> name.startsWith(ReplicationTls.ELEMENT + "/") || name.equals(ReplicationTls.ELEMENT));
        if (!unknown.isEmpty()) {
            throw new ConfigException(settings.sourceFile() + ": <store type=\"" + settings.type()
                    + "\"> has unknown element" + (unknown.size() > 1 ? "s " : " ") + unknown.stream()
                    .map(name -> "<" + name + ">").toList() + "; allowed: " + String.join(", ", ELEMENTS)
                    + ", " + ReplicationTls.ELEMENT + ", envConfig, repConfig");
        }
    }

    private static String name(StoreSettings settings, String element) throws ConfigException {
        String value = settings.required(element, NAME_RULE);
        if (!NAME.matcher(value).matches()) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + element, value, NAME_RULE);
        }
        return value;
    }

    private static String hostPort(StoreSettings settings, String element, String value) throws ConfigException {
        Matcher matcher = HOST_PORT.matcher(value.trim());
        if (!matcher.matches()) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + element, value, HOST_PORT_RULE);
        }
        int port = Integer.parseInt(matcher.group(2));
        if (port < 1 || port > 65535) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + element, value, HOST_PORT_RULE);
        }
        return matcher.group(1) + ":" + port;
    }

    /** JE resolves this node's host (it binds to it) and checks names its own way: ask it at startup. */
    private static void checkWithJe(StoreSettings settings, String groupName, String nodeName, String nodeHostPort,
                                    String helperHostPort) throws ConfigException {
        ReplicationConfig probe;
        try {
            probe = new ReplicationConfig(groupName, nodeName, nodeHostPort);
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + NODE_HOST_PORT, nodeHostPort,
                    HOST_PORT_RULE + " whose host resolves on this machine (this node listens on it); JE says: "
                            + ReplicationFailures.firstLine(e));
        }
        try {
            probe.setHelperHosts(helperHostPort);
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + HELPER_HOST_PORT, helperHostPort,
                    HOST_PORT_RULE + " list; JE says: " + ReplicationFailures.firstLine(e));
        }
    }

    private static String helpers(StoreSettings settings) throws ConfigException {
        String allowed = HOST_PORT_RULE + ", or a comma-separated list of them (the first node names itself)";
        String text = settings.required(HELPER_HOST_PORT, allowed);
        List<String> result = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            if (part.isBlank()) {
                throw ConfigException.invalidValue(settings.sourceFile(), "store/" + HELPER_HOST_PORT, text, allowed);
            }
            Matcher matcher = HOST_PORT.matcher(part.trim());
            int port = matcher.matches() ? Integer.parseInt(matcher.group(2)) : 0;
            if (port < 1 || port > 65535) {
                throw ConfigException.invalidValue(settings.sourceFile(), "store/" + HELPER_HOST_PORT, text,
                        allowed);
            }
            result.add(matcher.group(1) + ":" + port);
        }
        return String.join(",", result);
    }

    private static <E extends Enum<E>> E enumPart(Class<E> type, String part) {
        String name = part.trim().toUpperCase(Locale.ROOT);
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equals(name)) {
                return constant;
            }
        }
        return null;
    }

    private static List<NameValue> repConfig(StoreSettings settings, ReplicationConfig probe)
            throws ConfigException {
        List<NameValue> result = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (NameValue parameter : settings.repConfig()) {
            String name = parameter.name().trim();
            String value = parameter.value().trim();
            String element = "store/repConfig " + name;
            String reserved = RESERVED_REP_PARAMETERS.get(name);
            if (reserved != null) {
                throw ConfigException.invalidValue(settings.sourceFile(), element, value,
                        "none: " + name + " is decided by the store (" + reserved + ")");
            }
            if (name.equals("je.rep.channelType") || name.startsWith("je.rep.ssl")
                    || name.startsWith("je.rep.channelFactory")) {
                // The channel is decided by <replicationTls> as a whole (key store, trust store, allow-list, password
                // source): one JE parameter set here could only weaken or contradict it.
                throw ConfigException.invalidValue(settings.sourceFile(), element, value,
                        "none: " + name + " is decided by the store (set the replication channel with <"
                                + ReplicationTls.ELEMENT + ">, docs/security.md)");
            }
            if (!seen.add(name)) {
                throw ConfigException.invalidValue(settings.sourceFile(), element, value,
                        "one value per parameter (" + name + " is given twice)");
            }
            try {
                probe.setConfigParam(name, value);
            } catch (IllegalArgumentException e) {
                throw ConfigException.invalidValue(settings.sourceFile(), element, value,
                        "a JE replication parameter (com.sleepycat.je.rep.ReplicationConfig) with a valid value; "
                                + "JE says: " + e.getMessage());
            }
            result.add(new NameValue(name, value));
        }
        return result;
    }

    private record MaxDisk(long bytes, String text) {
    }

    private static MaxDisk maxDisk(StoreSettings settings, Path storePath, EnvironmentConfig probe)
            throws ConfigException {
        long logFileMax = probe.isConfigParamSet(EnvironmentConfig.LOG_FILE_MAX)
                ? Long.parseLong(probe.getConfigParam(EnvironmentConfig.LOG_FILE_MAX))
                : JE_DEFAULT_LOG_FILE_MAX;
        long minimum = 2 * logFileMax;
        String allowed = "a size (" + Units.BYTES_FORMAT + ") of at least " + minimum + " bytes (two JE log files of "
                + "je.log.fileMax=" + logFileMax + "), or a percentage from 1% to 99% of the volume holding the "
                + "store (default " + DEFAULT_MAX_DISK_PERCENT + "%); 0 (no limit) is not allowed: JE keeps log "
                + "for absent replicas until a disk limit forces it to delete";
        Optional<String> given = settings.text(MAX_DISK);
        String text = given.orElse(DEFAULT_MAX_DISK_PERCENT + "%");
        long bytes;
        Matcher percent = PERCENT.matcher(text);
        if (percent.matches()) {
            int share = Integer.parseInt(percent.group(1));
            if (share < 1) {
                throw ConfigException.invalidValue(settings.sourceFile(), "store/" + MAX_DISK, text, allowed);
            }
            bytes = volumeSize(settings, storePath) / 100 * share;
        } else {
            try {
                bytes = Units.parseBytes(text);
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw ConfigException.invalidValue(settings.sourceFile(), "store/" + MAX_DISK, text, allowed);
            }
        }
        if (bytes < minimum) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + MAX_DISK, text,
                    allowed + (percent.matches() ? " (" + text + " of this volume is only " + bytes + " bytes)" : ""));
        }
        return new MaxDisk(bytes, given.isPresent() ? text : text + " of the volume (default)");
    }

    private static long volumeSize(StoreSettings settings, Path storePath) throws ConfigException {
        Path existing = storePath;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        try {
            return Files.getFileStore(existing == null ? storePath.getRoot() : existing).getTotalSpace();
        } catch (IOException | RuntimeException e) {
            throw new ConfigException(settings.sourceFile() + ": <store/" + MAX_DISK + "> is a percentage of the "
                    + "volume, but the size of the volume holding " + storePath + " cannot be read (" + e.getMessage()
                    + "); allowed: an explicit size such as 20GiB");
        }
    }

    private static Map<String, String> orderedMap(String... namesAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            map.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(map);
    }
}
