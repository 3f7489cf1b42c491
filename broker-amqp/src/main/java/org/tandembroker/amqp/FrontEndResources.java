package org.tandembroker.amqp;

import java.util.concurrent.Executor;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.config.SecurityConfig;
import org.tandembroker.core.security.AccessControl;
import org.tandembroker.core.security.AuthenticationThrottle;
import org.tandembroker.core.security.Authenticator;
import org.tandembroker.core.security.SecurityStatistics;
import org.tandembroker.core.vhost.VirtualHostRegistry;

/**
 * What every connection of one front end shares. All members are thread-safe.
 *
 * @param virtualHosts    the core's virtual hosts
 * @param authenticator   checks PLAIN credentials (slow: only ever called on {@code authExecutor})
 * @param log             the operational log
 * @param limits          per-connection limits
 * @param authExecutor    the small pool that runs authentication off the event loops
 * @param liveConnections the open connections, counted against {@code limits.maxConnections()}
 * @param accessControl   the permissions in force
 * @param throttle        the delays before SASL outcomes for addresses with recent failures
 * @param security        the PLAIN policy
 */
record FrontEndResources(VirtualHostRegistry virtualHosts, Authenticator authenticator, OperationalLog log,
                         ConnectionLimits limits, Executor authExecutor, LiveConnections liveConnections,
                         AccessControl accessControl, AuthenticationThrottle throttle, SecurityConfig security) {

    SecurityStatistics statistics() {
        return accessControl.statistics();
    }
}
