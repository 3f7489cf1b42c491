package org.tandembroker.store.bdb;

import com.sleepycat.je.DbInternal;
import com.sleepycat.je.Durability;
import com.sleepycat.je.Durability.ReplicaAckPolicy;
import com.sleepycat.je.Durability.SyncPolicy;
import com.sleepycat.je.EnvironmentConfig;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.NameValue;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.store.StoreContext;

/**
 * The validated settings of a {@code <store type="bdb">} element. Immutable; made only by
 * {@link #from(StoreSettings, StoreContext)}, which checks every value so that a bad one stops the broker at
 * startup with one line naming the file, the element, the value and what is allowed.
 *
 * <p>Elements (all optional):
 * <ul>
 *   <li>{@code storePath}: the JE environment directory; relative paths resolve against the work directory.
 *       Default {@code <workDirectory>/<virtualHostName>/store}.</li>
 *   <li>{@code durability}: the sync policy of a commit on this node: {@code SYNC}, {@code WRITE_NO_SYNC} or
 *       {@code NO_SYNC} (default).</li>
 *   <li>{@code coalescingSync}: {@code true} (default) commits with the {@code durability} policy and then makes
 *       each batch of commits durable with one fsync before their futures complete (group commit);
 *       {@code false} completes each commit as soon as JE has committed it with the {@code durability} policy.
 *       {@code SYNC} with {@code coalescingSync=true} is refused: every commit would fsync and then the batch
 *       would fsync again, for no durability gain.</li>
 *   <li>{@code prefillLogFiles}: {@code true} (default) starts each JE log file in space written beforehand, so
 *       that a commit's fsync writes data only ({@link org.tandembroker.store.bdb.logfile.PrefilledLogFiles});
 *       {@code false} lets JE append to its files. {@code -Dtandem.store.prefillLogFiles=false} turns it off for
 *       every store of the JVM.</li>
 *   <li>{@code maxDisk}: JE's {@code je.maxDisk}; {@code 0} (default) means no store-specific limit (JE still
 *       keeps {@code je.freeDisk} free on the volume). Otherwise at least two JE log files
 *       ({@code 2 * je.log.fileMax}), below which JE cannot even open and clean its log.</li>
 *   <li>{@code envConfig}: name/value pairs passed to {@link EnvironmentConfig#setConfigParam}; JE validates
 *       both. The parameters that the store or another element decides are refused (see
 *       {@link #RESERVED_PARAMETERS}).</li>
 * </ul>
 *
 * <p><b>{@code je.properties}.</b> A {@code je.properties} file in the environment directory is <em>ignored</em>:
 * the virtual host file is the one validated place for store settings, and a stray file must not silently
 * override them (the store logs a warning when it finds one). Put such parameters in {@code envConfig}.
 *
 * @param sourceFile      the virtual host file, for error messages
 * @param virtualHostName the virtual host the store serves (names the store's threads)
 * @param storePath       absolute environment directory
 * @param durability      the local sync policy of commits that store data
 * @param coalescingSync  whether batches of commits share one fsync before completing
 * @param prefillLogFiles whether JE's log files are written into space filled beforehand
 * @param maxDisk         {@code je.maxDisk} in bytes; 0 = not set
 * @param envConfig       extra JE environment parameters, validated by JE, in file order
 */
