package org.tandembroker.store.bdb.backup;

/**
 * Why a backup, or an offline use of a store directory ({@link StoreLock}), could not be done: one line for the
 * operator that says what happened and what to do, never a stack trace. {@link #isBadRequest()} tells a wrong
 * request (a directory that is not a store, a backup directory that holds a backup already) from a failure of the
 * store or of the copy; the command-line tools turn the first into their usage exit code.
 */
public final class BackupException extends RuntimeException {
    private final boolean badRequest;

    private BackupException(String message, boolean badRequest) {
        super(message);
        this.badRequest = badRequest;
    }

    /** The caller asked for something that cannot be done as asked. */
    public static BackupException badRequest(String message) {
        return new BackupException(message, true);
    }

    /** The store, the backup or the copy failed, or refused for now. */
    public static BackupException failed(String message) {
        return new BackupException(message, false);
    }

    /** True when the request was wrong (the caller's to correct), false when the work failed. */
    public boolean isBadRequest() {
        return badRequest;
    }

    /** The first line of a throwable's message, or its class name when it has none. */
    static String firstLine(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        return message.lines().findFirst().orElse(message).trim();
    }
}
