package org.tandembroker.core.frontend;

import java.nio.file.Path;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.AccessControl;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.security.SecurityStatistics;
import org.tandembroker.core.vhost.VirtualHostRegistry;

/**
 * What the broker gives a protocol front end.
 *
 * @param config         the broker configuration (listeners, limits)
 * @param etcDirectory   where relative files of the configuration (key stores) resolve
 * @param virtualHosts   the virtual hosts clients can connect to
 * @param authenticator  checks SASL credentials
 * @param operationalLog operator-facing log
 * @param accessControl  the permissions in force (and the security counters)
 */
public record FrontEndContext(BrokerConfig config, Path etcDirectory, VirtualHostRegistry virtualHosts,
                              Authenticator authenticator, OperationalLog operationalLog,
                              AccessControl accessControl) {

    /** A context without a permissions file (every authenticated user may do everything). */
    public FrontEndContext(BrokerConfig config, Path etcDirectory, VirtualHostRegistry virtualHosts,
                           Authenticator authenticator, OperationalLog operationalLog) {
        this(config, etcDirectory, virtualHosts, authenticator, operationalLog,
                AccessControl.unrestricted(operationalLog, new SecurityStatistics(), "no permissions file given"));
    }
}
