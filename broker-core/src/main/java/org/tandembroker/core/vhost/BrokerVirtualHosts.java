package org.tandembroker.core.vhost;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Virtual hosts by name, plus the names this broker answers to as a host. Immutable after construction.
 *
 * <p>Clients such as Qpid JMS put the DNS name they dialled into {@code open.hostname}; such a name (localhost,
 * a loopback or local interface address, this machine's host name, an advertised or listener host, or a
 * configured alias) selects the default virtual host rather than being refused as unknown.
 */
public final class BrokerVirtualHosts implements VirtualHostRegistry {
    private final Map<String, BrokerVirtualHost> hosts;
    private final BrokerVirtualHost defaultHost;
    private final Set<String> ownHostNames;

    public BrokerVirtualHosts(Map<String, BrokerVirtualHost> hosts, String defaultHostName, Set<String> extraHostNames) {
        this.hosts = Map.copyOf(hosts);
        this.defaultHost = hosts.get(defaultHostName);
        Set<String> names = new HashSet<>(localHostNames());
        extraHostNames.forEach(n -> names.add(n.toLowerCase(Locale.ROOT)));
        this.ownHostNames = Set.copyOf(names);
    }

    @Override
    public Optional<VirtualHost> find(String requestedHostname) {
        if (requestedHostname == null || requestedHostname.isBlank()) {
            return Optional.ofNullable(defaultHost);
        }
        BrokerVirtualHost named = hosts.get(requestedHostname);
        if (named != null) {
            return Optional.of(named);
        }
        String bare = requestedHostname.toLowerCase(Locale.ROOT);
        if (bare.startsWith("[") && bare.endsWith("]")) {
            bare = bare.substring(1, bare.length() - 1);
        }
        return ownHostNames.contains(bare) ? Optional.ofNullable(defaultHost) : Optional.empty();
    }

    public List<BrokerVirtualHost> all() {
        return List.copyOf(hosts.values());
    }

    private static Set<String> localHostNames() {
        Set<String> names = new HashSet<>();
        names.add("localhost");
        names.add("localhost.localdomain");
        try {
            InetAddress local = InetAddress.getLocalHost();
            names.add(local.getHostName().toLowerCase(Locale.ROOT));
            names.add(local.getCanonicalHostName().toLowerCase(Locale.ROOT));
            names.add(local.getHostAddress());
        } catch (UnknownHostException e) {
            // a machine without a resolvable name still answers to its addresses
        }
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    String text = address.getHostAddress();
                    int zone = text.indexOf('%');
                    names.add((zone >= 0 ? text.substring(0, zone) : text).toLowerCase(Locale.ROOT));
                }
            }
        } catch (SocketException e) {
            // no interface list: loopback names above still work
        }
        names.add("127.0.0.1");
        names.add("::1");
        names.add("0:0:0:0:0:0:0:1");
        return names;
    }
}
