package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.queue.BrokerQueue;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.testing.ControlledStore;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.vhost.Admission;
import org.tandembroker.core.vhost.ClientConnection;
import org.tandembroker.core.vhost.Destination;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.VirtualHostState;
import org.tandembroker.store.bdbha.HaGroup.Node;

/** The core's virtual host on a two-node group: redirects from the replica, every accepted message after failover. */
class VirtualHostOnReplicatedStoreTest {
    private static final VirtualHostConfig CONFIG = VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS,
            List.of(new QueueConfig("orders", true, 0, 0, 0, 0, null)), List.of(), List.of());

    @TempDir
    Path work;
    private final ExecutorService queuePool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private final List<BrokerVirtualHost> hosts = new ArrayList<>();
    private HaGroup group;

    @AfterEach
    void close() {
        hosts.forEach(host -> host.stop().join());
        if (group != null) {
            group.close();
        }
        queuePool.shutdownNow();
        housekeeping.shutdownNow();
    }

    private BrokerVirtualHost host(Node node) {
        return host(node, node::newStore);
    }

    private BrokerVirtualHost host(Node node, Supplier<MessageStore> stores) {
        return host(node, stores, 0);
    }

    private BrokerVirtualHost host(Node node, Supplier<MessageStore> stores, int queueWindow) {
        BrokerVirtualHost host = new BrokerVirtualHost(CONFIG, stores, node.operationalLog,
                new ContentBudget(64L * 1024 * 1024), queueWindow, queuePool, housekeeping);
        hosts.add(host);
        host.start();
        return host;
    }

    private static final class Client implements ClientConnection {
        volatile String closedWithRedirect;

        @Override
        public String describe() {
            return "test client";
        }

        @Override
        public void closeByBroker(String reason, String redirectAddress) {
            closedWithRedirect = String.valueOf(redirectAddress);
        }
    }

    @Test
    void theReplicaRedirectsClientsAndAfterFailoverDeliversEveryUnacknowledgedMessageInOrder() throws Exception {
        group = new HaGroup(work, "vhosts");
        Node first = group.prepare("first", HaGroup.options());
        BrokerVirtualHost master = host(first);
        await().atMost(ROLE_DEADLINE).until(() -> master.state() == VirtualHostState.ACTIVE);
        Node second = group.prepare("second", HaGroup.options());
        BrokerVirtualHost replica = host(second);
        assertThat(replica.firstRoleDecided()).succeedsWithin(ROLE_DEADLINE).isEqualTo(VirtualHostState.PASSIVE);
        await().atMost(ROLE_DEADLINE).until(() -> replica.admit(new Client()) instanceof Admission.Refused refused
                && first.clientAddress.equals(refused.redirectAddress()));

        Client connected = new Client();
        assertThat(master.admit(connected)).isInstanceOf(Admission.Admitted.class);
        Destination orders = master.resolveDestination("orders").join();
        for (int i = 0; i < 100; i++) {
            orders.publish(VirtualHostHarness.message("m" + i, null, true, 0), null).join();
        }
        RecordingConsumer consumer = new RecordingConsumer();
        Subscription subscription = master.subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join();
        subscription.addCredit(10);
        Set<String> acknowledged = new HashSet<>();
        for (Delivery delivery : consumer.next(10)) {
            delivery.accept(null).join();
            acknowledged.add(VirtualHostHarness.text(delivery));
        }

        // The master's host stops (as when its broker is shut down); an operator designates the replica.
        master.stop().join();
        hosts.remove(master);
        await().atMost(ROLE_DEADLINE).until(() -> second.store.nodeState().equals("UNKNOWN"));
        assertThat(replica.state()).isEqualTo(VirtualHostState.PASSIVE);
        assertThat(second.store.setDesignatedPrimary(true)).succeedsWithin(ROLE_DEADLINE);
        await().atMost(ROLE_DEADLINE).until(() -> replica.state() == VirtualHostState.ACTIVE);

        long depth = replica.queue("orders").orElseThrow().depthMessages();
        RecordingConsumer afterFailover = new RecordingConsumer();
        replica.subscribe("orders", afterFailover, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(200);
        List<String> delivered = new ArrayList<>();
        for (Delivery delivery : afterFailover.next((int) depth)) {
            delivered.add(VirtualHostHarness.text(delivery));
        }
        // Every message not acknowledged is there, in publish order; acknowledged ones may come again
        // (their removal waits for no replica: at-least-once), never a message that was not published.
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add("m" + i);
        }
        assertThat(delivered).isSubsetOf(expected).isSortedAccordingTo(
                (a, b) -> Integer.compare(Integer.parseInt(a.substring(1)), Integer.parseInt(b.substring(1))));
        assertThat(delivered).containsAll(expected.stream().filter(text -> !acknowledged.contains(text)).toList());
        assertThat(afterFailover.pending()).isZero();
    }

    @Test
    void afterFailoverADeepQueueIsServedFromItsHeadWhileItLoadsAndNewMessagesFollowTheRecoveredOnes()
            throws Exception {
        group = new HaGroup(work, "deep");
        Node first = group.prepare("first", HaGroup.options());
        BrokerVirtualHost master = host(first);
        await().atMost(ROLE_DEADLINE).until(() -> master.state() == VirtualHostState.ACTIVE);
        Node second = group.prepare("second", HaGroup.options());
        ControlledStore[] replicaStore = new ControlledStore[1];
        BrokerVirtualHost replica = host(second, () -> replicaStore[0] = new ControlledStore(second.newStore(), true));
        assertThat(replica.firstRoleDecided()).succeedsWithin(ROLE_DEADLINE).isEqualTo(VirtualHostState.PASSIVE);

        Destination orders = master.resolveDestination("orders").join();
        List<CompletableFuture<?>> published = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            published.add(orders.publish(VirtualHostHarness.message("m" + i, null, true, 0), null));
            expected.add("m" + i);
        }
        CompletableFuture.allOf(published.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        master.stop().join();
        hosts.remove(master);
        await().atMost(ROLE_DEADLINE).until(() -> second.store.nodeState().equals("UNKNOWN"));
        assertThat(second.store.setDesignatedPrimary(true)).succeedsWithin(ROLE_DEADLINE);
        await().atMost(ROLE_DEADLINE).until(() -> replica.state() == VirtualHostState.ACTIVE);

        // Serving with only the head loaded: every later page is held.
        BrokerQueue queue = replica.queue("orders").orElseThrow();
        assertThat(queue.isLoadingRecoveredEntries()).isTrue();
        assertThat(queue.depthMessages()).isEqualTo(256);
        RecordingConsumer consumer = new RecordingConsumer();
        replica.subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(1000);
        List<String> delivered = new ArrayList<>();
        for (Delivery delivery : consumer.next(256)) {
            delivered.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
        }
        Destination afterFailover = replica.resolveDestination("orders").join();
        for (int i = 0; i < 3; i++) {
            afterFailover.publish(VirtualHostHarness.message("new" + i, null, true, 0), null).join();
            expected.add("new" + i);
        }
        replicaStore[0].releasePages();
        for (Delivery delivery : consumer.next(600 - 256 + 3)) {
            delivered.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
        }

        assertThat(delivered).isEqualTo(expected);
        await().atMost(ROLE_DEADLINE).until(() -> !replica.recoveryInProgress());
        assertThat(second.linesWith("MST-1005")).containsExactly("MST-1005 : Recovered 600 messages");
        await().atMost(ROLE_DEADLINE).until(() -> queue.depthMessages() == 0);
    }

    @Test
    void aQueueDeeperThanItsWindowFailsOverWithoutLosingAMessageAndTheNewMasterLoadsOnlyItsWindow()
            throws Exception {
        int window = 20;
        group = new HaGroup(work, "paged");
        Node first = group.prepare("first", HaGroup.options());
        BrokerVirtualHost master = host(first, first::newStore, window);
        await().atMost(ROLE_DEADLINE).until(() -> master.state() == VirtualHostState.ACTIVE);
        Node second = group.prepare("second", HaGroup.options());
        BrokerVirtualHost replica = host(second, second::newStore, window);
        assertThat(replica.firstRoleDecided()).succeedsWithin(ROLE_DEADLINE).isEqualTo(VirtualHostState.PASSIVE);

        Destination orders = master.resolveDestination("orders").join();
        List<CompletableFuture<?>> published = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            published.add(orders.publish(VirtualHostHarness.message("m" + i, null, true, 0), null));
            expected.add("m" + i);
        }
        CompletableFuture.allOf(published.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        BrokerQueue onMaster = master.queue("orders").orElseThrow();
        // The master keeps all but its window in the store (enqueues run on the queue's executor after each commit).
        await().atMost(ROLE_DEADLINE).until(() -> onMaster.pagedCount() == 580);
        // Consume past the window on the master, so that it reads paged messages back from JE.
        RecordingConsumer consumer = new RecordingConsumer();
        master.subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(100);
        Set<String> acknowledged = new HashSet<>();
        List<String> beforeFailover = new ArrayList<>();
        for (Delivery delivery : consumer.next(100)) {
            beforeFailover.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
            acknowledged.add(VirtualHostHarness.text(delivery));
        }
        assertThat(beforeFailover).isEqualTo(expected.subList(0, 100));

        master.stop().join();
        hosts.remove(master);
        await().atMost(ROLE_DEADLINE).until(() -> second.store.nodeState().equals("UNKNOWN"));
        assertThat(second.store.setDesignatedPrimary(true)).succeedsWithin(ROLE_DEADLINE);
        await().atMost(ROLE_DEADLINE).until(() -> replica.state() == VirtualHostState.ACTIVE);
        BrokerQueue queue = replica.queue("orders").orElseThrow();
        await().atMost(ROLE_DEADLINE).until(() -> !queue.isLoadingRecoveredEntries());
        long depth = queue.depthMessages();
        assertThat(queue.pagedCount()).as("the new master created messages for its window only")
                .isEqualTo(depth - window);
        Destination afterFailover = replica.resolveDestination("orders").join();
        afterFailover.publish(VirtualHostHarness.message("new", null, true, 0), null).join();

        RecordingConsumer drain = new RecordingConsumer();
        replica.subscribe("orders", drain, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(1000);
        List<String> delivered = new ArrayList<>();
        for (Delivery delivery : drain.next((int) depth + 1)) {
            delivered.add(VirtualHostHarness.text(delivery));
            delivery.accept(null).join();
        }

        // Every message not acknowledged, in publish order, then the new one; acknowledged ones may come again.
        assertThat(delivered.get(delivered.size() - 1)).isEqualTo("new");
        List<String> recovered = delivered.subList(0, delivered.size() - 1);
        assertThat(recovered).isSubsetOf(expected).isSortedAccordingTo(
                (a, b) -> Integer.compare(Integer.parseInt(a.substring(1)), Integer.parseInt(b.substring(1))));
        assertThat(recovered).containsAll(expected.stream().filter(text -> !acknowledged.contains(text)).toList());
        await().atMost(ROLE_DEADLINE).until(() -> queue.depthMessages() == 0 && queue.pagedCount() == 0);
        assertThat(drain.pending()).isZero();
    }
}
