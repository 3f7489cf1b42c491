package org.tandembroker.core.frontend;

import java.nio.file.Path;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.vhost.VirtualHostRegistry;

/**
 * What the broker gives a protocol front end.
 *
 * @param config         the broker configuration (listeners, limits)
 * @param etcDirectory   where relative files of the configuration (key stores) resolve
 * @param virtualHosts   the virtual hosts clients can connect to
 * @param authenticator  checks SASL credentials
 * @param operationalLog operator-facing log
 */
public record FrontEndContext(BrokerConfig config, Path etcDirectory, VirtualHostRegistry virtualHosts,
                              Authenticator authenticator, OperationalLog operationalLog) {
}
