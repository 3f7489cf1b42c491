package org.tandembroker.systest.cluster;

/**
 * Who a broker node is and where it can be reached, fixed before its container starts (a restarted or
 * reconnected node keeps all of it).
 *
 * @param index           1-based position in its cluster (1 for a single node)
 * @param name            node name: the container's host name and network alias, the natural JE node name
 * @param ipAddress       the node's fixed address on the cluster network
 * @param clientPort      the AMQP port: the broker listens on it inside the container and Docker publishes it
 *                        on the same number on the host's loopback interface
 * @param replicationPort the port the replicated store listens on inside the network (not published)
 */
public record NodeIdentity(int index, String name, String ipAddress, int clientPort, int replicationPort) {

    /** The node's network alias (its name): other nodes reach it as {@code alias():port}. */
    public String alias() {
        return name;
    }

    /** {@code name:replicationPort}, for {@code <nodeHostPort>} and other nodes' {@code <helperHostPort>}. */
    public String replicationAddress() {
        return name + ":" + replicationPort;
    }

    /**
     * {@code 127.0.0.1:clientPort}: where clients on the host (the test JVM) reach this node. The broker
     * advertises exactly this, so redirects from a replica lead the test's clients to the master.
     */
    public String clientAddress() {
        return "127.0.0.1:" + clientPort;
    }

    /** {@code amqp://127.0.0.1:clientPort}. */
    public String amqpUri() {
        return "amqp://" + clientAddress();
    }
}
