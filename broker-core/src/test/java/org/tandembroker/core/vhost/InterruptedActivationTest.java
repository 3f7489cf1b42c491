package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.message.ContentBudget;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.testing.ControlledStore;
import org.tandembroker.core.testing.VirtualHostHarness;

/**
 * A store that stops being active while the virtual host recovers (found by the chaos soak: a new three-node group's
 * first master lost its quorum while declaring the configured queues, and the broker exited at start-up with "is
 * not the master (MASTER, master is node1)"): the host stays passive, start-up goes on, and it serves once the
 * store is active again; a refusal for want of replicas (or disk) without a role change is retried.
 */
class InterruptedActivationTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService housekeeping = Executors.newSingleThreadScheduledExecutor();
    private BrokerVirtualHost host;

    @AfterEach
    void close() {
        if (host != null) {
            host.stop().join();
        }
        pool.shutdownNow();
        housekeeping.shutdownNow();
    }

    @Test
    void aStoreThatIsNoLongerActiveWhileTheConfiguredQueuesAreDeclaredLeavesTheHostPassiveUntilItIsActiveAgain()
            throws Exception {
        ControlledStore store = new ControlledStore(new MemoryMessageStore(), false);
        store.holdNextCommit().completeExceptionally(new BrokerException(ErrorKind.NOT_ACTIVE,
                "bdb-ha store of test is not the master (MASTER, master is node1)"));
        host = new BrokerVirtualHost(VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS,
                List.of(new QueueConfig("declared", true, 0, 0, 0, 0, null)), List.of(), List.of()), () -> store,
                new OperationalLog(), new ContentBudget(64L * 1024 * 1024), pool, housekeeping);

        host.start();

        assertThat(host.firstRoleDecided().get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .isEqualTo(VirtualHostState.PASSIVE);
        assertThat(host.state()).isEqualTo(VirtualHostState.PASSIVE);
        assertThat(host.queue("declared")).isEmpty();

        store.becomePassive("quorum lost").get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        store.becomeActive().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        assertThat(host.state()).isEqualTo(VirtualHostState.ACTIVE);
        assertThat(host.queue("declared")).isPresent();
    }

    @Test
    void aStoreThatRefusesTheDeclarationsForWantOfReplicasWithoutARoleChangeIsActivatedAgainAfterADelay()
            throws Exception {
        ControlledStore store = new ControlledStore(new MemoryMessageStore(), false);
        store.holdNextCommit().completeExceptionally(new BrokerException(ErrorKind.RESOURCE_LIMIT_EXCEEDED,
                "not enough replicas to commit on node node1: 2 nodes including this master needed, replicas "
                        + "connected: [] (ack policy SIMPLE_MAJORITY); nothing was stored"));
        host = new BrokerVirtualHost(VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS,
                List.of(new QueueConfig("declared", true, 0, 0, 0, 0, null)), List.of(), List.of()), () -> store,
                new OperationalLog(), new ContentBudget(64L * 1024 * 1024), pool, housekeeping);

        host.start();

        assertThat(host.firstRoleDecided().get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                .isEqualTo(VirtualHostState.PASSIVE);
        await().atMost(DEADLINE).until(() -> host.state() == VirtualHostState.ACTIVE);
        assertThat(host.queue("declared")).isPresent();
    }
}
