package org.tandembroker.core.vhost;

/** A client connection as the core sees it; implemented by protocol front ends. */
public interface ClientConnection {

    /** For logs: e.g. "/127.0.0.1:53122 (guest)". */
    String describe();

    /**
     * The broker closes this connection (virtual host passivated or stopped, operator request). May be called
     * from any thread; the implementation hands the close to the connection's own thread and tells the client
     * {@code reason} (with a redirect to {@code redirectAddress} host:port when not null).
     */
    void closeByBroker(String reason, String redirectAddress);
}
