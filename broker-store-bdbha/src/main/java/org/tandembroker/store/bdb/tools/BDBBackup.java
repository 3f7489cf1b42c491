package org.tandembroker.store.bdb.tools;

import com.sleepycat.je.CheckpointConfig;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentConfig;
import com.sleepycat.je.rep.LogOverwriteException;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import com.sleepycat.je.util.DbBackup;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.store.bdb.BdbMessageStore;
import org.tandembroker.store.bdbha.ReplicatedMessageStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Backs up a JE store (spec 1.6.13), standalone ({@code bdb}) or replicated ({@code bdb-ha}), and is
 * {@code bin/backup.sh}:
 * <pre>
 * backup.sh -fromdir STORE -todir DIR [--user U --password-file F [--host H] [--port P] [--vhost V]]
 * </pre>
 *
 * <h2>Why the running broker takes the backup itself</h2>
 * A consistent copy of a live JE environment needs JE's {@link DbBackup} on the environment handle of the process
 * that writes it: {@code startBackup} writes an "immutable file" marker and flips to a new log file, so the files
 * of the backup set never change again, and protects them from the cleaner until {@code endBackup}. Another process
 * cannot do that (JE refuses {@code DbBackup} on a read-only handle of a writable directory, and a read-only
 * handle in another process of a replicated store is not supported while the node runs). So:
 * <ul>
 *   <li><b>running broker</b>: the broker runs {@link #backUp(Environment, String, Path)} in its own process, asked
 *       over JMX ({@code backup(toDirectory)} of {@code org.tandembroker:type=Backup,name=<vhost>}, admin role).
 *       This command finds the virtual host whose store is {@code -fromdir} and asks it; the broker writes
 *       {@code -todir} on its own machine;</li>
 *   <li><b>stopped broker</b>: {@link #backUpStoppedStore} copies the store here, holding JE's writer lock on it
 *       so that no broker can start on it meanwhile, and verifying every file with a read-only JE handle.</li>
 * </ul>
 * Which case applies is decided by that lock: when it cannot be taken a broker has the store open.
 *
 * <h2>Consistency under load</h2>
 * Every transaction committed before {@code startBackup} is in the files of the backup set (the flip writes JE's
 * log buffers out to the last of them); commits after it go to newer files, which the backup does not copy. The
 * files are copied while the broker keeps serving. On a replicated node JE invalidates a backup when replication
 * rewrites log files meanwhile (a rollback after a master change: {@link LogOverwriteException}); the copy is then
 * discarded and taken again, up to {@value #ATTEMPTS} times.
 *
 * <p>Exit codes: 0 done, 1 refused or failed (the message says why), 2 usage, 3 cannot connect to the broker's
 * JMX, 4 authentication or role.
 *
 * <p><b>Threads.</b> Everything runs on the caller's thread: the tool's main thread, or in the broker the RMI thread
 * of the JMX call (which holds the backup bean's one-backup-at-a-time lock). JE's {@code DbBackup} is safe to use
 * while the store's own threads commit.
 */
@Command(name = "backup.sh", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Backs up a Tandem store directory (bdb or bdb-ha) into an empty directory.",
                "A running broker takes the backup itself (JE DbBackup, asked over JMX: give --user and a password; "
                        + "-todir is then written on the broker's machine); a stopped store is copied directly."},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class BDBBackup implements Callable<Integer> {
    /** How often a hot backup is tried when replication invalidates it. */
    static final int ATTEMPTS = 5;
    /** The backup bean's type in the broker's JMX domain. */
    public static final String BEAN_TYPE = "Backup";
    public static final String BEAN_DOMAIN = "org.tandembroker";

    private static final Logger LOG = LoggerFactory.getLogger(BDBBackup.class);
    private static final long RETRY_DELAY_MILLIS = 1000;
    private static final Pattern LOG_FILE = Pattern.compile("[0-9a-f]{8}\\.jdb");
    private static final Pattern DATA_DIRECTORY = Pattern.compile("data\\d{3}");

    @Option(names = {"-fromdir", "--fromdir"}, paramLabel = "STORE", required = true,
            description = "The store directory: the virtual host's <storePath>.")
    Path fromDirectory;

    @Option(names = {"-todir", "--todir"}, paramLabel = "DIR", required = true,
            description = "An empty or new directory for the backup (on the broker's machine when it runs).")
    Path toDirectory;

    @Option(names = "--vhost", paramLabel = "NAME",
            description = "The virtual host whose store to back up, when the running broker's store paths do not "
                    + "match -fromdir as seen from here (e.g. a remote broker).")
    String virtualHost;

    @Option(names = "--help", usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Mixin
    JmxTarget broker = new JmxTarget();

    private PrintWriter out;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /** Runs the command line; returns the exit code (for tests and other programs: nothing calls System.exit). */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        BDBBackup command = new BDBBackup();
        command.out = out;
        return ToolCommandLine.create(command, out, err).execute(args);
    }

    @Override
    public Integer call() {
        if (broker.isRemote()) {
            out.print(backUpThroughBroker());
            out.flush();
            return ToolFailure.OK;
        }
        Optional<StoreLock> stopped = StoreLock.tryLock(fromDirectory);
        if (stopped.isPresent()) {
            try (StoreLock lock = stopped.get()) {
                out.print(copyLockedStore(fromDirectory, toDirectory).describe());
            }
        } else {
            if (!broker.hasUser()) {
                throw ToolFailure.usage("the store at " + fromDirectory + " is in use by a running broker, which must "
                        + "take the backup itself: give the JMX user and password (role admin): --user USER "
                        + "--password-file FILE [--port " + broker.port + "]");
            }
            out.print(backUpThroughBroker());
        }
        out.flush();
        return ToolFailure.OK;
    }

    // ---- a running broker, over JMX ----

    private String backUpThroughBroker() {
        Path absoluteTarget = toDirectory.toAbsolutePath().normalize();
        try (JmxSession session = broker.connect()) {
            ObjectName bean = backupBean(session);
            return (String) session.invoke(bean, "backup", new Object[] {absoluteTarget.toString()},
                    new String[] {String.class.getName()});
        }
    }

    private ObjectName backupBean(JmxSession session) {
        List<ObjectName> beans = session.queryNames(name("*")).stream()
                .sorted(Comparator.comparing(ObjectName::toString)).toList();
        if (beans.isEmpty()) {
            throw ToolFailure.usage("the broker at " + session.address() + " has no virtual host on a bdb or bdb-ha "
                    + "store (no " + BEAN_DOMAIN + ":type=" + BEAN_TYPE + " MBean)");
        }
        if (virtualHost != null) {
            ObjectName wanted = name(quoteIfNeeded(virtualHost));
            return beans.stream().filter(wanted::equals).findFirst().orElseThrow(() -> ToolFailure.usage(
                    "the broker at " + session.address() + " has no virtual host '" + virtualHost + "' on a bdb or "
                            + "bdb-ha store; it has: " + describe(session, beans)));
        }
        Path wanted = fromDirectory.toAbsolutePath().normalize();
        for (ObjectName bean : beans) {
            Path storePath = Path.of(String.valueOf(session.getAttribute(bean, "StorePath")));
            if (sameDirectory(storePath, wanted)) {
                return bean;
            }
        }
        throw ToolFailure.usage("no virtual host of the broker at " + session.address() + " has its store at "
                + wanted + "; its stores: " + describe(session, beans) + " (give --vhost NAME to choose one)");
    }

    private static String describe(JmxSession session, List<ObjectName> beans) {
        return beans.stream().map(bean -> bean.getKeyProperty("name") + " at " + session.getAttribute(bean, "StorePath"))
                .collect(Collectors.joining(", "));
    }

    private static boolean sameDirectory(Path a, Path b) {
        if (a.toAbsolutePath().normalize().equals(b)) {
            return true;
        }
        try {
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    /** {@code org.tandembroker:type=Backup,name=<vhost>} (a pattern when {@code vhost} is {@code *}). */
    public static ObjectName name(String quotedVirtualHost) {
        try {
            return new ObjectName(BEAN_DOMAIN + ":type=" + BEAN_TYPE + ",name=" + quotedVirtualHost);
        } catch (MalformedObjectNameException e) {
            throw ToolFailure.usage("'" + quotedVirtualHost + "' is not a usable virtual host name: " + e.getMessage());
        }
    }

    private static String quoteIfNeeded(String name) {
        return name.chars().anyMatch(c -> ",=:\"*?\n\\".indexOf(c) >= 0) ? ObjectName.quote(name) : name;
    }

    // ---- the API: what the broker runs, and the offline copy ----

    /**
     * Hot backup of a running store, run inside the broker (the JMX backup bean calls it): JE's {@link DbBackup} on
     * the store's own environment.
     *
     * @throws ToolFailure when the store is not open, is not a JE store, or the backup fails
     */
    public static BackupReport backUpRunningStore(MessageStore store, Path toDirectory) {
        if (store instanceof ReplicatedMessageStore replicated) {
            ReplicatedEnvironment environment = replicated.environment().filter(ReplicatedEnvironment::isValid)
                    .orElseThrow(() -> ToolFailure.refused("node " + replicated.nodeName() + " has no open environment"
                            + " now (" + replicated.nodeState() + "); try again once it has rejoined its group"));
            String state = replicated.nodeState();
            return backUp(environment, "hot backup (JE DbBackup) of node " + replicated.nodeName() + " (" + state
                    + ") of group " + replicated.groupName() + (state.equals("MASTER") ? ""
                    : "; a replica has what it has received, back up the master for the latest state"), toDirectory);
        }
        if (store instanceof BdbMessageStore standalone) {
            Environment environment = standalone.environment().orElseThrow(() -> ToolFailure.refused(
                    "the store is not open (" + standalone.status().description() + ")"));
            return backUp(environment, "hot backup (JE DbBackup) of the running standalone store", toDirectory);
        }
        throw ToolFailure.refused("only bdb and bdb-ha stores can be backed up, not " + store);
    }

    /** The directory of a running JE store; empty for other stores and while it is not open. */
    public static Optional<Path> storeDirectory(MessageStore store) {
        Optional<? extends Environment> environment = store instanceof ReplicatedMessageStore replicated
                ? replicated.environment() : store instanceof BdbMessageStore standalone ? standalone.environment()
                : Optional.empty();
        try {
            return environment.map(env -> env.getHome().toPath().toAbsolutePath().normalize());
        } catch (RuntimeException e) {
            return Optional.empty(); // closed meanwhile
        }
    }

    /**
     * Hot backup of {@code environment}, which this process has open read-write: fixes the backup set
     * ({@link DbBackup#startBackup}), copies and verifies its files while the store keeps working, ends the backup
     * mode; retries when replication invalidated the copy.
     *
     * @param how what is backed up, for the report
     */
    public static BackupReport backUp(Environment environment, String how, Path toDirectory) {
        Path store = environment.getHome().toPath();
        BackupDirectory target = BackupDirectory.prepare(toDirectory, store);
        for (int attempt = 1; ; attempt++) {
            try {
                BackupReport report = attempt(environment, how, store, target, attempt);
                target.finish(report);
                LOG.info("Backup of {} into {}: {} files, {} bytes, last file {}", store, target.path(),
                        report.files().size(), report.totalBytes(), report.lastFileNumber());
                return report;
            } catch (LogOverwriteException e) {
                target.discard();
                if (attempt == ATTEMPTS) {
                    throw ToolFailure.refused("replication rewrote log files during each of " + ATTEMPTS + " backup "
                            + "attempts of " + store + " (the node is rolling back after master changes); try again "
                            + "once the group is stable");
                }
                LOG.info("Backup of {}: JE invalidated attempt {} ({}); discarding it and trying again", store, attempt,
                        ToolFailure.firstLine(e));
                pause(RETRY_DELAY_MILLIS * attempt);
            } catch (RuntimeException e) {
                target.discard();
                throw e instanceof ToolFailure failure ? failure : ToolFailure.refused("backup of " + store
                        + " failed: " + ToolFailure.firstLine(e));
            }
        }
    }

    private static BackupReport attempt(Environment environment, String how, Path store, BackupDirectory target,
                                        int attempt) {
        checkpoint(environment);
        DbBackup backup = new DbBackup(environment);
        long began = System.nanoTime();
        Instant startedAt = Instant.now();
        backup.startBackup();
        boolean ended = false;
        try {
            long lastFile = backup.getLastFileInBackupSet();
            List<BackupReport.CopiedFile> copied = new ArrayList<>();
            for (String name : backup.getLogFilesInBackupSet()) {
                copied.add(new BackupReport.CopiedFile(name, target.copyVerified(environment, store, name)));
                backup.removeFileProtection(name); // the cleaner may delete it again: it is copied
            }
            ended = true;
            backup.endBackup(); // throws LogOverwriteException when replication rewrote files meanwhile
            return new BackupReport(store, target.path(), how, startedAt, copied, lastFile, attempt,
                    Duration.ofNanos(System.nanoTime() - began));
        } finally {
            if (!ended) {
                try {
                    backup.endBackup();
                } catch (RuntimeException e) {
                    // the copy failed already; this only re-enables the cleaner
                }
            }
        }
    }

    /** A checkpoint first makes a restored store recover faster; the backup does not depend on it. */
    private static void checkpoint(Environment environment) {
        try {
            environment.checkpoint(new CheckpointConfig().setForce(true));
        } catch (RuntimeException e) {
            LOG.info("Backup of {}: the checkpoint before it failed ({}); backing up anyway", environment.getHome(),
                    ToolFailure.firstLine(e));
        }
    }

    /**
     * Copies a stopped store: every log file, verified, while JE's writer lock keeps brokers off it.
     *
     * @throws ToolFailure when a broker has the store open, or the copy fails
     */
    public static BackupReport backUpStoppedStore(Path storeDirectory, Path toDirectory) {
        try (StoreLock lock = StoreLock.lockStopped(storeDirectory, "copy it directly; or give --user and a password "
                + "so that the broker takes a hot backup")) {
            return copyLockedStore(storeDirectory, toDirectory);
        }
    }

    private static BackupReport copyLockedStore(Path storeDirectory, Path toDirectory) {
        Path store = storeDirectory.toAbsolutePath().normalize();
        BackupDirectory target = BackupDirectory.prepare(toDirectory, store);
        long began = System.nanoTime();
        Instant startedAt = Instant.now();
        Environment environment = openReadOnly(store);
        try {
            List<String> names = logFiles(store);
            List<BackupReport.CopiedFile> copied = new ArrayList<>();
            for (String name : names) {
                copied.add(new BackupReport.CopiedFile(name, target.copyVerified(environment, store, name)));
            }
            String last = Path.of(names.get(names.size() - 1)).getFileName().toString();
            BackupReport report = new BackupReport(store, target.path(), "copy of the stopped store (no broker had it"
                    + " open; brokers were locked out during the copy)", startedAt, copied,
                    Long.parseLong(last.substring(0, 8), 16), 1, Duration.ofNanos(System.nanoTime() - began));
            target.finish(report);
            return report;
        } catch (RuntimeException e) {
            target.discard();
            throw e instanceof ToolFailure failure ? failure : ToolFailure.refused("copy of " + store + " failed: "
                    + ToolFailure.firstLine(e));
        } finally {
            try {
                environment.close();
            } catch (RuntimeException e) {
                LOG.debug("Closing the read-only environment of {} reported {}", store, e.toString());
            }
        }
    }

    /** A read-only handle (a replicated store may be opened so while no node runs on it): for verification. */
    private static Environment openReadOnly(Path store) {
        EnvironmentConfig config = new EnvironmentConfig().setReadOnly(true).setAllowCreate(false)
                .setTransactional(true).setSharedCache(false);
        try {
            return new Environment(store.toFile(), config);
        } catch (RuntimeException e) {
            throw ToolFailure.refused("cannot open the store at " + store + " (read-only) to verify it: "
                    + ToolFailure.firstLine(e));
        }
    }

    /** Every JE log file of a stopped store, in log order (names relative to the store, as JE's). */
    private static List<String> logFiles(Path store) {
        List<String> names = new ArrayList<>();
        try (Stream<Path> entries = Files.list(store)) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (LOG_FILE.matcher(name).matches()) {
                    names.add(name);
                } else if (Files.isDirectory(entry) && DATA_DIRECTORY.matcher(name).matches()) {
                    try (Stream<Path> inData = Files.list(entry)) {
                        inData.map(p -> p.getFileName().toString()).filter(n -> LOG_FILE.matcher(n).matches())
                                .forEach(n -> names.add(name + "/" + n));
                    }
                }
            }
        } catch (IOException e) {
            throw ToolFailure.refused("cannot list " + store + ": " + ToolFailure.firstLine(e));
        }
        names.sort(Comparator.comparing(n -> Path.of(n).getFileName().toString()));
        return names;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis); // a retry's back-off, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ToolFailure.refused("interrupted while waiting to retry the backup");
        }
    }
}
