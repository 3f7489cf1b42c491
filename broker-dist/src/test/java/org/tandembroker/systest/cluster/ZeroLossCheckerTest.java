package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The zero-loss ledger's own rules, without any broker. */
class ZeroLossCheckerTest {
    private final ZeroLossChecker checker = new ZeroLossChecker();

    @Test
    void everySettledMessageReceivedOnceInOrderIsZeroLossWithoutDuplicates() {
        settle("p1", 5);
        settle("p2", 3);
        receiveInOrder("c1", "p1", 0, 5);
        receiveInOrder("c1", "p2", 0, 3);

        ZeroLossChecker.Report report = checker.report();

        assertThat(report.zeroLoss()).isTrue();
        assertThat(report.settled()).isEqualTo(8);
        assertThat(report.received()).isEqualTo(8);
        assertThat(report.distinctReceived()).isEqualTo(8);
        assertThat(report.duplicates()).isZero();
        assertThat(report.orderViolationCount()).isZero();
        report.assertZeroLoss().assertInOrderApartFromRedeliveries().assertNoDuplicates();
    }

    @Test
    void aSettledMessageNobodyReceivedIsLostAndNamedByProducerAndSequence() {
        settle("p1", 10);
        for (long s : new long[] {0, 1, 2, 6, 7, 8}) {
            checker.received("c1", "p1", s, false);
        }

        ZeroLossChecker.Report report = checker.report();

        assertThat(report.zeroLoss()).isFalse();
        assertThat(report.lost()).containsOnlyKeys("p1");
        assertThat(report.lost().get("p1")).containsExactly(3L, 4L, 5L, 9L);
        assertThat(report.lostCount()).isEqualTo(4);
        assertThatThrownBy(report::assertZeroLoss).isInstanceOf(AssertionError.class)
                .hasMessageContaining("lost 4").hasMessageContaining("p1: 3-5, 9");
    }

    @Test
    void excusedMessagesAreNotWaitedForButStillReportedAsLost() {
        settle("durable", 3);
        settle("unreplicated", 4);
        receiveInOrder("c1", "durable", 0, 3);
        checker.received("c1", "unreplicated", 0, false);

        ZeroLossChecker.Report report = checker.awaitZeroLossExcept(Duration.ofSeconds(5),
                (producer, sequence) -> producer.equals("unreplicated"));

        assertThat(report.lost()).containsOnlyKeys("unreplicated");
        assertThat(report.lost().get("unreplicated")).containsExactly(1L, 2L, 3L);
        assertThat(report.lostExcept((producer, sequence) -> producer.equals("unreplicated"))).isEmpty();
        report.assertZeroLossExcept((producer, sequence) -> producer.equals("unreplicated"));
        assertThatThrownBy(() -> report.assertZeroLossExcept((producer, sequence) -> sequence < 2))
                .isInstanceOf(AssertionError.class).hasMessageContaining("unreplicated: 1-3");
    }

    @Test
    void duplicatesAreCountedAndReportedButAreNotLoss() {
        settle("p1", 3);
        receiveInOrder("c1", "p1", 0, 3);
        checker.received("c1", "p1", 1, true);
        checker.received("c2", "p1", 2, false);

        ZeroLossChecker.Report report = checker.report();

        assertThat(report.zeroLoss()).isTrue();
        assertThat(report.received()).isEqualTo(5);
        assertThat(report.distinctReceived()).isEqualTo(3);
        assertThat(report.duplicates()).isEqualTo(2);
        assertThat(report.summary()).contains("2 duplicates");
        assertThatThrownBy(report::assertNoDuplicates).hasMessageContaining("duplicates received");
    }

    @Test
    void aFailedSendIsInDoubtNotLostWhetherOrNotItArrives() {
        long first = checker.attempting("p1");
        checker.failed("p1", first);
        long second = checker.attempting("p1");
        checker.failed("p1", second);
        settle("p1", 1);
        checker.received("c1", "p1", second, false);
        checker.received("c1", "p1", 2, false);

        ZeroLossChecker.Report report = checker.report();

        assertThat(report.zeroLoss()).isTrue();
        assertThat(report.settled()).isEqualTo(1);
        assertThat(report.inDoubt()).isEqualTo(2);
        assertThat(report.failedSends()).isEqualTo(2);
        assertThat(report.inDoubtReceived()).isEqualTo(1);
    }

    @Test
    void aSendStillInFlightIsInDoubtUntilSettled() {
        long sequence = checker.attempting("p1");

        assertThat(checker.report().zeroLoss()).isTrue();
        assertThat(checker.report().inDoubt()).isEqualTo(1);

        checker.settled("p1", sequence);

        assertThat(checker.report().lost().get("p1")).containsExactly(sequence);
    }

    @Test
    void aProducerIdUsedAgainContinuesItsNumbering() {
        settle("p1", 3);

        assertThat(checker.attempting("p1")).isEqualTo(3);
        assertThat(checker.attempting("p2")).isZero();
    }

    @Test
    void aMessageReceivedForTheFirstTimeAfterALaterOneOfItsProducerIsAnOrderViolation() {
        settle("p1", 4);
        checker.received("c1", "p1", 0, false);
        checker.received("c1", "p1", 2, false);
        checker.received("c1", "p1", 1, false);
        checker.received("c1", "p1", 3, false);

        ZeroLossChecker.Report report = checker.report();

        assertThat(report.zeroLoss()).isTrue();
        assertThat(report.orderViolationCount()).isEqualTo(1);
        assertThat(report.orderViolations()).containsExactly(
                "c1 got p1#1 (not marked redelivered) after p1#2");
        assertThatThrownBy(report::assertInOrderApartFromRedeliveries)
                .hasMessageContaining("per-producer order violated");
    }

