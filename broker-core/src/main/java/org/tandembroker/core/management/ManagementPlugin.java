package org.tandembroker.core.management;

/**
 * An operators' interface (JMX, metrics, ...), found with {@link java.util.ServiceLoader} and started after the
 * virtual hosts and front ends, closed before them.
 */
public interface ManagementPlugin extends AutoCloseable {

    /** e.g. "jmx". */
    String name();

    /** Starts serving; returns once it does. */
    void start(ManagementContext context) throws Exception;

    /** Stops serving. Idempotent. */
    @Override
    void close();
}
