package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.exec.OwningThread;

/**
 * A connection that arrives while the node neither serves nor knows who does (an election) is held and answered
 * once that is decided, so that a failover client does not back off; otherwise it is answered at once.
 */
class ClientAdmissionTest {
    private static final Duration LONG = Duration.ofMinutes(1);

    private final OwningThread lifecycleThread = new OwningThread("vhost-test");
    private final ExecutorService lifecycle = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "vhost-test");
        lifecycleThread.adopt(thread);
        return thread;
    });
    private final ServingStatus status = new ServingStatus("test", lifecycleThread);
    private final ClientAdmission admission = new ClientAdmission("test", status, null);

    @AfterEach
    void stop() {
        lifecycle.shutdownNow();
    }

    private void onLifecycle(Runnable change) {
        CompletableFuture.runAsync(change, lifecycle).join();
    }

    @Test
    void aConnectionArrivingDuringAnElectionIsAdmittedWhenTheNodeStartsServing() {
        CompletableFuture<Admission> answer = admission.admitOrWait(new Client(), LONG);
        assertThat(answer).isNotDone();

        onLifecycle(status::becameActive);

        assertThat(answer).succeedsWithin(Duration.ofSeconds(10)).isInstanceOf(Admission.Admitted.class);
        assertThat(admission.connectionCount()).isEqualTo(1);
    }

    @Test
    void aConnectionArrivingDuringAnElectionIsRedirectedOnceTheNewMasterIsKnown() {
        CompletableFuture<Admission> answer = admission.admitOrWait(new Client(), LONG);

        onLifecycle(() -> status.activeNodeIs("node2:5672"));

        assertThat(answer).succeedsWithin(Duration.ofSeconds(10)).isInstanceOfSatisfying(Admission.Refused.class,
                refused -> assertThat(refused.redirectAddress()).isEqualTo("node2:5672"));
        assertThat(admission.connectionCount()).isZero();
    }

    @Test
    void aHeldConnectionIsRefusedWithoutARedirectWhenNothingIsDecidedInTime() {
        CompletableFuture<Admission> answer = admission.admitOrWait(new Client(), Duration.ofMillis(50));

        await().atMost(Duration.ofSeconds(10)).until(answer::isDone);
        assertThat(answer.join()).isInstanceOfSatisfying(Admission.Refused.class,
                refused -> assertThat(refused.redirectAddress()).isNull());
    }

    @Test
    void aReplicaThatKnowsTheMasterAndAServingNodeAnswerAtOnce() {
        onLifecycle(() -> status.activeNodeIs("node1:5672"));
        assertThat(admission.admitOrWait(new Client(), LONG)).isCompletedWithValueMatching(
                answer -> answer instanceof Admission.Refused refused && "node1:5672".equals(refused.redirectAddress()));

        onLifecycle(status::becameActive);
        assertThat(admission.admitOrWait(new Client(), LONG))
                .isCompletedWithValueMatching(answer -> answer instanceof Admission.Admitted);
    }

    @Test
    void aStoppingHostRefusesTheConnectionsItHeld() {
        CompletableFuture<Admission> answer = admission.admitOrWait(new Client(), LONG);

        onLifecycle(status::stopped);

        assertThat(answer).succeedsWithin(Duration.ofSeconds(10)).isInstanceOf(Admission.Refused.class);
    }

    private static final class Client implements ClientConnection {
        @Override
        public String describe() {
            return "client";
        }

        @Override
        public void closeByBroker(String reason, String redirectAddress) {
        }
    }
}
