package org.tandembroker.amqp;

import java.util.Optional;
import org.tandembroker.core.config.ClientCertificateConfig;

/**
 * What a connection needs to know of the listener that accepted it to choose its SASL mechanisms.
 *
 * @param tls                  whether the listener speaks TLS
 * @param certificateUserName  present when the listener asks for client certificates: how a certificate's subject
 *                             becomes a user name
 */
record ListenerSecurity(boolean tls, Optional<ClientCertificateConfig.UserName> certificateUserName) {
}
