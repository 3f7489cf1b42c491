package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeliveryLedgerTest {

    @Test
    void aConfirmedMessageThatNeverArrivedIsMissing() {
        DeliveryLedger ledger = new DeliveryLedger(2);
        ledger.confirmed(0, 0);
        ledger.confirmed(0, 1);
        ledger.confirmed(1, 0);
        ledger.arrived(0, 0);
        ledger.arrived(1, 0);

        DeliveryLedger.Check check = ledger.check();

        assertThat(check.confirmed()).isEqualTo(3);
        assertThat(check.missing()).isEqualTo(1);
        assertThat(check.complete()).isFalse();
    }

    @Test
    void aRedeliveryCountsAsDuplicateAndAnUnconfirmedArrivalIsNotMissing() {
        DeliveryLedger ledger = new DeliveryLedger(1);
        ledger.confirmed(0, 0);
        ledger.arrived(0, 0);
        ledger.arrived(0, 0);
        ledger.arrived(0, 1); // its send failed or was still in flight: in doubt, not lost

        DeliveryLedger.Check check = ledger.check();

        assertThat(check.complete()).isTrue();
        assertThat(check.duplicates()).isEqualTo(1);
        assertThat(check.unconfirmedArrivals()).isEqualTo(1);
        assertThat(check.received()).isEqualTo(2);
        assertThat(ledger.confirmedArrivals()).isEqualTo(1);
    }
}
