package org.tandembroker.management.jmx;

/**
 * Hot backups of a virtual host's JE store ({@code bdb} or {@code bdb-ha}), registered as
 * {@code org.tandembroker:type=Backup,name=<virtual host>}: the broker runs JE's {@code DbBackup} on its own
 * environment (only the process that writes a store can take a consistent copy of it while it works); see
 * {@code StoreBackup} in broker-store-bdbha. {@code bin/backup.sh} calls it for a running broker.
 */
public interface BackupMBean {

    /**
     * The store directory (absolute), as the broker sees it: what {@code backup.sh -fromdir} names; empty while the
     * store is not open.
     */
    String getStorePath();

    /** {@code bdb} or {@code bdb-ha}. */
    String getStoreType();

    /** The report of the last backup this broker took of the store since it started, or empty. */
    String getLastBackup();

    /**
     * Backs the store up into {@code toDirectory} (absolute, on the broker's machine; created if missing; must hold
     * no backup yet) while the broker keeps serving: every transaction committed before the backup began is in it.
     * Returns the report: the files copied with their sizes and the last file number. Admin role only.
     */
    String backup(String toDirectory);
}
