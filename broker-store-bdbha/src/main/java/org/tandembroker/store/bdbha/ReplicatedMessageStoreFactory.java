package org.tandembroker.store.bdbha;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.MessageStoreFactory;
import org.tandembroker.core.store.StoreContext;

/** Creates replicated JE stores for {@code <store type="bdb-ha">}; settings: {@link ReplicatedStoreSettings}. */
public final class ReplicatedMessageStoreFactory implements MessageStoreFactory {

    @Override
    public String type() {
        return ReplicatedMessageStore.TYPE;
    }

    @Override
    public MessageStore create(StoreSettings settings, StoreContext context) throws ConfigException {
        return new ReplicatedMessageStore(ReplicatedStoreSettings.from(settings, context), context);
    }

    /**
     * A group of two in this JVM, in {@code directory}'s {@code master} and {@code replica}, on free loopback ports,
     * with the default durability and coalescing sync: the master, holding its replica ({@link RehearsalGroup}).
     * The warm-up then runs every replicated path a node of a real group runs, whichever side it ends up on: the
     * master's commit path waiting for its replica's acknowledgement (JE's replicated commit, the applier pool and
     * flusher), JE's feeder, and the replica's replay. The master is designated primary, so it rehearses alone if
     * its replica cannot join. Both name only each other and no other node names them, so they touch no real group.
     */
    @Override
    public Optional<MessageStore> rehearsalStore(Path directory, StoreContext context) throws ConfigException {
        int masterPort = freeLoopbackPort();
        int replicaPort = freeLoopbackPort();
        while (replicaPort == masterPort) {
            replicaPort = freeLoopbackPort();
        }
        String masterHostPort = "127.0.0.1:" + masterPort;
        String replicaHostPort = "127.0.0.1:" + replicaPort;
        ReplicatedMessageStore replica = (ReplicatedMessageStore) create(rehearsalNode(directory, "warm-up-replica",
                replicaHostPort, masterHostPort, false), new StoreContext(context.virtualHostName() + "-replica",
                context.workDirectory(), null, context.operationalLog()));
        return Optional.of(new ReplicatedMessageStore(ReplicatedStoreSettings.from(rehearsalNode(directory,
                "warm-up", masterHostPort, masterHostPort, true), context), context, new RehearsalGroup(replica)));
    }

    private static StoreSettings rehearsalNode(Path directory, String nodeName, String nodeHostPort,
                                               String helperHostPort, boolean designatedPrimary) {
        Path storePath = directory.resolve(designatedPrimary ? "master" : "replica");
        return new StoreSettings(directory.resolve("rehearsal.xml"), ReplicatedMessageStore.TYPE,
                Map.of(ReplicatedStoreSettings.STORE_PATH, storePath.toString(),
                        ReplicatedStoreSettings.GROUP_NAME, "tandem-warm-up",
                        ReplicatedStoreSettings.NODE_NAME, nodeName,
                        ReplicatedStoreSettings.NODE_HOST_PORT, nodeHostPort,
                        ReplicatedStoreSettings.HELPER_HOST_PORT, helperHostPort,
                        ReplicatedStoreSettings.DESIGNATED_PRIMARY, Boolean.toString(designatedPrimary)),
                List.of(), List.of());
    }

    private static int freeLoopbackPort() throws ConfigException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new ConfigException("no free loopback port for the warm-up's scratch group: " + e.getMessage());
        }
    }
}