public record BdbStoreSettings(Path sourceFile, String virtualHostName, Path storePath, SyncPolicy durability,
                               boolean coalescingSync, boolean prefillLogFiles, long maxDisk,
                               List<NameValue> envConfig) {

    public static final String STORE_PATH = "storePath";
    public static final String DURABILITY = "durability";
    public static final String COALESCING_SYNC = "coalescingSync";
    public static final String PREFILL_LOG_FILES = "prefillLogFiles";
    public static final String MAX_DISK = "maxDisk";
    public static final String ENV_CONFIG = "envConfig";

    /** The simple child elements of {@code <store type="bdb">}, in documentation order. */
    public static final List<String> ELEMENTS = List.of(STORE_PATH, DURABILITY, COALESCING_SYNC,
            PREFILL_LOG_FILES, MAX_DISK);

    /** JE parameters that {@code envConfig} may not set, and why. */
    public static final Map<String, String> RESERVED_PARAMETERS = Map.of(
            EnvironmentConfig.MAX_DISK, "set it with <maxDisk>",
            EnvironmentConfig.TXN_DURABILITY, "set it with <durability> and <coalescingSync>",
            EnvironmentConfig.ENV_IS_TRANSACTIONAL, "the store needs a transactional environment",
            EnvironmentConfig.ENV_IS_LOCKING, "the store needs a locking environment",
            EnvironmentConfig.ENV_READ_ONLY, "the store writes to its environment");

    private static final String DURABILITY_VALUES = "SYNC, WRITE_NO_SYNC, NO_SYNC";
    private static final long JE_DEFAULT_LOG_FILE_MAX = 10_000_000L;

    public BdbStoreSettings {
        envConfig = List.copyOf(envConfig);
    }

    /** Validates every value of {@code settings}; the first bad one is a {@link ConfigException}. */
    public static BdbStoreSettings from(StoreSettings settings, StoreContext context) throws ConfigException {
        Path file = settings.sourceFile();
        rejectUnknownElements(settings);
        if (!settings.repConfig().isEmpty()) {
            throw new ConfigException(file + ": <store type=\"" + settings.type() + "\"> has a <repConfig> element, "
                    + "which only a replicated store reads; allowed: " + allowedElements() + " (or type=\"bdb-ha\")");
        }

        Path storePath = storePath(settings, context);
        SyncPolicy durability = durability(settings);
        boolean coalescingSync = settings.bool(COALESCING_SYNC, true);
        if (coalescingSync && durability == SyncPolicy.SYNC) {
            throw new ConfigException(file + ": <store/" + DURABILITY + "> SYNC cannot be used with <store/"
                    + COALESCING_SYNC + "> true (the spec says it cannot be used: coalescing sync already fsyncs "
                    + "every batch of commits, so SYNC would add an fsync per commit for no durability gain); "
                    + "allowed: durability NO_SYNC or WRITE_NO_SYNC with coalescingSync true, "
                    + "or any durability with coalescingSync false");
        }
        boolean prefillLogFiles = settings.bool(PREFILL_LOG_FILES, true);

        EnvironmentConfig probe = new EnvironmentConfig();
        List<NameValue> envConfig = envConfig(settings, probe);
        long maxDisk = maxDisk(settings, probe);
        return new BdbStoreSettings(file, context.virtualHostName(), storePath, durability, coalescingSync,
                prefillLogFiles, maxDisk, envConfig);
    }

    /** JE's cache as a share of the heap unless envConfig sets je.maxMemoryPercent or je.maxMemory. */
    public static final String BROKER_CACHE_PERCENT = "20";

    /**
     * A fresh JE configuration for this store (JE's configuration objects are mutable, so one per use).
     * The store's fixed choices come last so that nothing overrides them.
     */
    public EnvironmentConfig environmentConfig() {
        EnvironmentConfig config = new EnvironmentConfig();
        // One cache for every store in the JVM: otherwise each virtual host's environment takes JE's default
        // share of the heap. envConfig may override it.
        config.setConfigParam(EnvironmentConfig.SHARED_CACHE, "true");
        // JE's default (60 % of the heap) leaves too little for queues and message bodies: a broker holds a few
        // hundred bytes per queued message on the heap besides JE (docs/performance.md, Memory).
        config.setConfigParam(EnvironmentConfig.MAX_MEMORY_PERCENT, BROKER_CACHE_PERCENT);
        for (NameValue parameter : envConfig) {
            config.setConfigParam(parameter.name(), parameter.value());
        }
        if (maxDisk > 0) {
            config.setConfigParam(EnvironmentConfig.MAX_DISK, Long.toString(maxDisk));
        }
        config.setAllowCreate(true);
        config.setTransactional(true);
        config.setDurability(commitDurability());
        // See the class comment: je.properties is ignored. JE only offers this switch through DbInternal.
        DbInternal.setLoadPropertyFile(config, false);
        return config;
    }

    /** The durability of a commit that stores data (before any coalesced fsync). */
    public Durability commitDurability() {
        return new Durability(durability, SyncPolicy.NO_SYNC, ReplicaAckPolicy.NONE);
    }

    private static void rejectUnknownElements(StoreSettings settings) throws ConfigException {
        Set<String> unknown = new TreeSet<>(settings.elements().keySet());
        ELEMENTS.forEach(unknown::remove);
        if (!unknown.isEmpty()) {
            throw new ConfigException(settings.sourceFile() + ": <store type=\"" + settings.type()
                    + "\"> has unknown element" + (unknown.size() > 1 ? "s " : " ") + unknown.stream()
                    .map(name -> "<" + name + ">").toList() + "; allowed: " + allowedElements());
        }
    }

    private static String allowedElements() {
        return String.join(", ", ELEMENTS) + ", " + ENV_CONFIG;
    }

    /**
     * The validated {@code storePath} element: absolute, normalised, not an existing file. Default
     * {@code <workDirectory>/<virtualHostName>/store}. Shared with the replicated store.
     */
    public static Path storePath(StoreSettings settings, StoreContext context) throws ConfigException {
        String allowed = "a directory path, absolute or relative to the work directory " + context.workDirectory();
        String text = settings.text(STORE_PATH).orElse(null);
        Path path;
        if (text == null) {
            path = context.workDirectory().resolve(context.virtualHostName()).resolve("store");
        } else if (text.isEmpty()) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + STORE_PATH, text, allowed);
        } else {
            try {
                path = context.workDirectory().resolve(text);
            } catch (InvalidPathException e) {
                throw ConfigException.invalidValue(settings.sourceFile(), "store/" + STORE_PATH, text, allowed);
            }
        }
        path = path.toAbsolutePath().normalize();
        if (Files.exists(path) && !Files.isDirectory(path)) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + STORE_PATH, String.valueOf(text),
                    allowed + " (" + path + " exists and is not a directory)");
        }
        return path;
    }

    private static SyncPolicy durability(StoreSettings settings) throws ConfigException {
        String text = settings.text(DURABILITY).orElse(null);
        if (text == null) {
            return SyncPolicy.NO_SYNC;
        }
        try {
            return SyncPolicy.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + DURABILITY, text, DURABILITY_VALUES);
        }
    }

    private static List<NameValue> envConfig(StoreSettings settings, EnvironmentConfig probe)
            throws ConfigException {
        return envConfig(settings, probe, RESERVED_PARAMETERS);
    }

    /**
     * The validated {@code envConfig} list, each parameter applied to {@code probe} (so that JE checks name and
     * value); a parameter in {@code reserved} (name to the reason) or given twice is refused. Shared with the
     * replicated store.
     */
    public static List<NameValue> envConfig(StoreSettings settings, EnvironmentConfig probe,
                                            Map<String, String> reserved) throws ConfigException {
        List<NameValue> result = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (NameValue parameter : settings.envConfig()) {
            String name = parameter.name().trim();
            String value = parameter.value().trim();
            String element = "store/" + ENV_CONFIG + " " + name;
            String why = reserved.get(name);
            if (why != null) {
                throw ConfigException.invalidValue(settings.sourceFile(), element, value,
                        "none: " + name + " is decided by the store (" + why + ")");
            }
            if (!seen.add(name)) {
                throw ConfigException.invalidValue(settings.sourceFile(), element, value,
                        "one value per parameter (" + name + " is given twice)");
            }
            try {
                probe.setConfigParam(name, value);
            } catch (IllegalArgumentException e) {
                throw ConfigException.invalidValue(settings.sourceFile(), element, value,
                        "a JE environment parameter (com.sleepycat.je.EnvironmentConfig) with a valid value; JE says: "
                                + e.getMessage());
            }
            result.add(new NameValue(name, value));
        }
        return result;
    }

    private static long maxDisk(StoreSettings settings, EnvironmentConfig probe) throws ConfigException {
        long maxDisk = settings.size(MAX_DISK, 0L);
        if (maxDisk == 0) {
            return 0;
        }
        long logFileMax = probe.isConfigParamSet(EnvironmentConfig.LOG_FILE_MAX)
                ? Long.parseLong(probe.getConfigParam(EnvironmentConfig.LOG_FILE_MAX))
                : JE_DEFAULT_LOG_FILE_MAX;
        long minimum = 2 * logFileMax;
        if (maxDisk < minimum) {
            throw ConfigException.invalidValue(settings.sourceFile(), "store/" + MAX_DISK,
                    settings.text(MAX_DISK).orElseThrow(), "0 (no limit) or at least " + minimum
                            + " bytes (two JE log files of je.log.fileMax=" + logFileMax + ")");
        }
        return maxDisk;
    }
}
