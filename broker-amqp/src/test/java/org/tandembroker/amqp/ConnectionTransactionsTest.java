package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.qpid.proton.amqp.Binary;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.txn.LocalTransaction;

/**
 * A connection's transactions: a discharge runs only once every transfer of its transaction received before it is
 * decided, and a refused transfer, for whatever reason, fails its transaction.
 */
class ConnectionTransactionsTest {
    private final ConnectionTransactions transactions = new ConnectionTransactions();
    private final Binary txn = transactions.declare(new LocalTransaction() {
        @Override
        public CompletableFuture<Void> commit() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> rollback() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean isOpen() {
            return true;
        }
    });
    private final List<String> discharged = new ArrayList<>();

    @Test
    void aDischargeWaitsForTheTransfersReceivedBeforeIt() {
        transactions.publishing(txn);
        transactions.publishing(txn);

        assertThat(transactions.afterItsTransfers(txn, () -> discharged.add("discharge"))).isTrue();
        assertThat(discharged).isEmpty();
        transactions.decided(txn, null);
        assertThat(discharged).isEmpty();
        transactions.decided(txn, null);

        assertThat(discharged).containsExactly("discharge");
        assertThat(transactions.takeRollbackReason(txn)).isNull();
    }

    @Test
    void aDischargeWithNothingUndecidedRunsAtOnce() {
        transactions.publishing(txn);
        transactions.decided(txn, null);

        transactions.afterItsTransfers(txn, () -> discharged.add("discharge"));

        assertThat(discharged).containsExactly("discharge");
    }

    @Test
    void aRefusedTransferFailsItsTransactionWhateverTheReason() {
        transactions.publishing(txn);
        transactions.afterItsTransfers(txn, () -> discharged.add("discharge"));
        transactions.decided(txn, "virtual host 'default' is not active on this node");

        assertThat(discharged).containsExactly("discharge");
        assertThat(transactions.takeRollbackReason(txn))
                .isEqualTo("a message of the transaction was refused: virtual host 'default' is not active on this node");
    }

    @Test
    void aTransactionTakesNoTransferAndNoSecondDischargeOnceItsDischargeArrived() {
        transactions.publishing(txn);
        transactions.afterItsTransfers(txn, () -> discharged.add("first"));

        assertThat(transactions.find(txn)).as("a transfer after the discharge finds no transaction").isNull();
        assertThat(transactions.afterItsTransfers(txn, () -> discharged.add("second"))).isFalse();
        transactions.decided(txn, null);
        assertThat(discharged).containsExactly("first");
        assertThat(transactions.discharge(txn)).isNotNull();
    }

    @Test
    void aClosedConnectionForgetsWaitingDischarges() {
        transactions.publishing(txn);
        transactions.afterItsTransfers(txn, () -> discharged.add("discharge"));

        transactions.rollbackAll();
        transactions.decided(txn, "too late");

        assertThat(discharged).isEmpty();
        assertThat(transactions.takeRollbackReason(txn)).isNull();
    }
}
