package org.tandembroker.systest.cluster;

import com.github.dockerjava.api.model.Network.Ipam;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Network;

/**
 * A Docker bridge network with a subnet of its own (a free {@code 10.213.X.0/24}), so that every node gets a
 * fixed address: a node keeps its IP through kill, restart, disconnect and reconnect, and every node's
 * {@code /etc/hosts} can name all the others. Name resolution therefore never changes during a test; only
 * connectivity does (as in a real partition). Docker's DNS aliases work as well.
 */
public final class NodeNetwork implements AutoCloseable {
    private static final String PREFIX = "10.213.";
    private static final int ATTEMPTS = 8;

    private final Network network;
    private final String base;

    private NodeNetwork(Network network, String base) {
        this.network = network;
        this.base = base;
    }

    /** Creates the network now, on a /24 that no Docker network and no local interface uses. */
    public static NodeNetwork create() {
        RuntimeException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            String base = PREFIX + freeThirdOctet() + ".";
            String subnet = base + "0/24";
            Network network = Network.builder()
                    .createNetworkCmdModifier(cmd -> cmd
                            .withIpam(new Ipam().withConfig(new Ipam.Config().withSubnet(subnet)))
                            .withLabels(java.util.Map.of("org.tandembroker.systest", "cluster")))
                    .build();
            try {
                network.getId(); // created on first use: now, so that a taken subnet shows here
                return new NodeNetwork(network, base);
            } catch (RuntimeException e) {
                last = e; // another network took the subnet meanwhile ("Pool overlaps"): try another
                network.close();
            }
        }
        throw new IllegalStateException("could not create a network on a free " + PREFIX + "X.0/24", last);
    }

    public Network network() {
        return network;
    }

    public String id() {
        return network.getId();
    }

    public String subnet() {
        return base + "0/24";
    }

    /** The fixed address of host number {@code host} (2-254; .1 is the gateway, the host itself). */
    public String address(int host) {
        if (host < 2 || host > 254) {
            throw new IllegalArgumentException("host number " + host + " outside 2..254");
        }
        return base + host;
    }

    @Override
    public void close() {
        network.close();
    }

    private static int freeThirdOctet() {
        List<String> used = new ArrayList<>();
        DockerClientFactory.lazyClient().listNetworksCmd().exec().stream()
                .map(com.github.dockerjava.api.model.Network::getIpam)
                .filter(Objects::nonNull)
                .flatMap(ipam -> ipam.getConfig() == null ? java.util.stream.Stream.empty() : ipam.getConfig().stream())
                .map(Ipam.Config::getSubnet)
                .filter(Objects::nonNull)
                .forEach(used::add);
        used.addAll(localIpv4Subnets());
        int start = ThreadLocalRandom.current().nextInt(256);
        for (int i = 0; i < 256; i++) {
            int octet = (start + i) % 256;
            String candidate = PREFIX + octet + ".0/24";
            if (used.stream().noneMatch(s -> overlaps(s, candidate))) {
                return octet;
            }
        }
        throw new IllegalStateException("every " + PREFIX + "X.0/24 is in use");
    }

    private static List<String> localIpv4Subnets() {
        List<String> subnets = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InterfaceAddress address : nic.getInterfaceAddresses()) {
                    InetAddress ip = address.getAddress();
                    if (ip.getAddress().length == 4) {
                        subnets.add(ip.getHostAddress() + "/" + address.getNetworkPrefixLength());
                    }
                }
            }
        } catch (SocketException e) {
            // no interface list: Docker's own overlap check still refuses a clash
        }
        return subnets;
    }

    /** Whether two IPv4 CIDR blocks overlap (anything unparsable, such as IPv6, counts as not overlapping). */
    static boolean overlaps(String a, String b) {
        long[] x = cidr(a);
        long[] y = cidr(b);
        if (x == null || y == null) {
            return false;
        }
        long mask = Math.min(x[1], y[1]);
        return (x[0] & mask) == (y[0] & mask);
    }

    private static long[] cidr(String text) {
        String[] parts = text.split("/");
        String[] octets = parts[0].split("\\.");
        if (octets.length != 4) {
            return null;
        }
        try {
            long address = 0;
            for (String octet : octets) {
                address = (address << 8) | Integer.parseInt(octet);
            }
            int prefix = parts.length > 1 ? Integer.parseInt(parts[1]) : 32;
            long mask = prefix == 0 ? 0 : (0xFFFFFFFFL << (32 - prefix)) & 0xFFFFFFFFL;
            return new long[] {address, mask};
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
