package org.tandembroker.amqp.fuzz;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.slf4j.LoggerFactory;

/**
 * Watches the log for what must never happen under hostile input: a buffer leak reported by Netty's leak detector
 * (switched to PARANOID while the watch is open: every buffer is tracked), a warning or error with a stack trace
 * from Netty or the broker (an exception that escaped a handler or a task), and any error from them.
 *
 * <p>Thread: appends on whichever thread logs; {@link #problems()} is a concurrent list.
 */
public final class ProblemWatch extends AppenderBase<ILoggingEvent> implements AutoCloseable {
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final ResourceLeakDetector.Level previousLevel = ResourceLeakDetector.getLevel();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    public ProblemWatch() {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        setContext(root.getLoggerContext());
        setName("problem-watch");
        start();
        root.addAppender(this);
    }

    public List<String> problems() {
        return problems;
    }

    void add(String problem) {
        problems.add(problem);
    }

    /**
     * Lets the leak detector report: leaked buffers are found only after a GC has collected them, when the next
     * buffer is tracked. A few rounds of GC and tracked allocations, so that a leak of the run is reported now.
     */
    public void collectLeakReports() {
        for (int round = 0; round < 8; round++) {
            System.gc();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // the reference handler enqueues collected buffers
            for (int i = 0; i < 64; i++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.buffer(16);
                probe.release();
            }
        }
    }

    @Override
    protected void append(ILoggingEvent event) {
        String logger = event.getLoggerName();
        boolean ours = logger.startsWith("io.netty") || logger.startsWith("org.tandembroker");
        String message = event.getFormattedMessage();
        if (message != null && message.contains("LEAK:")) {
            problems.add("buffer leak: " + message);
        } else if (ours && event.getLevel().isGreaterOrEqual(Level.WARN) && event.getThrowableProxy() != null) {
            problems.add(logger + " " + event.getLevel() + ": " + message + " : "
                    + event.getThrowableProxy().getClassName() + ": " + event.getThrowableProxy().getMessage());
        } else if (ours && event.getLevel().isGreaterOrEqual(Level.ERROR)) {
            problems.add(logger + " ERROR: " + message);
        }
    }

    @Override
    public void close() {
        root.detachAppender(this);
        stop();
        ResourceLeakDetector.setLevel(previousLevel);
    }
}
