package org.tandembroker.tools.backup;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.tandembroker.store.bdb.backup.BackupReport;
import org.tandembroker.store.bdb.backup.StoreBackup;
import org.tandembroker.tools.JmxSession;
import org.tandembroker.tools.JmxTarget;
import org.tandembroker.tools.ToolCommandLine;
import org.tandembroker.tools.ToolFailure;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/backup.sh}: backs up a JE store (spec 1.6.13), standalone ({@code bdb}) or replicated
 * ({@code bdb-ha}), with the store's backup engine ({@link StoreBackup}, broker-store-bdbha):
 * <pre>
 * backup.sh --store-path STORE --to-dir DIR [--user U --password-file F [--host H] [--port P] [--vhost V]]
 * </pre>
 * The spec's spelling {@code -fromdir STORE -todir DIR} is accepted too. Only the process that writes a store can
 * take a consistent copy of it while it works (see {@link StoreBackup}), so:
 * <ul>
 *   <li><b>running broker</b>: this command finds the virtual host whose store is {@code --store-path} and asks
 *       its broker over JMX ({@code backup(toDirectory)} of {@code org.tandembroker:type=Backup,name=<vhost>},
 *       admin role), which writes {@code --to-dir} on its own machine;</li>
 *   <li><b>stopped broker</b>: the store is copied here ({@link StoreBackup#copyIfStopped}), under JE's writer
 *       lock, so that no broker can start on it meanwhile.</li>
 * </ul>
 * Which case applies is decided by that lock: when it cannot be taken a broker has the store open.
 *
 * <p>Exit codes: 0 done, 1 refused or failed (the message says why), 2 usage, 3 cannot connect to the broker's
 * JMX, 4 authentication or role.
 *
 * <p><b>Threads.</b> The tool's main thread.
 */
@Command(name = "backup.sh", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Backs up a Tandem store directory (bdb or bdb-ha) into an empty directory.",
                "A running broker takes the backup itself (JE DbBackup, asked over JMX: give --user and a password; "
                        + "--to-dir is then written on the broker's machine); a stopped store is copied directly."},
        exitCodeOnInvalidInput = ToolFailure.USAGE, exitCodeOnExecutionException = ToolFailure.REFUSED)
public final class BDBBackup implements Callable<Integer> {
    /** The backup bean's type in the broker's JMX domain. */
    public static final String BEAN_TYPE = "Backup";
    public static final String BEAN_DOMAIN = "org.tandembroker";

    @Option(names = {"--store-path", "-fromdir", "--fromdir"}, paramLabel = "STORE", required = true,
            description = "The store directory: the virtual host's <storePath>.")
    Path fromDirectory;

    @Option(names = {"--to-dir", "-todir", "--todir"}, paramLabel = "DIR", required = true,
            description = "An empty or new directory for the backup (on the broker's machine when it runs).")
    Path toDirectory;

    @Option(names = "--vhost", paramLabel = "NAME",
            description = "The virtual host whose store to back up, when the running broker's store paths do not "
                    + "match --store-path as seen from here (e.g. a remote broker).")
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
        Optional<BackupReport> copied = StoreBackup.copyIfStopped(fromDirectory, toDirectory);
        if (copied.isPresent()) {
            out.print(copied.get().describe());
        } else {
            if (!broker.hasUser()) {
                throw ToolFailure.usage("the store at " + fromDirectory + " is in use by a running broker, which must "
                        + "take the backup itself: give the JMX user and password (role admin): --user USER "
                        + "--password-file FILE [--port " + broker.port() + "]");
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
}
