package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.BindingConfig;
import org.tandembroker.core.config.ExchangeConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.exchange.ExchangeType;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.store.memory.MemoryMessageStore;
import org.tandembroker.core.testing.ControlledStore;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.txn.LocalTransaction;

/** A message routed to several queues stays in the store until every queue is done with it. */
class SharedMessageTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private VirtualHostHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aTransactionalAcknowledgementThatRollsBackKeepsAMessageThatAnotherQueueConsumedMeanwhile() throws Exception {
        MemoryMessageStore stored = new MemoryMessageStore();
        ControlledStore store = new ControlledStore(stored, false);
        harness = new VirtualHostHarness(VirtualHostHarness.config(false, VirtualHostHarness.DEFAULTS,
                List.of(queue("first"), queue("second")), List.of(new ExchangeConfig("fan", ExchangeType.FANOUT, true)),
                List.of(new BindingConfig("fan", "first", ""), new BindingConfig("fan", "second", ""))),
                () -> store, 0); // no body stays on the heap: every delivery reads the store
        BrokerVirtualHost host = harness.host();
        harness.publish("fan", "shared");
        RecordingConsumer first = consume(host, "first");
        RecordingConsumer second = consume(host, "second");
        Delivery fromFirst = first.next();
        Delivery fromSecond = second.next();

        // The first queue's acknowledgement is in a transaction whose store commit fails...
        LocalTransaction transaction = host.beginTransaction();
        fromFirst.accept(transaction).join();
        var commitOutcome = store.holdNextCommit();
        var committed = transaction.commit();
        assertThat(store.heldCommitStarted()).succeedsWithin(DEADLINE);
        // ...after the second queue's consumer accepted the message.
        fromSecond.accept(null).join();
        commitOutcome.completeExceptionally(new BrokerException(ErrorKind.INTERNAL_ERROR, "disk failed"));
        assertThat(committed).failsWithin(DEADLINE);

        // The first queue still holds the message, and its content is still in the store.
        Delivery again = first.next();
        assertThat(VirtualHostHarness.text(again)).isEqualTo("shared");
        assertThat(again.messageId()).isEqualTo(fromFirst.messageId());
        assertThat(stored.loadContent(again.messageId())).succeedsWithin(DEADLINE);
        again.accept(null).join();
        assertThat(stored.loadContent(again.messageId())).failsWithin(DEADLINE);
    }

    private static QueueConfig queue(String name) {
        return new QueueConfig(name, true, 0, 0, 0, 0, null);
    }

    private static RecordingConsumer consume(BrokerVirtualHost host, String queue) {
        RecordingConsumer consumer = new RecordingConsumer();
        host.subscribe(queue, consumer, SubscriptionOptions.AT_LEAST_ONCE).join().addCredit(10);
        return consumer;
    }
}
