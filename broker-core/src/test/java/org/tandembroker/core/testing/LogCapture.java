package org.tandembroker.core.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Records the broker's log events of WARN and above while open, for tests that check what operators see. */
public final class LogCapture implements AutoCloseable {
    private final Logger logger = (Logger) LoggerFactory.getLogger("org.tandembroker");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    public LogCapture() {
        appender.start();
        logger.addAppender(appender);
    }

    /** WARN and ERROR events so far, as "LEVEL logger: message [exception]". */
    public List<String> warnings() {
        return List.copyOf(appender.list).stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage()
                        + (e.getThrowableProxy() != null ? " [" + e.getThrowableProxy().getClassName() + "]" : ""))
                .toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
