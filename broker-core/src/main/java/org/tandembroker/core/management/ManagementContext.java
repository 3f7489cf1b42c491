package org.tandembroker.core.management;

import java.nio.file.Path;
import java.util.List;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.vhost.BrokerVirtualHost;

/**
 * What the broker gives a management plugin.
 *
 * @param config         the broker configuration
 * @param workDirectory  the broker's work directory
 * @param virtualHosts   the virtual hosts (their stores are reachable through {@link BrokerVirtualHost#store()})
 * @param authenticator  checks operators' credentials against the broker's users
 * @param operationalLog operator-facing log
 */
public record ManagementContext(BrokerConfig config, Path workDirectory, List<BrokerVirtualHost> virtualHosts,
                                Authenticator authenticator, OperationalLog operationalLog) {
    public ManagementContext {
        virtualHosts = List.copyOf(virtualHosts);
    }
}