    @Test
    void aRedeliveryOrDuplicateMayArriveLate() {
        settle("p1", 4);
        checker.received("c1", "p1", 0, false);
        checker.received("c1", "p1", 2, false);
        checker.received("c1", "p1", 1, true);  // redelivered: came back after c1 saw 2
        checker.received("c1", "p1", 0, false); // a duplicate, whatever its flag
        checker.received("c1", "p1", 3, false);

        checker.report().assertZeroLoss().assertInOrderApartFromRedeliveries();
    }

    @Test
    void anInDoubtMessageSurfacingLateIsNoOrderViolation() {
        ZeroLossChecker checker = new ZeroLossChecker();
        for (int i = 0; i < 3; i++) {
            long sequence = checker.attempting("p");
            if (i == 0) {
                checker.failed("p", sequence);
            } else {
                checker.settled("p", sequence);
            }
        }
        checker.received("c", "p", 1, false);
        checker.received("c", "p", 2, false);
        checker.received("c", "p", 0, false);

        ZeroLossChecker.Report report = checker.report();

        assertThat(report.orderViolationCount()).isZero();
        assertThat(report.inDoubtReceived()).isEqualTo(1);
    }

    @Test
    void orderIsPerConsumerAndPerProducer() {
        settle("p1", 4);
        settle("p2", 2);
        checker.received("c1", "p1", 1, false);
        checker.received("c2", "p1", 0, false); // another consumer's share: not a violation
        checker.received("c2", "p2", 1, false);
        checker.received("c1", "p2", 0, false); // another producer's numbering
        checker.received("c1", "p1", 3, false);
        checker.received("c2", "p1", 2, false);

        checker.report().assertZeroLoss().assertInOrderApartFromRedeliveries();
    }

    @Test
    void aMessageNoProducerSentIsUnexpectedAndBreaksZeroLoss() {
        settle("p1", 2);
        receiveInOrder("c1", "p1", 0, 2);
        checker.received("c1", "p1", 7, false);
        checker.received("c1", "ghost", 0, false);
        checker.receivedUnidentified("c1", "ID:foreign-1");

        ZeroLossChecker.Report report = checker.report();

        assertThat(report.lost()).isEmpty();
        assertThat(report.unexpectedCount()).isEqualTo(3);
        assertThat(report.zeroLoss()).isFalse();
        assertThat(report.unexpected()).containsExactly(
                "c1 got p1#7, which no producer sent",
                "c1 got ghost#0, which no producer sent",
                "c1 got a message without producer/sequence properties: ID:foreign-1");
        assertThatThrownBy(report::assertZeroLoss).hasMessageContaining("unexpected 3");
    }

    @Test
    void settlingOrFailingASendThatWasNeverAttemptedIsAProgrammingError() {
        assertThatThrownBy(() -> checker.settled("p1", 0)).isInstanceOf(IllegalArgumentException.class);
        checker.attempting("p1");
        assertThatThrownBy(() -> checker.failed("p1", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void lostSequencesAreShownAsRangesAndCappedInTheSummary() {
        TreeSet<Long> everyOther = new TreeSet<>();
        LongStream.range(0, 50).map(i -> i * 2).forEach(everyOther::add);

        assertThat(ZeroLossChecker.Report.ranges(new TreeSet<>(java.util.List.of(1L, 2L, 3L, 7L, 9L, 10L))))
                .isEqualTo("1-3, 7, 9-10");
        assertThat(ZeroLossChecker.Report.ranges(everyOther))
                .startsWith("0, 2, 4").endsWith("38, ... (30 more ranges)");
    }

    @Test
    void awaitZeroLossReturnsOnceTheLastSettledMessageArrives() throws Exception {
        settle("p1", 3);
        receiveInOrder("c1", "p1", 0, 2);
        CountDownLatch waiting = new CountDownLatch(1);
        Thread lateConsumer = new Thread(() -> {
            try {
                waiting.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            checker.received("c1", "p1", 2, false);
        });
        lateConsumer.start();
        waiting.countDown();

        ZeroLossChecker.Report report = checker.awaitZeroLoss(Duration.ofSeconds(30));

        assertThat(report.zeroLoss()).isTrue();
        assertThat(report.distinctReceived()).isEqualTo(3);
        lateConsumer.join();
    }

    @Test
    void awaitZeroLossFailsWithTheReportWhenAMessageNeverArrives() {
        settle("p1", 3);
        receiveInOrder("c1", "p1", 0, 2);

        assertThatThrownBy(() -> checker.awaitZeroLoss(Duration.ofMillis(300)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("settled messages still missing")
                .hasMessageContaining("p1: 2");
    }

    @Test
    void awaitZeroLossFailsAtOnceWhenEveryConsumerHasStopped() {
        settle("p1", 1);
        CountingConsumer neverStarted = new CountingConsumer("c1", null, "q", checker);

        assertThatThrownBy(() -> checker.awaitZeroLoss(Duration.ofMinutes(10), neverStarted))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("every consumer stopped with settled messages still missing")
                .hasMessageContaining("p1: 0");
    }

    private void settle(String producer, int count) {
        for (int i = 0; i < count; i++) {
            checker.settled(producer, checker.attempting(producer));
        }
    }

    private void receiveInOrder(String consumer, String producer, long from, long to) {
        for (long s = from; s < to; s++) {
            checker.received(consumer, producer, s, false);
        }
    }
}
