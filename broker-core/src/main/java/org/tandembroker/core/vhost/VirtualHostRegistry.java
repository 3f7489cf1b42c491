package org.tandembroker.core.vhost;

import java.util.Optional;

/** Finds the virtual host a client asked for. Thread-safe. */
public interface VirtualHostRegistry {

    /**
     * The virtual host for a connection's requested host name (AMQP open.hostname): a virtual host of that name;
     * or the default virtual host when the name is absent or is one of this broker's own host names / addresses
     * (clients such as Qpid JMS send the DNS name they dialled); otherwise empty.
     */
    Optional<VirtualHost> find(String requestedHostname);
}
