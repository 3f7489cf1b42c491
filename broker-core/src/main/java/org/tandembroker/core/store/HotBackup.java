package org.tandembroker.core.store;

import java.nio.file.Path;
import java.util.Optional;
import org.tandembroker.core.BrokerException;

/**
 * Backs up a running store from inside the broker (only the process that writes a store can take a consistent copy
 * of it while it works). A store may offer it through {@link MessageStore#hotBackup()}.
 *
 * <p><b>Threads.</b> Any thread; {@link #backUp} runs on the caller's thread for as long as the copy takes, so
 * call it from an operator's thread, never from a broker thread.
 */
public interface HotBackup {

    /** The store directory (absolute), as the broker sees it; empty while the store is not open. */
    Optional<Path> storeDirectory();

    /**
     * Copies the store into {@code toDirectory} (absolute; created if missing; holding no backup yet) while the
     * store keeps serving: every transaction committed before the backup began is in the copy.
     *
     * @throws BrokerException with one line for the operator when the store is not open or the copy fails
     */
    BackupSummary backUp(Path toDirectory);
}
