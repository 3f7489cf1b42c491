package org.tandembroker.core.config;

import java.util.Optional;

/**
 * A client listener.
 *
 * @param name     "amqp" or "amqps" (or any name the operator chose)
 * @param host     the address to bind, e.g. 0.0.0.0 or 127.0.0.1
 * @param port     the port; 0 binds an ephemeral port (tests)
 * @param tls      present for a TLS listener
 * @param clientCertificates present when a TLS listener asks clients for certificates (SASL EXTERNAL)
 */
public record ListenerConfig(String name, String host, int port, Optional<TlsConfig> tls,
                             Optional<ClientCertificateConfig> clientCertificates) {

    /** A listener without client certificates. */
    public ListenerConfig(String name, String host, int port, Optional<TlsConfig> tls) {
        this(name, host, port, tls, Optional.empty());
    }
}
