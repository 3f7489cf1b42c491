package org.tandembroker.core.frontend;

import java.util.List;

/** A running protocol server (e.g. AMQP 1.0 over Netty). */
public interface ProtocolFrontEnd extends AutoCloseable {

    /** Binds the listeners; returns once clients can connect. */
    void start() throws Exception;

    /** One line per bound listener, e.g. "amqp://0.0.0.0:5672", with the actual port. */
    List<String> boundAddresses();

    /** Stops accepting, closes every connection, releases threads. Idempotent. */
    @Override
    void close();
}
