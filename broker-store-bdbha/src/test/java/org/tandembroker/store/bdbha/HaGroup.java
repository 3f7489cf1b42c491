package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.ConfigException;
import org.tandembroker.core.config.NameValue;
import org.tandembroker.core.config.StoreSettings;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;

/**
 * Replicated stores of one JE group in this JVM, each in its own directory on its own loopback port, driven
 * through the store SPI with a {@link RecordingListener}. Close it: it closes every node still open.
 */
final class HaGroup implements AutoCloseable {
    static final Path VHOST_FILE = Path.of("etc/vhosts/ha.xml");
    static final String VHOST = "test";
    static final Duration ROLE_DEADLINE = Duration.ofSeconds(90);
    static final Duration COMMIT_DEADLINE = Duration.ofSeconds(30);
    static final UUID QUEUE = UUID.fromString("00000000-0000-0000-0000-00000000000a");
    /** Where {@link Node#awaitQuorum} commits its probe. */
    static final UUID PROBE_QUEUE = UUID.fromString("00000000-0000-0000-0000-00000000000b");

    /** Elections of two-node groups without needless retries (see docs/ha.md). */
    static final NameValue FAST_DESIGNATION = new NameValue("je.rep.electionsPrimaryRetries", "0");

    private final Path root;
    private final String groupName;
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final List<Node> nodes = new CopyOnWriteArrayList<>();
    private String firstHelper;

    HaGroup(Path root, String groupName) {
        this.root = root;
        this.groupName = groupName;
    }

    /** Options of one node; defaults: not designated, default durability, the group's first node as helper. */
    static final class Options {
        boolean designatedPrimary;
        final Map<String, String> elements = new HashMap<>();
        final List<NameValue> repConfig = new ArrayList<>(List.of(FAST_DESIGNATION));
        final List<NameValue> envConfig = new ArrayList<>();

        Options designated(boolean designated) {
            designatedPrimary = designated;
            return this;
        }

        Options element(String name, String value) {
            elements.put(name, value);
            return this;
        }

        Options rep(String name, String value) {
            repConfig.add(new NameValue(name, value));
            return this;
        }

        Options env(String name, String value) {
            envConfig.add(new NameValue(name, value));
            return this;
        }
    }

    static Options options() {
        return new Options();
    }

    /** Creates and starts a node (reusing its directory and port when it ran before). */
    Node start(String nodeName, Options options) {
        Node node = prepare(nodeName, options);
        node.start();
        return node;
    }

    /** Creates a node whose store a virtual host creates and starts ({@link Node#newStore()}). */
    Node prepare(String nodeName, Options options) {
        int port = ports.computeIfAbsent(nodeName, n -> freePort());
        String hostPort = "localhost:" + port;
        if (firstHelper == null) {
            firstHelper = hostPort;
        }
        Map<String, String> elements = new HashMap<>();
        elements.put("storePath", root.resolve(nodeName).toString());
        elements.put("groupName", groupName);
        elements.put("nodeName", nodeName);
        elements.put("nodeHostPort", hostPort);
        elements.put("helperHostPort", firstHelper);
        elements.put("designatedPrimary", Boolean.toString(options.designatedPrimary));
        elements.putAll(options.elements);
        Node node = new Node(nodeName, new StoreSettings(VHOST_FILE, "bdb-ha", elements, options.envConfig,
                options.repConfig));
        nodes.add(node);
        return node;
    }

    Node start(String nodeName) {
        return start(nodeName, options());
    }

