package org.tandembroker.store.bdb.backup;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * What a backup copied: every JE log file with its size, and the last file number of the backup set (the first
 * file of a later incremental backup would be the next one). Immutable.
 *
 * @param source         the store directory that was backed up
 * @param target         the backup directory
 * @param how            "hot backup of node X (MASTER) of group G, ..." or "copy of a stopped store"
 * @param startedAt      when the backup set was fixed: everything committed before is in it
 * @param files          the copied files, in log order
 * @param lastFileNumber the number of the last file of the backup set
 * @param attempts       1, or more when JE invalidated earlier attempts (replication overwrote log files)
 * @param took           how long the copy took
 */
public record BackupReport(Path source, Path target, String how, Instant startedAt, List<CopiedFile> files,
                           long lastFileNumber, int attempts, Duration took) {

    /** The name of the summary file written into the backup directory once the backup is complete. */
    public static final String MANIFEST = "tandem-backup.txt";

    /**
     * One copied log file.
     *
     * @param name  as JE names it ({@code 0000000a.jdb}), relative to the store directory
     * @param bytes its size
     */
    public record CopiedFile(String name, long bytes) {
    }

    public BackupReport {
        files = List.copyOf(files);
    }

    public long totalBytes() {
        return files.stream().mapToLong(CopiedFile::bytes).sum();
    }

    /** A few lines for the operator (and the manifest): what, from where, to where, every file. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        text.append("backup of ").append(source).append(" into ").append(target).append('\n');
        text.append("  ").append(how).append('\n');
        text.append("  consistent as of ").append(startedAt).append(" (every transaction committed before is in it)\n");
        text.append("  ").append(files.size()).append(" files, ").append(totalBytes()).append(" bytes, last file number ")
                .append(lastFileNumber).append(String.format(Locale.ROOT, " (0x%x)", lastFileNumber))
                .append(", copied and verified in ").append(took.toMillis()).append(" ms")
                .append(attempts > 1 ? " (attempt " + attempts + ")" : "").append('\n');
        for (CopiedFile file : files) {
            text.append(String.format(Locale.ROOT, "  %-20s %,15d bytes%n", file.name(), file.bytes()));
        }
        return text.toString();
    }
}
