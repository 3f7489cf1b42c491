package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.tandembroker.core.testing.VirtualHostHarness.DEFAULTS;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.QueueConfig;
import org.tandembroker.core.queue.MessageFilter;
import org.tandembroker.core.queue.NamedSubscription;
import org.tandembroker.core.queue.Subscription;
import org.tandembroker.core.queue.SubscriptionOptions;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.testing.RecordingConsumer;
import org.tandembroker.core.testing.VirtualHostHarness;

/** Named subscriptions' rules where they meet concurrency: attaches, leaves and unsubscribes that race. */
class TopicSubscriptionsTest {
    private final VirtualHostHarness harness = VirtualHostHarness.memory(true, DEFAULTS, List.of(), List.of(),
            List.of());
    private final BrokerVirtualHost host = harness.host();

    @AfterEach
    void close() {
        harness.close();
    }

    private static SubscriptionOptions options(NamedSubscription subscription) {
        return new SubscriptionOptions(false, subscription, AddressKind.TOPIC, MessageFilter.ALL);
    }

    private static ErrorKind failure(CompletableFuture<?> future) {
        try {
            future.get(10, TimeUnit.SECONDS);
            return null;
        } catch (Exception e) {
            return BrokerException.from(e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e)
                    .kind();
        }
    }

    @Test
    void ofManyConsumersAttachingAtOnceToAnUnsharedSubscriptionExactlyOneGetsIt() throws Exception {
        NamedSubscription exclusive = new NamedSubscription("only-one", "app", true, false);
        List<CompletableFuture<Subscription>> attaches = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            attaches.add(CompletableFuture.supplyAsync(() -> host.subscribe("events", new RecordingConsumer(),
                    options(exclusive))).thenCompose(f -> f));
        }
        List<ErrorKind> outcomes = new ArrayList<>();
        for (CompletableFuture<Subscription> attach : attaches) {
            outcomes.add(failure(attach));
        }
        assertThat(outcomes).containsOnlyOnce((ErrorKind) null).filteredOn(k -> k != null)
                .hasSize(7).containsOnly(ErrorKind.ILLEGAL_STATE);
        assertThat(host.queue("app:only-one").orElseThrow().consumerCount()).isEqualTo(1);
    }

    @Test
    void aConsumerThatHasJustLeftNoLongerStopsAnUnsubscribe() {
        NamedSubscription durable = new NamedSubscription("brief", "app", true, false);
        for (int i = 0; i < 20; i++) {
            host.subscribe("events", new RecordingConsumer(), options(durable)).join().close();
            assertThat(host.unsubscribe(durable, ClientAccess.UNRESTRICTED)).succeedsWithin(Duration.ofSeconds(10));
            assertThat(host.queue("app:brief")).isEmpty();
        }
    }

    @Test
    void aConsumerJoiningASharedSubscriptionAsItsLastConsumerLeavesGetsALiveOne() throws Exception {
        NamedSubscription shared = new NamedSubscription("pool", "app", false, true);
        for (int i = 0; i < 50; i++) {
            Subscription leaving = host.subscribe("events", new RecordingConsumer(), options(shared)).join();
            leaving.close();
            RecordingConsumer joining = new RecordingConsumer();
            Subscription joined = host.subscribe("events", joining, options(shared)).join();
            joined.addCredit(1);
            harness.publish("amq.topic/events", "m" + i);
            assertThat(VirtualHostHarness.text(joining.next(Duration.ofSeconds(10)))).isEqualTo("m" + i);
            assertThat(joining.closedReason()).as("iteration %d", i).isNull();
            joined.close();
        }
    }

    @Test
    void aSubscriptionNameWhoseQueueIsAnOrdinaryQueueIsRefused() {
        host.declareQueue(new QueueConfig("app:orders", true, 0, 0, 0, 0, null), false).join();
        CompletableFuture<Subscription> attach = host.subscribe("events", new RecordingConsumer(),
                options(new NamedSubscription("orders", "app", true, false)));
        assertThat(attach).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
                .withMessageContaining("its queue 'app:orders' exists and holds no subscription");
        assertThat(failure(host.unsubscribe(new NamedSubscription("orders", "app", true, false),
                ClientAccess.UNRESTRICTED))).as("unsubscribe leaves an ordinary queue alone")
                .isEqualTo(ErrorKind.NOT_FOUND);
        assertThat(host.queue("app:orders")).isPresent();
    }

    @Test
    void aSubscriptionNameHasNoDelimiterSoTheFourQueueNameFormsNeverMeet() {
        assertThatThrownBy(() -> new NamedSubscription("a|global", null, true, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(List.of(new NamedSubscription("s", "c", true, false).queueName(),
                new NamedSubscription("s", "c", false, true).queueName(),
                new NamedSubscription("s", null, true, true).queueName(),
                new NamedSubscription("s", null, false, true).queueName()))
                .containsExactly("c:s", "c:s|volatile", "s|global", "s|global-volatile");
    }

    @Test
    void unsubscribingANameThatHasNoSubscriptionIsNotFound() {
        assertThat(failure(host.unsubscribe(new NamedSubscription("none", "app", true, false),
                ClientAccess.UNRESTRICTED))).isEqualTo(ErrorKind.NOT_FOUND);
        assertThat(host.findSubscription(new NamedSubscription("none", "app", true, false),
                ClientAccess.UNRESTRICTED).join()).isEmpty();
    }

    @Test
    void aClientIdWithAColonCannotReachAnotherClientsSubscriptionThroughItsQueueName() {
        NamedSubscription theirs = new NamedSubscription("b:c", "a", true, false);
        NamedSubscription mine = new NamedSubscription("c", "a:b", true, false);
        assertThat(theirs.queueName()).isEqualTo(mine.queueName());
        host.subscribe("events", new RecordingConsumer(), options(theirs)).join().close();
        assertThat(host.subscribe("events", new RecordingConsumer(), options(mine))).failsWithin(Duration.ofSeconds(10))
                .withThrowableThat().withMessageContaining("holds durable subscription 'b:c' of client 'a'");
        assertThat(failure(host.unsubscribe(mine, ClientAccess.UNRESTRICTED))).isEqualTo(ErrorKind.NOT_FOUND);
        assertThat(host.findSubscription(mine, ClientAccess.UNRESTRICTED).join()).isEmpty();
        assertThat(host.unsubscribe(theirs, ClientAccess.UNRESTRICTED)).succeedsWithin(Duration.ofSeconds(10));
    }
}
