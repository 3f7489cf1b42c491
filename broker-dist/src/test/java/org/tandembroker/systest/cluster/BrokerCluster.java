package org.tandembroker.systest.cluster;

import static org.awaitility.Awaitility.await;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * N broker nodes ({@code node1}..{@code nodeN}) on one {@link NodeNetwork}, each with its own store section,
 * started together (a replication group needs a quorum before any node can finish starting).
 *
 * <pre>{@code
 * try (BrokerCluster cluster = BrokerCluster.builder()
 *         .nodes(3)
 *         .store((node, group) -> StoreSection.replicated(node, group).set("durability", "NO_SYNC,NO_SYNC,SIMPLE_MAJORITY").xml())
 *         .start()) {
 *     ConnectionFactory factory = cluster.connectionFactory();   // failover over every node
 *     BrokerNode master = cluster.awaitSingleActiveNode(Duration.ofMinutes(1));
 *     master.kill();
 *     ...
 * }
 * }</pre>
 * Every node advertises its host-side address ({@code 127.0.0.1:P}, see {@link BrokerNode}), so the failover
 * URI lists exactly the addresses redirects point to.
 */
public final class BrokerCluster implements AutoCloseable {
    /**
     * Qpid JMS failover options used by {@link #failoverUri()}: reconnect for about two minutes (then a blocked
     * send or receive fails instead of hanging the test), quickly at first; a node that stops answering (paused,
     * cut off) is given up after 10 s without frames.
     */
    public static final String DEFAULT_FAILOVER_OPTIONS = "failover.maxReconnectAttempts=120"
            + "&failover.initialReconnectDelay=0&failover.reconnectDelay=250&failover.maxReconnectDelay=1000"
            + "&failover.useReconnectBackOff=true&failover.nested.amqp.idleTimeout=10000";

    private final NodeNetwork network;
    private final List<BrokerNode> nodes;

