package org.tandembroker.store.bdb;

import com.sleepycat.je.Environment;
import java.nio.file.Path;
import java.util.Optional;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.store.BackupSummary;
import org.tandembroker.core.store.HotBackup;
import org.tandembroker.store.bdb.backup.BackupException;
import org.tandembroker.store.bdb.backup.BackupReport;
import org.tandembroker.store.bdb.backup.StoreBackup;

/**
 * {@link HotBackup} of a running JE store: the backup engine ({@link StoreBackup#backUp(Environment, String, Path)},
 * JE's {@code DbBackup}) on the store's own environment. A subclass per store says which environment that is now,
 * and how the report names the backup.
 *
 * <p><b>Threads.</b> The caller's (an operator's JMX call), for as long as the copy takes.
 */
public abstract class JeHotBackup implements HotBackup {

    /** The store's environment while it is open; for its directory. */
    protected abstract Optional<? extends Environment> environment();

    /** The environment to back up now; a {@link BrokerException} with one line for the operator if there is none. */
    protected abstract Environment environmentToBackUp();

    /** How the report names this backup, e.g. "hot backup (JE DbBackup) of the running standalone store". */
    protected abstract String how();

    @Override
    public final Optional<Path> storeDirectory() {
        try {
            return environment().map(env -> env.getHome().toPath().toAbsolutePath().normalize());
        } catch (RuntimeException e) {
            return Optional.empty(); // closed meanwhile
        }
    }

    @Override
    public final BackupSummary backUp(Path toDirectory) {
        Environment environment = environmentToBackUp();
        try {
            BackupReport report = StoreBackup.backUp(environment, how(), toDirectory);
            return new BackupSummary(report.describe(), report.files().size(), report.totalBytes(),
                    report.lastFileNumber());
        } catch (BackupException failure) {
            throw refused(failure.getMessage(), failure);
        }
    }

    /** A refusal or failure the operator reads as it is. */
    protected static BrokerException refused(String message, Throwable cause) {
        return new BrokerException(ErrorKind.ILLEGAL_STATE, message, cause);
    }
}
