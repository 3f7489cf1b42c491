package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.testing.ControlledStore;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * A commit that is durable in this node's store but whose replica acknowledgements did not arrive (IN_DOUBT) is
 * reported to the client as in doubt, and what it stored is visible at once: the chaos soak saw such messages stay
 * hidden until the next recovery (docs/reliability.md, finding 2).
 */
class InDoubtPublishTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final BrokerException ACKS_MISSING = new BrokerException(ErrorKind.IN_DOUBT,
            "committed on master n1 but only 0 of 1 replica acknowledgements arrived");

    private final MemoryMessageStore stored = new MemoryMessageStore();
    private final ControlledStore store = new ControlledStore(stored, false);
    private VirtualHostHarness harness;
    private RecordingConsumer consumer;

    @BeforeEach
    void host() {
        harness = new VirtualHostHarness(VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS,
                List.of(new QueueConfig("orders", true, 0, 0, 0, 0, null)), List.of(), List.of()), () -> store,
                Long.MAX_VALUE);
        consumer = new RecordingConsumer();
        harness.host().subscribe("orders", consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(10);
    }

    @AfterEach
    void close() {
        harness.close();
    }

    @Test
    void aPublishInDoubtFailsAsInDoubtAndItsMessageIsDeliveredWithoutWaitingForARecovery() throws Exception {
        store.failNextCommitAfterStoring(ACKS_MISSING);
        CompletableFuture<?> publish = harness.host().resolveDestination("orders").join()
                .publish(VirtualHostHarness.message("in doubt", null, true, 0), null);

        assertThat(publish).failsWithin(DEADLINE).withThrowableOfType(Exception.class)
                .havingRootCause().isInstanceOf(BrokerException.class)
                .satisfies(e -> assertThat(((BrokerException) e).kind()).isEqualTo(ErrorKind.IN_DOUBT));
        Delivery delivery = consumer.next();
        assertThat(VirtualHostHarness.text(delivery)).isEqualTo("in doubt");
        delivery.accept(null).join();
        assertThat(stored.loadContent(delivery.messageId())).failsWithin(DEADLINE); // consumed: gone from the store
    }

    @Test
    void aTransactionInDoubtIsReportedInDoubtNotRolledBackAndItsMessagesAreDelivered() throws Exception {
        LocalTransaction transaction = harness.host().beginTransaction();
        Destination orders = harness.host().resolveDestination("orders").join();
        orders.publish(VirtualHostHarness.message("first", null, true, 0), transaction).join();
        orders.publish(VirtualHostHarness.message("second", null, true, 0), transaction).join();
        store.failNextCommitAfterStoring(ACKS_MISSING);

        assertThat(transaction.commit()).failsWithin(DEADLINE).withThrowableOfType(Exception.class)
                .havingRootCause().isInstanceOf(BrokerException.class)
                .satisfies(e -> assertThat(((BrokerException) e).kind()).isEqualTo(ErrorKind.IN_DOUBT));
        assertThat(consumer.next(2)).extracting(VirtualHostHarness::text).containsExactly("first", "second");
    }
}
