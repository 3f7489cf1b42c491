package org.tandembroker.core.security;

import java.nio.file.Path;
import java.util.Optional;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;

/**
 * The broker's authorization: the rules of the permissions file in force now, replaced as a whole by
 * {@link #reload()} (a JMX operation, SIGHUP). A reload with mistakes keeps the rules in force and says why
 * (SEC-1003). Without a permissions file ({@link #unrestricted}) every authenticated user may do everything, as
 * before the file existed (SEC-1004 at startup).
 *
 * <p>Checks ({@link #allows}) read one volatile reference and walk the grants: any thread, no lock. A link that
 * cached a decision compares {@link #version()} to know when to decide again. {@link #reload} is synchronized:
 * reloads happen one at a time, on whichever thread asked (the signal handler, a JMX call).
 */
public final class AccessControl {
    private final Path file;
    private final OperationalLog log;
    private final SecurityStatistics statistics;
    private volatile Rules current;

    /** The rules and their generation. */
    private record Rules(AccessRules rules, long version) {
    }

    private AccessControl(Path file, OperationalLog log, SecurityStatistics statistics, AccessRules rules) {
        this.file = file;
        this.log = log;
        this.statistics = statistics;
        this.current = new Rules(rules, 1);
    }

    /** Reads {@code file}; a mistake stops the broker like any configuration error. */
    public static AccessControl load(Path file, OperationalLog log, SecurityStatistics statistics)
            throws ConfigException {
        AccessRules rules = AccessRules.load(file);
        log.log(LogCode.SEC_1002, file, rules.summary());
        return new AccessControl(file, log, statistics, rules);
    }

    /** No permissions file: every authenticated user may do everything. */
    public static AccessControl unrestricted(OperationalLog log, SecurityStatistics statistics, String why) {
        log.log(LogCode.SEC_1004, why);
        return new AccessControl(null, log, statistics, null);
    }

    /** Whether a permissions file is in force. */
    public boolean enabled() {
        return file != null;
    }

    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** Changes whenever the rules are replaced. */
    public long version() {
        return current.version();
    }

    public SecurityStatistics statistics() {
        return statistics;
    }

    /** Whether {@code user} has {@code permission} on {@code address}. */
    public boolean allows(String user, Permission permission, String address) {
        AccessRules rules = current.rules();
        return rules == null || rules.allows(user, permission, address);
    }

    /** The view of one client, which logs and counts its denials. */
    public ClientAccess forClient(String user, String describedConnection) {
        return new ClientAccess(this, user, describedConnection);
    }

    void denied(String describedConnection, Permission permission, String text) {
        statistics.denied(permission);
        log.log(LogCode.SEC_1001, describedConnection, text);
    }

    /**
     * Reads the file again and puts its rules in force, or keeps the rules in force when it has mistakes.
     *
     * @return one line saying what happened (also logged)
     */
    public synchronized String reload() {
        if (file == null) {
            String text = "no permissions file is configured (security@permissionsFile); nothing to reload";
            log.log(LogCode.SEC_1003, text);
            return text;
        }
        try {
            AccessRules rules = AccessRules.load(file);
            current = new Rules(rules, current.version() + 1);
            log.log(LogCode.SEC_1002, file, rules.summary());
            return "reloaded " + file + ": " + rules.summary();
        } catch (ConfigException e) {
            String text = e.getMessage().replace(System.lineSeparator(), " ; ");
            log.log(LogCode.SEC_1003, text);
            return "kept the previous rules; " + file + " has mistakes: " + text;
        }
    }
}
