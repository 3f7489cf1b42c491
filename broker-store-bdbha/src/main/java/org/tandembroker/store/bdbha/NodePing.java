package org.tandembroker.store.bdbha;

import com.sleepycat.je.rep.NodeState;
import com.sleepycat.je.rep.NodeType;
import com.sleepycat.je.rep.ReplicationNetworkConfig;
import com.sleepycat.je.rep.ReplicationNode;
import com.sleepycat.je.rep.util.DbPing;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.tandembroker.core.store.replication.GroupMember;
import org.tandembroker.core.store.replication.MemberState;
import org.tandembroker.core.store.replication.PingAnswer;

/**
 * Asks another node of a replication group for its state over JE's service port (JE's {@link DbPing}): what the
 * node itself says, not what this node believes. Blocks the caller for at most the timeout, in all: JE's read
 * timeout is set as {@code SO_TIMEOUT}, which a blocking {@code SocketChannel} read ignores, so a node whose port
 * accepts connections but never answers (a stopped process, {@code kill -STOP}; a hung JVM) would block
 * {@link DbPing#getNodeState()} for ever. Each ping therefore runs on a short-lived thread of its own, named
 * {@code node-ping-NODE}, which the caller interrupts at the deadline: the interrupt closes the channel (an
 * interruptible channel), ending the thread. Call it from an operator's thread (a JMX call), never from a broker
 * thread.
 */
final class NodePing {

    private NodePing() {
    }

    /**
     * Pings {@code member} of {@code groupName} over {@code network} (the node's own channel: TLS when the group
     * replicates over TLS).
     *
     * @throws IOException (with JE's message) when the node does not answer within {@code timeoutMillis}
     */
    static PingAnswer ping(GroupMember member, String groupName, int timeoutMillis, ReplicationNetworkConfig network)
            throws IOException {
        FutureTask<PingAnswer> ping = new FutureTask<>(() -> askNode(member, groupName, timeoutMillis, network));
        Thread asking = new Thread(ping, "node-ping-" + member.name());
        asking.setDaemon(true);
        asking.start();
        try {
            return ping.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            ping.cancel(true); // interrupts the read: closes JE's channel, so the thread ends
            throw new IOException("node " + member.name() + " (" + member.hostPort() + ") did not answer within "
                    + timeoutMillis + " ms (stopped, hung, or unreachable from here)");
        } catch (InterruptedException e) {
            ping.cancel(true);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while asking node " + member.name() + " for its state", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(String.valueOf(e.getCause().getMessage()), e.getCause());
        }
    }

    private static PingAnswer askNode(GroupMember member, String groupName, int timeoutMillis,
            ReplicationNetworkConfig network) throws IOException {
        try {
            int colon = member.hostPort().lastIndexOf(':');
            String host = member.hostPort().substring(0, colon);
            int port = Integer.parseInt(member.hostPort().substring(colon + 1));
            NodeState state = new DbPing(new Node(member.name(), host, port), groupName, timeoutMillis, network)
                    .getNodeState();
            String master = state.getMasterName();
            return new PingAnswer(state.getNodeName(), memberState(String.valueOf(state.getNodeState())),
                    master == null || master.isEmpty() ? Optional.empty() : Optional.of(master),
                    String.valueOf(state.getJEVersion()), state.getLogVersion(), state.getCurrentTxnEndVLSN(),
                    state.getKnownMasterTxnEndVLSN(), state.getActiveFeeders(), state.getSystemLoad(),
                    NodeAddresses.decode(state.getAppState()).managementAddress());
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e.getMessage(), e); // JE's ServiceConnectFailedException, a malformed address
        }
    }

    /** JE's four states as the node names them. */
    private static MemberState memberState(String jeState) {
        return switch (jeState) {
            case "MASTER" -> MemberState.MASTER;
            case "REPLICA" -> MemberState.REPLICA;
            case "DETACHED" -> MemberState.DETACHED;
            default -> MemberState.UNKNOWN;
        };
    }

    /** The address of a node as DbPing wants it. */
    private record Node(String name, String host, int port) implements ReplicationNode {
        @Override
        public String getName() {
            return name;
        }

        @Override
        public NodeType getType() {
            return NodeType.ELECTABLE;
        }

        @Override
        public InetSocketAddress getSocketAddress() {
            return new InetSocketAddress(host, port);
        }

        @Override
        public String getHostName() {
            return host;
        }

        @Override
        public int getPort() {
            return port;
        }
    }
}
