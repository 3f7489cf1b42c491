package org.tandembroker.core.oplog;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operators' log: one line per significant event, each with a stable {@link LogCode}. Written to the SLF4J
 * logger {@code tandem.oplog} (console and the log file in the work directory). Thread-safe.
 */
public final class OperationalLog {
    private static final Logger LOG = LoggerFactory.getLogger("tandem.oplog");

    private final List<Consumer<String>> observers = new CopyOnWriteArrayList<>();
    private final boolean logged;

    /** A log whose lines reach the operators' log ({@code tandem.oplog}). */
    public OperationalLog() {
        this(true);
    }

    private OperationalLog(boolean logged) {
        this.logged = logged;
    }

    /** A log whose lines reach its observers only: what a scratch virtual host (the warm-up) says. */
    public static OperationalLog unlogged() {
        return new OperationalLog(false);
    }

    public void log(LogCode code, Object... args) {
        String line = code.format(args);
        if (logged) {
            if (code.name().endsWith("_1007") && code.code().startsWith("BRK")
                    || code == LogCode.BRK_1008 || code == LogCode.MST_1008 || code == LogCode.MST_1010
                    || code == LogCode.MST_1013 || code == LogCode.CON_1005
                    || code == LogCode.HA_1008 || code == LogCode.VHT_1010
                    || code == LogCode.VHT_1012) {
                LOG.warn(line);
            } else {
                LOG.info(line);
            }
        }
        for (Consumer<String> observer : observers) {
            observer.accept(line);
        }
    }

    /** Adds an observer of every line (used by tests and by management to count events). */
    public void addObserver(Consumer<String> observer) {
        observers.add(observer);
    }

    public void removeObserver(Consumer<String> observer) {
        observers.remove(observer);
    }
}