    private BrokerCluster(NodeNetwork network, List<BrokerNode> nodes) {
        this.network = network;
        this.nodes = List.copyOf(nodes);
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<BrokerNode> nodes() {
        return nodes;
    }

    /** Node {@code index}, 1-based ({@code node(1)} is node1). */
    public BrokerNode node(int index) {
        return nodes.get(index - 1);
    }

    public BrokerNode node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + name + " in " + this));
    }

    public NodeNetwork network() {
        return network;
    }

    /** Every node's identity, in node order. */
    public List<NodeIdentity> identities() {
        return nodes.stream().map(BrokerNode::identity).toList();
    }

    /** {@code failover:(amqp://127.0.0.1:P1,...)?}{@link #DEFAULT_FAILOVER_OPTIONS}. */
    public String failoverUri() {
        return failoverUri(DEFAULT_FAILOVER_OPTIONS);
    }

    /** The failover URI with {@code options} (Qpid JMS {@code failover.*}, {@code jms.*} ...) instead of the defaults. */
    public String failoverUri(String options) {
        String uris = nodes.stream().map(BrokerNode::amqpUri).collect(Collectors.joining(","));
        return "failover:(" + uris + ")" + (options == null || options.isEmpty() ? "" : "?" + options);
    }

    /** A Qpid JMS factory over {@link #failoverUri()}, as guest. */
    public ConnectionFactory connectionFactory() {
        return new JmsConnectionFactory(BrokerNode.USER, BrokerNode.PASSWORD, failoverUri());
    }

    public ConnectionFactory connectionFactory(String failoverOptions) {
        return new JmsConnectionFactory(BrokerNode.USER, BrokerNode.PASSWORD, failoverUri(failoverOptions));
    }

    /**
     * The nodes on which a plain (non-failover) connection opens now: the active node(s). A replica refuses
     * (redirects) and a dead, paused or cut-off node does not answer within the connect timeout.
     */
    public List<BrokerNode> nodesAcceptingClients() {
        List<BrokerNode> accepting = new ArrayList<>();
        for (BrokerNode node : nodes) {
            if (node.isPaused() || node.isDisconnected() || !node.isRunning()) {
                continue;
            }
            ConnectionFactory factory = new JmsConnectionFactory(BrokerNode.USER, BrokerNode.PASSWORD,
                    node.amqpUri() + "?jms.connectTimeout=3000&jms.closeTimeout=3000");
            try (Connection connection = factory.createConnection()) {
                connection.start();
                connection.createSession().close();
                accepting.add(node);
            } catch (JMSException e) {
                // redirected or not answering
            }
        }
        return accepting;
    }

    /** Every node but {@code node}, in node order. */
    public List<BrokerNode> others(BrokerNode node) {
        return nodes.stream().filter(n -> n != node).toList();
    }

    /** Waits until {@code node}, and no other node, accepts clients. */
    public BrokerNode awaitOnlyNodeAcceptingClients(BrokerNode node, Duration timeout) {
        List<List<BrokerNode>> last = new ArrayList<>(List.of(List.of()));
        try {
            await(node.name() + " alone accepting clients").atMost(timeout).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        last.set(0, nodesAcceptingClients());
                        return last.get(0).equals(List.of(node));
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(node.name() + " was not the only node accepting clients within " + timeout
                    + "; the last time: " + last.get(0), e);
        }
        return node;
    }

    /** Waits until exactly one node accepts clients and returns it. */
    public BrokerNode awaitSingleActiveNode(Duration timeout) {
        List<List<BrokerNode>> last = new ArrayList<>(List.of(List.of()));
        try {
            await("exactly one node accepting clients").atMost(timeout).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        last.set(0, nodesAcceptingClients());
                        return last.get(0).size() == 1;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("not exactly one node accepted clients within " + timeout
                    + "; the last time: " + last.get(0), e);
        }
        return last.get(0).get(0);
    }

    /** Closes every node (saving its output) and the network. */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (BrokerNode node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        network.close();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "cluster " + nodes;
    }

    public static final class Builder {
        private int size = 3;
        private BiFunction<NodeIdentity, List<NodeIdentity>, String> store =
                (node, group) -> StoreSection.replicated(node, group).xml();
        private final List<Consumer<BrokerNode.Builder>> customizers = new ArrayList<>();
        private final List<Consumer<NodeNetwork>> onNetwork = new ArrayList<>();

        private Builder() {
        }

        /** How many nodes (default 3). */
        public Builder nodes(int count) {
            if (count < 1 || count > 200) {
                throw new IllegalArgumentException("node count " + count);
            }
            this.size = count;
            return this;
        }

        /**
         * Each node's store section, from its identity and the whole group's (default:
         * {@link StoreSection#replicated} with its defaults).
         */
        public Builder store(BiFunction<NodeIdentity, List<NodeIdentity>, String> storeXml) {
            this.store = Objects.requireNonNull(storeXml);
            return this;
        }

        /** Applied to every node's builder: queues, limits, JVM options, timeouts. */
        public Builder eachNode(Consumer<BrokerNode.Builder> customizer) {
            customizers.add(customizer);
            return this;
        }

        /**
         * Run once the network exists, before any node starts: containers the nodes need from their first second
         * (a {@link ReplicationTap} between two of them). The caller closes what it starts there.
         */
        public Builder onNetwork(Consumer<NodeNetwork> action) {
            onNetwork.add(action);
            return this;
        }

        /** Creates the network and nodes and starts every node at once; returns when all listen. */
        public BrokerCluster start() {
            NodeNetwork network = NodeNetwork.create();
            String runId = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
            List<NodeIdentity> hosts = new ArrayList<>();
            for (int i = 1; i <= size; i++) {
                hosts.add(new NodeIdentity(i, "node" + i, network.address(10 + i), 0, BrokerNode.REPLICATION_PORT));
            }
            List<BrokerNode> nodes = new ArrayList<>();
            try {
                onNetwork.forEach(action -> action.accept(network));
                for (int i = 1; i <= size; i++) {
                    BrokerNode.Builder builder = BrokerNode.builder("node" + i)
                            .network(network).index(i).peers(hosts).runId(runId)
                            .store(node -> store.apply(node, nodes.stream().map(BrokerNode::identity).toList()));
                    customizers.forEach(c -> c.accept(builder));
                    nodes.add(builder.build());
                }
                startAll(nodes);
                return new BrokerCluster(network, nodes);
            } catch (RuntimeException | Error e) {
                nodes.forEach(n -> {
                    try {
                        n.close();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                });
                network.close();
                throw e;
            }
        }

        private static void startAll(List<BrokerNode> nodes) {
            ExecutorService starters = Executors.newFixedThreadPool(nodes.size());
            try {
                List<Future<BrokerNode>> started = new ArrayList<>();
                for (BrokerNode node : nodes) {
                    started.add(starters.submit(node::start));
                }
                RuntimeException failure = null;
                for (Future<BrokerNode> future : started) {
                    try {
                        future.get();
                    } catch (ExecutionException e) {
                        RuntimeException cause = e.getCause() instanceof RuntimeException r
                                ? r : new IllegalStateException(e.getCause());
                        if (failure == null) {
                            failure = cause;
                        } else {
                            failure.addSuppressed(cause);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while starting " + nodes, e);
                    }
                }
                if (failure != null) {
                    throw failure;
                }
            } finally {
                starters.shutdownNow();
            }
        }
    }
}
