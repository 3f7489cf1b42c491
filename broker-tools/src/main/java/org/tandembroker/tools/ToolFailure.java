package org.tandembroker.tools;

import org.tandembroker.store.bdb.backup.BackupException;

/**
 * Why an operator's command failed, with the exit code it ends with and one message for the operator (no stack
 * trace: the message says what happened and what to do). The exit codes are every tool's.
 */
public final class ToolFailure extends RuntimeException {
    /** The command did what it was asked. */
    public static final int OK = 0;
    /** The broker (or JE) refused or failed the operation: the message says why. */
    public static final int REFUSED = 1;
    /** The command line is wrong: an unknown option, a missing argument, a virtual host or node that is not there. */
    public static final int USAGE = 2;
    /** The broker's JMX connector cannot be reached (or did not answer in time). */
    public static final int CANNOT_CONNECT = 3;
    /** Wrong credentials, or a user whose role may not do this. */
    public static final int ACCESS_DENIED = 4;

    private final int exitCode;

    public ToolFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public ToolFailure(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public static ToolFailure refused(String message) {
        return new ToolFailure(REFUSED, message);
    }

    public static ToolFailure usage(String message) {
        return new ToolFailure(USAGE, message);
    }

    /** The store's backup engine's failure as the tools report it: a bad request is a usage error. */
    public static ToolFailure of(BackupException failure) {
        return new ToolFailure(failure.isBadRequest() ? USAGE : REFUSED, failure.getMessage(), failure);
    }

    public int exitCode() {
        return exitCode;
    }

    /** The first line of a throwable's message, or its class name when it has none. */
    public static String firstLine(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        return message.lines().findFirst().orElse(message).trim();
    }
}
