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

    @Test
    void theMissingMessagesAreNamedWithWhenTheirConfirmationCame() {
        DeliveryLedger ledger = new DeliveryLedger(2);
        long before = System.nanoTime();
        for (int sequence = 0; sequence < 200; sequence++) { // beyond the initial capacity of the times
            ledger.confirmed(1, sequence);
            ledger.arrived(1, sequence);
        }
        ledger.confirmed(0, 0);
        ledger.confirmed(1, 200);
        long after = System.nanoTime();
        ledger.arrived(0, 0);

        assertThat(ledger.missing()).singleElement().satisfies(missing -> {
            assertThat(missing.producer()).isEqualTo(1);
            assertThat(missing.sequence()).isEqualTo(200);
            assertThat(missing.confirmedAtNanos()).isBetween(before, after);
        });
        assertThat(ledger.lastConfirmed(1)).isEqualTo(200);
        assertThat(ledger.lastConfirmed(0)).isEqualTo(0);
    }
}
