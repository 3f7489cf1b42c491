package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.core.testing.VirtualHostHarness.DEFAULTS;
import static org.tandembroker.core.testing.VirtualHostHarness.message;
import static org.tandembroker.core.testing.VirtualHostHarness.text;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.BindingConfig;
import org.tandembroker.core.config.ExchangeConfig;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.exchange.ExchangeType;
import org.tandembroker.core.queue.Delivery;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;
import org.tandembroker.core.txn.LocalTransaction;

class VirtualHostBehaviourTest {
    private VirtualHostHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    private BrokerVirtualHost hostWith(List<QueueConfig> queues) {
        harness = VirtualHostHarness.memory(true, DEFAULTS, queues, List.of(), List.of());
        return harness.host();
    }

    private Subscription subscribe(BrokerVirtualHost host, String address, RecordingConsumer consumer, int credit) {
        Subscription s = host.subscribe(address, consumer, SubscriptionOptions.AT_LEAST_ONCE).join();
        s.addCredit(credit);
        return s;
    }

    @Test
    void deliversMessagesInPublishOrderOnlyWithinCredit() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        for (int i = 0; i < 5; i++) {
            harness.publish("orders", "m" + i);
        }
        RecordingConsumer consumer = new RecordingConsumer();
        Subscription s = subscribe(host, "orders", consumer, 3);
        assertThat(consumer.next(3)).extracting(VirtualHostHarness::text).containsExactly("m0", "m1", "m2");
        assertThat(consumer.pending()).isZero();
        s.addCredit(10);
        assertThat(consumer.next(2)).extracting(VirtualHostHarness::text).containsExactly("m3", "m4");
    }

    @Test
    void competingConsumersShareTheQueue() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        RecordingConsumer a = new RecordingConsumer();
        RecordingConsumer b = new RecordingConsumer();
        subscribe(host, "work", a, 100);
        subscribe(host, "work", b, 100);
        for (int i = 0; i < 10; i++) {
            harness.publish("work", "job" + i);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> a.pending() + b.pending() == 10);
        assertThat(a.pending()).isPositive();
        assertThat(b.pending()).isPositive();
    }

    @Test
    void acceptedMessageLeavesTheQueue() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("q", "hello");
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "q", consumer, 10);
        Delivery d = consumer.next();
        assertThat(host.queue("q").orElseThrow().depthMessages()).isEqualTo(1);
        d.accept(null).join();
        assertThat(host.queue("q").orElseThrow().depthMessages()).isZero();
    }

    @Test
    void releasedMessageComesBackAheadOfNewerOnesWithUnchangedDeliveryCount() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("q", "first");
        harness.publish("q", "second");
        RecordingConsumer consumer = new RecordingConsumer();
        Subscription s = subscribe(host, "q", consumer, 1);
        Delivery first = consumer.next();
        first.release();
        s.addCredit(2);
        List<Delivery> again = consumer.next(2);
        assertThat(again).extracting(VirtualHostHarness::text).containsExactly("first", "second");
        assertThat(again.get(0).deliveryCount()).isZero();
    }

    @Test
    void closingAConsumerRedeliversItsUnsettledMessagesAsFailedDeliveries() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("q", "unsettled");
        RecordingConsumer first = new RecordingConsumer();
        Subscription s = subscribe(host, "q", first, 10);
        first.next();
        s.close();
        RecordingConsumer second = new RecordingConsumer();
        subscribe(host, "q", second, 10);
        Delivery redelivered = second.next();
        assertThat(text(redelivered)).isEqualTo("unsettled");
        assertThat(redelivered.deliveryCount()).isEqualTo(1);
    }

    @Test
    void consumerThatFailsAMessageAndThenLeavesCountsOneFailedDeliveryNotTwo() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("q", "once-failed");
        RecordingConsumer leaving = new RecordingConsumer();
        Subscription s = subscribe(host, "q", leaving, 10);
        leaving.next().modified(true, false);
        Delivery handedBack = leaving.next();
        assertThat(handedBack.deliveryCount()).isEqualTo(1);
        s.close();
        RecordingConsumer next = new RecordingConsumer();
        subscribe(host, "q", next, 10);
        assertThat(next.next().deliveryCount()).isEqualTo(1);
    }

    @Test
    void messageGoesToDeadLetterQueueAfterMaximumDeliveries() throws Exception {
        BrokerVirtualHost host = hostWith(List.of(new QueueConfig("poison", true, 0, 0, 0, 3, "poison.dlq")));
        harness.publish("poison", "bad");
        RecordingConsumer consumer = new RecordingConsumer();
        Subscription s = subscribe(host, "poison", consumer, 100);
        for (int attempt = 0; attempt < 3; attempt++) {
            consumer.next().modified(true, false);
        }
        RecordingConsumer dlqConsumer = new RecordingConsumer();
        subscribe(host, "poison.dlq", dlqConsumer, 10);
        assertThat(text(dlqConsumer.next())).isEqualTo("bad");
        assertThat(consumer.pending()).isZero();
        await().until(() -> host.queue("poison").orElseThrow().depthMessages() == 0);
        assertThat(harness.logLines()).anyMatch(l -> l.startsWith("VHT-1007") && l.contains("poison.dlq"));
        s.close();
    }

    @Test
    void rejectedMessageIsDeadLettered() throws Exception {
        BrokerVirtualHost host = hostWith(List.of(new QueueConfig("q", true, 0, 0, 0, 0, "DLQ")));
        harness.publish("q", "invalid");
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "q", consumer, 10);
        consumer.next().reject();
        RecordingConsumer dlq = new RecordingConsumer();
        subscribe(host, "DLQ", dlq, 10);
        assertThat(text(dlq.next())).isEqualTo("invalid");
    }

    @Test
    void fullQueueRefusesPublishesWithResourceLimitExceededUntilDrained() throws Exception {
        BrokerVirtualHost host = hostWith(List.of(new QueueConfig("small", true, 2, 0, 0, 0, null)));
        harness.publish("small", "1");
        harness.publish("small", "2");
        assertThatThrownBy(() -> harness.publish("small", "3"))
                .isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(BrokerException.class)
                .satisfies(e -> assertThat(((BrokerException) e).kind()).isEqualTo(ErrorKind.RESOURCE_LIMIT_EXCEEDED))
                .hasMessageContaining("small").hasMessageContaining("maxDepthMessages 2");
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "small", consumer, 1);
        consumer.next().accept(null).join();
        harness.publish("small", "3");
        assertThat(host.queue("small").orElseThrow().depthMessages()).isEqualTo(2);
    }

    @Test
    void expiredMessagesAreNeverDelivered() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("ttl", message("stale", null, true, System.currentTimeMillis() - 1));
        harness.publish("ttl", message("fresh", null, true, 0));
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "ttl", consumer, 10);
        assertThat(text(consumer.next())).isEqualTo("fresh");
        await().until(() -> host.queue("ttl").orElseThrow().depthMessages() == 1);
    }

    @Test
    void queueMessageTtlExpiresMessagesThatWaitedTooLong() throws Exception {
        BrokerVirtualHost host = hostWith(List.of(new QueueConfig("short", true, 0, 0, 60_000, 0, null)));
        var old = message("old", null, true, 0);
        var aged = new org.tandembroker.core.message.IncomingMessage(
                old.metadata().withArrival(System.currentTimeMillis() - 120_000), old.content());
        harness.publish("short", aged);
        harness.publish("short", "new");
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "short", consumer, 10);
        assertThat(text(consumer.next())).isEqualTo("new");
    }

    @Test
    void preSettledConsumerRemovesMessagesAsTheyAreSent() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("q", "once");
        RecordingConsumer consumer = new RecordingConsumer();
        Subscription s = host.subscribe("q", consumer, SubscriptionOptions.AT_MOST_ONCE).join();
        s.addCredit(5);
        assertThat(text(consumer.next())).isEqualTo("once");
        await().until(() -> host.queue("q").orElseThrow().depthMessages() == 0);
    }

    @Test
    void drainWithNothingLeftReportsDrained() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("q", "only");
        RecordingConsumer consumer = new RecordingConsumer();
        Subscription s = subscribe(host, "q", consumer, 10);
        consumer.next();
        s.drain();
        await().until(() -> consumer.drainedCount() == 1);
    }

    @Test
    void topicExchangeRoutesBySubjectToMatchingSubscriptions() throws Exception {
        harness = VirtualHostHarness.memory(true, DEFAULTS, List.of(), List.of(), List.of());
        BrokerVirtualHost host = harness.host();
        RecordingConsumer all = new RecordingConsumer();
        RecordingConsumer nyse = new RecordingConsumer();
        subscribe(host, "amq.topic/stocks.#", all, 10);
        subscribe(host, "amq.topic/stocks.*.nyse", nyse, 10);
        harness.publish("amq.topic", message("ibm", "stocks.ibm.nyse", true, 0));
        harness.publish("amq.topic/stocks.sap.xetra", message("sap", null, true, 0));
        harness.publish("amq.topic", message("bond", "bonds.us", true, 0));
        assertThat(all.next(2)).extracting(VirtualHostHarness::text).containsExactly("ibm", "sap");
        assertThat(text(nyse.next())).isEqualTo("ibm");
        assertThat(all.pending() + nyse.pending()).isZero();
    }

    @Test
    void fanoutExchangeCopiesToEveryBoundQueueAndDirectMatchesExactKeys() throws Exception {
        harness = VirtualHostHarness.memory(true, DEFAULTS,
                List.of(new QueueConfig("a", true, 0, 0, 0, 0, null), new QueueConfig("b", true, 0, 0, 0, 0, null)),
                List.of(new ExchangeConfig("events", ExchangeType.FANOUT, true),
                        new ExchangeConfig("router", ExchangeType.DIRECT, true)),
                List.of(new BindingConfig("events", "a", ""), new BindingConfig("events", "b", ""),
                        new BindingConfig("router", "a", "red")));
        BrokerVirtualHost host = harness.host();
        harness.publish("events", "broadcast");
        harness.publish("router/red", "for-a");
        harness.publish("router/blue", "for-nobody");
        RecordingConsumer a = new RecordingConsumer();
        RecordingConsumer b = new RecordingConsumer();
        subscribe(host, "a", a, 10);
        subscribe(host, "b", b, 10);
        assertThat(a.next(2)).extracting(VirtualHostHarness::text).containsExactly("broadcast", "for-a");
        assertThat(text(b.next())).isEqualTo("broadcast");
        assertThat(a.pending() + b.pending()).isZero();
    }

    @Test
    void transactionalPublishesAppearOnlyAtCommit() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "txq", consumer, 10);
        Destination d = host.resolveDestination("txq").join();
        LocalTransaction committed = host.beginTransaction();
        d.publish(message("kept", null, true, 0), committed).join();
        LocalTransaction rolledBack = host.beginTransaction();
        d.publish(message("discarded", null, true, 0), rolledBack).join();
        assertThat(consumer.pending()).isZero();
        rolledBack.rollback().join();
        committed.commit().join();
        assertThat(text(consumer.next())).isEqualTo("kept");
        assertThat(host.queue("txq").orElseThrow().depthMessages()).isEqualTo(1);
    }

    @Test
    void transactionalAcknowledgementRemovesAtCommitAndRedeliversAtRollback() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("txq", "a");
        harness.publish("txq", "b");
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "txq", consumer, 10);
        List<Delivery> got = consumer.next(2);
        LocalTransaction commit = host.beginTransaction();
        got.get(0).accept(commit).join();
        LocalTransaction rollback = host.beginTransaction();
        got.get(1).accept(rollback).join();
        commit.commit().join();
        rollback.rollback().join();
        Delivery again = consumer.next();
        assertThat(text(again)).isEqualTo("b");
        assertThat(again.deliveryCount()).isEqualTo(1);
        assertThat(host.queue("txq").orElseThrow().depthMessages()).isEqualTo(1);
    }

    @Test
    void acknowledgementsIssuedJustBeforeACommitArePartOfThatCommit() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        for (int i = 0; i < 50; i++) {
            harness.publish("txrace", "m" + i);
        }
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "txrace", consumer, 50);
        LocalTransaction transaction = host.beginTransaction();
        for (Delivery d : consumer.next(50)) {
            d.accept(transaction); // not waited for: the client's commit may arrive at once
        }
        transaction.commit().join();
        await().atMost(Duration.ofSeconds(5)).until(() -> host.queue("txrace").orElseThrow().depthMessages() == 0);
        assertThat(consumer.pending()).isZero();
    }

    @Test
    void autoCreateOffRefusesUnknownAddressesWithNotFound() {
        harness = VirtualHostHarness.memory(false, DEFAULTS, List.of(), List.of(), List.of());
        assertThatThrownBy(() -> harness.host().resolveDestination("nowhere").join())
                .cause().isInstanceOf(BrokerException.class)
                .hasMessageContaining("nowhere").hasMessageContaining("auto-create is off")
                .satisfies(e -> assertThat(((BrokerException) e).kind()).isEqualTo(ErrorKind.NOT_FOUND));
    }

    @Test
    void contentBeyondTheMemoryBudgetIsReadBackFromTheStore() throws Exception {
        harness = new VirtualHostHarness(VirtualHostHarness.config(true, DEFAULTS, List.of(), List.of(), List.of()),
                org.tandembroker.core.store.memory.MemoryMessageStore::new, 0);
        BrokerVirtualHost host = harness.host();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sent.add("body-" + i);
            harness.publish("big", "body-" + i);
        }
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "big", consumer, 100);
        assertThat(consumer.next(20)).extracting(VirtualHostHarness::text).containsExactlyElementsOf(sent);
    }

    @Test
    void passivationClosesConnectionsAndRefusesNewOnesWithReason() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        List<String> closes = new java.util.concurrent.CopyOnWriteArrayList<>();
        ClientConnection connection = new ClientConnection() {
            @Override
            public String describe() {
                return "test";
            }

            @Override
            public void closeByBroker(String reason, String redirectAddress) {
                closes.add(reason);
            }
        };
        assertThat(host.admit(connection)).isInstanceOf(Admission.Admitted.class);
        host.passivate("operator request").join();
        assertThat(host.state()).isEqualTo(VirtualHostState.PASSIVE);
        assertThat(closes).singleElement().asString().contains("operator request");
        assertThat(host.admit(connection)).isInstanceOfSatisfying(Admission.Refused.class,
                r -> assertThat(r.description()).contains("not active"));
        assertThat(harness.logLines()).anyMatch(l -> l.equals("MST-1007 : Store Passivated"));
        host.activate().join();
        await().until(() -> host.state() == VirtualHostState.ACTIVE);
        assertThat(host.admit(connection)).isInstanceOf(Admission.Admitted.class);
        assertThat(harness.logLines()).filteredOn(l -> l.equals("MST-1006 : Recovery Complete")).hasSize(2);
    }
    @Test
    void refusedPublishesFailWithResourceLimitUntilAcceptedAgainAndConsumersCarryOn() throws Exception {
        BrokerVirtualHost host = hostWith(List.of());
        harness.publish("q", "before");
        Destination destination = host.resolveDestination("q").join();

        host.refusePublishes("disk space low: 10 MB left, watermark 1 GB");

        assertThat(host.publishRefusal()).contains("disk space low: 10 MB left, watermark 1 GB");
        assertThatThrownBy(() -> destination.publish(message("refused", null, true, 0), null).join())
                .hasCauseInstanceOf(BrokerException.class).cause()
                .satisfies(e -> assertThat(((BrokerException) e).kind()).isEqualTo(ErrorKind.RESOURCE_LIMIT_EXCEEDED))
                .hasMessageContaining("disk space low");
        RecordingConsumer consumer = new RecordingConsumer();
        subscribe(host, "q", consumer, 10);
        consumer.next().accept(null).join();

        host.acceptPublishes();
        destination.publish(message("after", null, true, 0), null).join();

        assertThat(consumer.next()).extracting(VirtualHostHarness::text).isEqualTo("after");
        assertThat(host.publishStatistics()).extracting(PublishStatistics::messagesIn,
                PublishStatistics::bytesIn, PublishStatistics::publishesRefused)
                .containsExactly(2L, (long) ("before".length() + "after".length()), 1L);
    }

    @Test
    void listsConnectionsAndClosesOneByItsDescription() {
        BrokerVirtualHost host = hostWith(List.of());
        List<String> closes = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (String name : List.of("/10.0.0.2:4000 (bob)", "/10.0.0.1:5000 (alice)")) {
            host.admit(new ClientConnection() {
                @Override
                public String describe() {
                    return name;
                }

                @Override
                public void closeByBroker(String reason, String redirectAddress) {
                    closes.add(name + ": " + reason);
                }
            });
        }

        assertThat(host.connectionDescriptions()).containsExactly("/10.0.0.1:5000 (alice)", "/10.0.0.2:4000 (bob)");
        assertThat(host.closeConnection("/10.0.0.2:4000 (bob)", "closed by an operator")).isEqualTo(1);
        assertThat(host.closeConnection("nobody", "closed by an operator")).isZero();
        assertThat(closes).containsExactly("/10.0.0.2:4000 (bob): closed by an operator");
    }
}
