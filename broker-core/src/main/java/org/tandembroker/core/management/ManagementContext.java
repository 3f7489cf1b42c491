package org.tandembroker.core.management;

import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.AccessControl;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.security.SecurityStatistics;
import org.tandembroker.core.vhost.ManagedVirtualHost;

/**
 * What the broker gives a management plugin.
 *
 * @param config         the broker configuration
 * @param workDirectory  the broker's work directory
 * @param virtualHosts   the virtual hosts (their stores, and what each store offers management, are reachable
 *                       through {@link ManagedVirtualHost#store()})
 * @param authenticator  checks operators' credentials against the broker's users
 * @param operationalLog operator-facing log
 * @param brokerReady    whether the broker is ready now: every virtual host serves or is a replica (any thread)
 * @param accessControl  the client permissions in force (reloadable by operators) and the security counters
 */
public record ManagementContext(BrokerConfig config, Path workDirectory, List<ManagedVirtualHost> virtualHosts,
                                Authenticator authenticator, OperationalLog operationalLog,
                                BooleanSupplier brokerReady, AccessControl accessControl) {
    public ManagementContext {
        virtualHosts = List.copyOf(virtualHosts);
    }

    /** A context whose readiness is that of its virtual hosts alone, without a permissions file (tests, embedded use). */
    public ManagementContext(BrokerConfig config, Path workDirectory, List<ManagedVirtualHost> virtualHosts,
                             Authenticator authenticator, OperationalLog operationalLog) {
        this(config, workDirectory, virtualHosts, authenticator, operationalLog,
                () -> virtualHosts.stream().allMatch(host -> host.standing().ready()),
                AccessControl.unrestricted(operationalLog, new SecurityStatistics(), "no permissions file given"));
    }
}
