package org.tandembroker.amqp.fake;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.tandembroker.core.vhost.VirtualHost;
import org.tandembroker.core.vhost.VirtualHostRegistry;

/** Virtual hosts by name; the default one answers for no name or for this machine's own names. */
public final class InMemoryRegistry implements VirtualHostRegistry {
    private static final Set<String> OWN_NAMES = Set.of("127.0.0.1", "localhost");
    private final Map<String, InMemoryVirtualHost> hosts = new ConcurrentHashMap<>();
    private final InMemoryVirtualHost defaultHost;

    public InMemoryRegistry(InMemoryVirtualHost defaultHost) {
        this.defaultHost = defaultHost;
        hosts.put(defaultHost.name(), defaultHost);
    }

    @Override
    public Optional<VirtualHost> find(String requestedHostname) {
        if (requestedHostname == null || requestedHostname.isEmpty() || OWN_NAMES.contains(requestedHostname)) {
            return Optional.of(defaultHost);
        }
        return Optional.ofNullable(hosts.get(requestedHostname));
    }
}
