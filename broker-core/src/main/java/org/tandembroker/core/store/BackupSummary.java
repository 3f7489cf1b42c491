package org.tandembroker.core.store;

/**
 * What a hot backup copied, for the operator who asked for it.
 *
 * @param description    a few lines for the operator: what was backed up, from where, into where, every file
 * @param fileCount      how many files were copied
 * @param totalBytes     their size in bytes
 * @param lastFileNumber the number of the backup set's last log file (an incremental backup would start after it)
 */
public record BackupSummary(String description, int fileCount, long totalBytes, long lastFileNumber) {
}
