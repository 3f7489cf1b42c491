package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RollbackDetailsTest {

    @Test
    void quotesJesAccountOfWhatWasRolledBackEvenWhenItIsNotTheFirstLine() {
        String info = "(JE 18.3.12) rethrown in the environment constructor\n"
                + "(JE 18.3.12) node1(1):/store Node node1(1):/store must rollback 2 total commits(1 of which were"
                + " durable) to the earliest point indicated by transaction id=-268 time=2026-11-21 08:21:50.1";
        assertThat(OperatorMessages.rollbackDetails(info))
                .startsWith("must rollback 2 total commits").contains("transaction id=-268").doesNotContain("\n");
    }

    @Test
    void saysSoWhenJeGaveNoDetails() {
        assertThat(OperatorMessages.rollbackDetails(null)).isEqualTo("JE gave no details");
    }
}
