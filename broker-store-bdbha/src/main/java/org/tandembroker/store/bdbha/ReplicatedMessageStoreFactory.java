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
     * A group of one, in {@code directory}, on a free loopback port: the warm-up then runs the master's own commit
     * path (JE's replicated commit, the applier pool and flusher) that a replica takes over at a failover, with the
     * default durability and coalescing sync. Being alone it elects itself; it names no other node and no other node
     * names it, so it touches no real group.
     */
    @Override
    public Optional<MessageStore> rehearsalStore(Path directory, StoreContext context) throws ConfigException {
        String nodeHostPort = "127.0.0.1:" + freeLoopbackPort();
        StoreSettings settings = new StoreSettings(directory.resolve("rehearsal.xml"), ReplicatedMessageStore.TYPE,
                Map.of(ReplicatedStoreSettings.STORE_PATH, directory.toString(),
                        ReplicatedStoreSettings.GROUP_NAME, "tandem-warm-up",
                        ReplicatedStoreSettings.NODE_NAME, "warm-up",
                        ReplicatedStoreSettings.NODE_HOST_PORT, nodeHostPort,
                        ReplicatedStoreSettings.HELPER_HOST_PORT, nodeHostPort),
                List.of(), List.of());
        return Optional.of(create(settings, context));
    }

    private static int freeLoopbackPort() throws ConfigException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new ConfigException("no free loopback port for the warm-up's group of one: " + e.getMessage());
        }
    }
}
