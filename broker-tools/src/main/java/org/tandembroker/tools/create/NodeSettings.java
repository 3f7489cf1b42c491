package org.tandembroker.tools.create;

import java.util.Optional;

/**
 * What {@code tandem create} writes for one broker node: every value as the files will hold it. Checked as far as
 * the command line goes ({@link HostPort}); the generated files are then validated by the broker's own loader.
 *
 * @param groupName         the replication group (replicated nodes only)
 * @param nodeName          this node's name in the group
 * @param amqp              where the AMQP listener binds
 * @param advertisedAddress what clients of other nodes are told (redirects), if not the default
 * @param jmx               where the JMX connector binds, or empty for no JMX
 * @param metrics           where the Prometheus endpoint binds, or empty for none
 * @param nodeHostPort      where this node replicates; empty for a standalone broker (store type bdb)
 * @param helperHostPort    the nodes a new node contacts to join (comma separated)
 * @param durability        the store's durability (bdb-ha: the triplet; bdb: one sync policy)
 * @param designatedPrimary the initial designated-primary flag (two-node groups)
 * @param adminUser         an operator to add with role admin, if any
 * @param adminPassword     that operator's password
 * @param guest             whether the users file keeps the shipped loopback-only guest
 */
record NodeSettings(String groupName, String nodeName, HostPort amqp, Optional<String> advertisedAddress,
                    Optional<HostPort> jmx, Optional<HostPort> metrics, Optional<HostPort> nodeHostPort,
                    String helperHostPort, String durability, boolean designatedPrimary, Optional<String> adminUser,
                    char[] adminPassword, boolean guest) {

    static final String HA_DURABILITY = "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY";
    static final String STANDALONE_DURABILITY = "NO_SYNC";

    boolean replicated() {
        return nodeHostPort.isPresent();
    }

    /** {@code host:port}, the port from 1 to 65535 (IPv6 hosts in brackets). */
    record HostPort(String host, int port) {
        static final String RULE = "HOST:PORT with a port from 1 to 65535, e.g. 0.0.0.0:5672, broker-a.example.com:5000";

        static HostPort parse(String option, String text) {
            String value = text == null ? "" : text.trim();
            int colon = value.lastIndexOf(':');
            if (colon <= 0 || colon == value.length() - 1) {
                throw CreateFailure.badOption(option, text, RULE);
            }
            String host = value.substring(0, colon);
            int port;
            try {
                port = Integer.parseInt(value.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw CreateFailure.badOption(option, text, RULE);
            }
            if (port < 1 || port > 65535 || host.isBlank() || host.chars().anyMatch(Character::isWhitespace)
                    || host.contains(",") || host.contains("\"") || host.contains("<") || host.contains("&")) {
                throw CreateFailure.badOption(option, text, RULE);
            }
            return new HostPort(host, port);
        }

        boolean sameSocketAs(HostPort other) {
            return port == other.port && (host.equals(other.host) || isWildcard(host) || isWildcard(other.host));
        }

        private static boolean isWildcard(String host) {
            return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }
}