    /** The helper every node of this group is given: the first node's address. */
    String helper() {
        return firstHelper;
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes masters first: a master whose replicas are gone waits for its last heartbeat's replicas. */
    @Override
    public void close() {
        nodes.stream().filter(node -> node.listener.isActive()).forEach(Node::close);
        nodes.forEach(Node::close);
    }

    /** One node: its store, what it told its listener and its operational log. */
    static final class Node implements AutoCloseable {
        final String name;
        final String clientAddress;
        final StoreSettings settings;
        final OperationalLog operationalLog = new OperationalLog();
        final List<String> logLines = new CopyOnWriteArrayList<>();
        final RecordingListener listener = new RecordingListener();
        ReplicatedMessageStore store;
        private boolean closed;

        Node(String name, StoreSettings settings) {
            this.name = name;
            this.clientAddress = "amqp-" + name + ".example:5672";
            this.settings = settings;
            operationalLog.addObserver(logLines::add);
        }

        void start() {
            newStore().start(listener);
        }

        /** A new, not yet started store of this node (kept as {@link #store}). */
        ReplicatedMessageStore newStore() {
            try {
                store = (ReplicatedMessageStore) new ReplicatedMessageStoreFactory().create(settings,
                        new StoreContext(VHOST, Path.of("."), clientAddress, operationalLog));
            } catch (ConfigException e) {
                throw new IllegalStateException(e);
            }
            return store;
        }

        /** Where this node replicates ({@code nodeHostPort}). */
        String hostPort() {
            return settings.elements().get("nodeHostPort");
        }

        Node awaitActive() {
            await().atMost(ROLE_DEADLINE).until(listener::isActive);
            return this;
        }

        /**
         * Waits until this master's commits are acknowledged. A new master serves at once and stops again while its
         * heartbeat finds no quorum, i.e. until its replicas or its arbiter follow it (JE retries those connections
         * after a delay). Commits a probe message on a queue of its own and removes it again, so {@link #QUEUE} is
         * unchanged.
         */
        Node awaitQuorum() {
            await().atMost(ROLE_DEADLINE).until(() -> {
                try {
                    Commit probe = publishOn(PROBE_QUEUE, "quorum probe");
                    probe.future().get(COMMIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                    acknowledgeOn(PROBE_QUEUE, probe.id()).get(COMMIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                    return true;
                } catch (BrokerException | ExecutionException e) {
                    return false; // not serving (yet or again), or the commit was not acknowledged
                }
            });
            return this;
        }

        /** Waits until the node is passive and knows the master's client address. */
        Node awaitRedirectTo(Node master) {
            await().atMost(ROLE_DEADLINE).until(() -> !listener.isActive()
                    && listener.redirect().equals(Optional.of(master.clientAddress)));
            return this;
        }

        Node awaitState(String state) {
            await().atMost(ROLE_DEADLINE).until(() -> store.nodeState().equals(state));
            return this;
        }

        long linesWithCode(String code) {
            return logLines.stream().filter(line -> line.startsWith(code + " ")).count();
        }

        List<String> linesWith(String code) {
            return logLines.stream().filter(line -> line.startsWith(code + " ")).toList();
        }

        /** Starts a commit of one message (content {@code text}) on the test queue; returns its id and future. */
        Commit publish(String text) {
            return publishOn(QUEUE, text);
        }

        private Commit publishOn(UUID queue, String text) {
            long id = store.nextMessageId();
            StoreTransaction txn = store.newTransaction();
            txn.storeMessage(id, ("meta-" + id).getBytes(StandardCharsets.UTF_8),
                    text.getBytes(StandardCharsets.UTF_8));
            txn.enqueue(queue, id);
            return new Commit(id, text, txn.commit());
        }

        /** Like {@link #publish}, but a refusal to hand out an id (not master) is a failed future too. */
        CompletableFuture<Void> publishOrFail(String text) {
            try {
                return publish(text).future();
            } catch (BrokerException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /** Commits messages one after the other, waiting for each; returns their ids. */
        List<Commit> publishAll(String prefix, int count) {
            List<Commit> commits = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Commit commit = publish(prefix + i);
                assertThat(commit.future()).succeedsWithin(COMMIT_DEADLINE);
                commits.add(commit);
            }
            return commits;
        }

        /** Starts a removal-only commit (a consumer's acknowledgement) of message {@code id}. */
        CompletableFuture<Void> acknowledge(long id) {
            return acknowledgeOn(QUEUE, id);
        }

        private CompletableFuture<Void> acknowledgeOn(UUID queue, long id) {
            StoreTransaction txn = store.newTransaction();
            txn.dequeue(queue, id);
            txn.removeMessage(id);
            return txn.commit();
        }

        /** What a recovery finds on {@link #QUEUE}, read in pages. */
        Recovered recover() {
            Recovered recovered = new Recovered();
            StoredEntries stored = store.recover(recovered.configRecords::add);
            long after = 0;
            while (true) {
                List<StoredEntry> page = stored.entries(QUEUE, after, 16).join();
                for (StoredEntry entry : page) {
                    recovered.messages.put(entry.messageId(), entry.contentSize());
                    recovered.entries.add(entry.messageId());
                    after = entry.messageId();
                }
                if (page.size() < 16) {
                    return recovered;
                }
            }
        }

        String content(long id) {
            return new String(store.loadContent(id).join(), StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                if (store != null) {
                    store.close();
                }
            }
        }
    }

    record Commit(long id, String text, CompletableFuture<Void> future) {
    }

    static ErrorKind failureKind(CompletableFuture<?> future, Duration deadline) {
        assertThat(future).failsWithin(deadline);
        return BrokerException.from(future.handle((v, e) -> e).join()).kind();
    }

    static String failureMessage(CompletableFuture<?> future) {
        return BrokerException.from(future.handle((v, e) -> e).join()).getMessage();
    }

    /** What a store told its virtual host, in order. */
    static final class RecordingListener implements StoreRoleListener {
        record Event(boolean active, Optional<String> redirect, String reason) {
        }

        final List<Event> events = new CopyOnWriteArrayList<>();
        private volatile boolean active;
        private volatile Optional<String> redirect = Optional.empty();

        @Override
        public CompletableFuture<Void> becameActive() {
            events.add(new Event(true, Optional.empty(), "active"));
            redirect = Optional.empty();
            active = true;
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> becamePassive(Optional<String> activeNodeClientAddress, String reason) {
            events.add(new Event(false, activeNodeClientAddress, reason));
            redirect = activeNodeClientAddress;
            active = false;
            return CompletableFuture.completedFuture(null);
        }

        boolean isActive() {
            return active;
        }

        Optional<String> redirect() {
            return redirect;
        }

        boolean everActive() {
            return events.stream().anyMatch(Event::active);
        }

        Optional<Event> lastPassive() {
            for (int i = events.size() - 1; i >= 0; i--) {
                if (!events.get(i).active()) {
                    return Optional.of(events.get(i));
                }
            }
            return Optional.empty();
        }
    }

    /** What a recovery found: the configuration records, and the entries of {@link #QUEUE} with content sizes. */
    static final class Recovered {
        final List<ConfigRecord> configRecords = new ArrayList<>();
        final Map<Long, Integer> messages = new LinkedHashMap<>();
        final List<Long> entries = new ArrayList<>();
    }
}
