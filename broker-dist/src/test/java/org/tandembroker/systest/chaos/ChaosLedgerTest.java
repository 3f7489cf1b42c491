package org.tandembroker.systest.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChaosLedgerTest {
    private static final List<String> QUEUE = List.of("q");

    @Test
    void producersResumeWhenEveryProducerWorkingAtTheFaultHadALaterSendConfirmed() {
        ChaosLedger ledger = new ChaosLedger();
        long a0 = ledger.attempting("a", QUEUE);
        long b0 = ledger.attempting("b", QUEUE);
        ledger.settled("a", a0, QUEUE);

        ledger.faultInjected("kill-master");
        ledger.settled("b", b0, QUEUE); // attempted before the fault: its confirmation does not count
        long a1 = ledger.attempting("a", QUEUE);
        ledger.settled("a", a1, QUEUE);

        assertThat(ledger.producerResumeTimes()).isEmpty();
        assertThat(ledger.unresolvedProducerResumes()).containsExactly("kill-master (waiting for [b])");

        long b1 = ledger.attempting("b", QUEUE);
        ledger.settled("b", b1, QUEUE);

        assertThat(ledger.producerResumeTimes()).singleElement()
                .satisfies(time -> {
                    assertThat(time.kind()).isEqualTo("kill-master");
                    assertThat(time.millis()).isGreaterThanOrEqualTo(0);
                });
        assertThat(ledger.unresolvedProducerResumes()).isEmpty();
    }

    @Test
    void aFailedSendAfterTheFaultDoesNotCountAsResumed() {
        ChaosLedger ledger = new ChaosLedger();
        ledger.settled("a", ledger.attempting("a", QUEUE), QUEUE);
        ledger.faultInjected("partition-master");

        ledger.failed("a", ledger.attempting("a", QUEUE), QUEUE);

        assertThat(ledger.producerResumeTimes()).isEmpty();
        assertThat(ledger.unresolvedProducerResumes()).containsExactly("partition-master (waiting for [a])");
    }
}
