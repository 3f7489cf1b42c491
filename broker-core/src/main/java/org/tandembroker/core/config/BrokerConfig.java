package org.tandembroker.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The broker file ({@code etc/broker.xml}), validated and sealed.
 *
 * @param sourceFile             the file it came from
 * @param listeners              client listeners (at least one)
 * @param advertisedClientAddress host:port that clients should use to reach this node (told to clients of
 *                               other nodes by replicated stores); derived from the first plain listener when
 *                               not configured
 * @param usersFile              the users file (salted password hashes)
 * @param anonymousEnabled       whether SASL ANONYMOUS is offered
 * @param limits                 connection limits for the front end
 * @param messageMemoryBudget    bytes of message bodies kept on the heap before bodies stay in the store only
 * @param virtualHosts           the virtual hosts, each from its own file
 * @param defaultVirtualHost     the virtual host a connection gets when its open.hostname names none
 * @param management             JMX, metrics and the disk watermark ({@link ManagementConfig#OFF} when the file
 *                               has no {@code <management>})
 * @param security               the permissions file, the PLAIN policy and the failure delays
 *                               ({@link SecurityConfig#DEFAULTS} when not given)
 * @param onStoreFailure         what the broker does when a virtual host's store cannot serve on this node at
 *                               start-up ({@code <virtualHosts onStoreFailure>})
 * @param queueWindow            new entries a durable queue keeps on the heap; beyond them messages stay in the
 *                               store only and are read back in batches ({@code <memory queueWindow>}); 0: no limit
 * @param warmUp                 at most how long the broker rehearses its publish and consume paths on a scratch
 *                               virtual host before it opens its stores and listeners ({@code <warmUp duration>});
 *                               zero: no rehearsal
 */
public record BrokerConfig(Path sourceFile,
                           List<ListenerConfig> listeners,
                           String advertisedClientAddress,
                           Path usersFile,
                           boolean anonymousEnabled,
                           ConnectionLimits limits,
                           long messageMemoryBudget,
                           List<VirtualHostConfig> virtualHosts,
                           String defaultVirtualHost,
                           ManagementConfig management,
                           SecurityConfig security, OnStoreFailure onStoreFailure, int queueWindow,
                           Duration warmUp) {

    /** Entries a durable queue keeps on the heap unless {@code <memory queueWindow>} says otherwise. */
    public static final int DEFAULT_QUEUE_WINDOW = 20_000;

    /** A configuration without a warm-up before serving ({@code <warmUp>} absent). */
    public BrokerConfig(Path sourceFile, List<ListenerConfig> listeners, String advertisedClientAddress,
                        Path usersFile, boolean anonymousEnabled, ConnectionLimits limits, long messageMemoryBudget,
                        List<VirtualHostConfig> virtualHosts, String defaultVirtualHost, ManagementConfig management,
                        SecurityConfig security, OnStoreFailure onStoreFailure, int queueWindow) {
        this(sourceFile, listeners, advertisedClientAddress, usersFile, anonymousEnabled, limits, messageMemoryBudget,
                virtualHosts, defaultVirtualHost, management, security, onStoreFailure, queueWindow, Duration.ZERO);
    }

    /** A configuration with the default heap window of queues. */
    public BrokerConfig(Path sourceFile, List<ListenerConfig> listeners, String advertisedClientAddress,
                        Path usersFile, boolean anonymousEnabled, ConnectionLimits limits, long messageMemoryBudget,
                        List<VirtualHostConfig> virtualHosts, String defaultVirtualHost, ManagementConfig management,
                        SecurityConfig security, OnStoreFailure onStoreFailure) {
        this(sourceFile, listeners, advertisedClientAddress, usersFile, anonymousEnabled, limits, messageMemoryBudget,
                virtualHosts, defaultVirtualHost, management, security, onStoreFailure, DEFAULT_QUEUE_WINDOW);
    }

    /** What a starting broker does when a virtual host's store cannot serve on this node. */
    public enum OnStoreFailure {
        /** Stop with one line saying why and a non-zero exit code (a supervisor sees the failure). */
        EXIT,
        /** Stay up, report itself not ready (health endpoint, log) and tell clients why they are refused. */
        STAY_UP
    }

    public BrokerConfig {
        onStoreFailure = onStoreFailure == null ? OnStoreFailure.EXIT : onStoreFailure;
        listeners = List.copyOf(listeners);
        virtualHosts = List.copyOf(virtualHosts);
        management = management == null ? ManagementConfig.OFF : management;
        security = security == null ? SecurityConfig.DEFAULTS : security;
        warmUp = warmUp == null ? Duration.ZERO : warmUp;
    }

    /** Whether the broker rehearses its publish and consume paths before it serves ({@code <warmUp duration>}). */
    public boolean warmsUp() {
        return !warmUp.isZero();
    }

    /** A configuration with the default security settings, stopping the broker when a store fails at start-up. */
    public BrokerConfig(Path sourceFile, List<ListenerConfig> listeners, String advertisedClientAddress,
                        Path usersFile, boolean anonymousEnabled, ConnectionLimits limits, long messageMemoryBudget,
                        List<VirtualHostConfig> virtualHosts, String defaultVirtualHost, ManagementConfig management) {
        this(sourceFile, listeners, advertisedClientAddress, usersFile, anonymousEnabled, limits, messageMemoryBudget,
                virtualHosts, defaultVirtualHost, management, SecurityConfig.DEFAULTS, OnStoreFailure.EXIT);
    }

    /** A configuration without management (JMX, metrics and the disk watermark off). */
    public BrokerConfig(Path sourceFile, List<ListenerConfig> listeners, String advertisedClientAddress,
                        Path usersFile, boolean anonymousEnabled, ConnectionLimits limits, long messageMemoryBudget,
                        List<VirtualHostConfig> virtualHosts, String defaultVirtualHost) {
        this(sourceFile, listeners, advertisedClientAddress, usersFile, anonymousEnabled, limits, messageMemoryBudget,
                virtualHosts, defaultVirtualHost, ManagementConfig.OFF);
    }

    /** A configuration with these security settings that stops the broker when a store fails at start-up. */
    public BrokerConfig(Path sourceFile, List<ListenerConfig> listeners, String advertisedClientAddress,
                        Path usersFile, boolean anonymousEnabled, ConnectionLimits limits, long messageMemoryBudget,
                        List<VirtualHostConfig> virtualHosts, String defaultVirtualHost, ManagementConfig management,
                        SecurityConfig security) {
        this(sourceFile, listeners, advertisedClientAddress, usersFile, anonymousEnabled, limits, messageMemoryBudget,
                virtualHosts, defaultVirtualHost, management, security, OnStoreFailure.EXIT);
    }

    /** A configuration with the default security settings and this start-up policy. */
    public BrokerConfig(Path sourceFile, List<ListenerConfig> listeners, String advertisedClientAddress,
                        Path usersFile, boolean anonymousEnabled, ConnectionLimits limits, long messageMemoryBudget,
                        List<VirtualHostConfig> virtualHosts, String defaultVirtualHost, ManagementConfig management,
                        OnStoreFailure onStoreFailure) {
        this(sourceFile, listeners, advertisedClientAddress, usersFile, anonymousEnabled, limits, messageMemoryBudget,
                virtualHosts, defaultVirtualHost, management, SecurityConfig.DEFAULTS, onStoreFailure);
    }

    public Optional<VirtualHostConfig> virtualHost(String name) {
        return virtualHosts.stream().filter(v -> v.name().equals(name)).findFirst();
    }
}
