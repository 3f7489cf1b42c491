package org.tandembroker.core.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.message.ServerMessage;

class DeliveryScheduleTest {
    private final ManualQueueHost host = new ManualQueueHost();
    private final DeliverySchedule schedule = new DeliverySchedule();

    @Test
    void nothingIsTakenBeforeItsTimeAndDueMessagesComeEarliestFirstTiesInArrivalOrder() {
        ServerMessage late = host.message("late", null, 300);
        ServerMessage earlyA = host.message("early-a", null, 100);
        ServerMessage earlyB = host.message("early-b", null, 100);
        schedule.add(late);
        schedule.add(earlyA);
        schedule.add(earlyB);
        long now = host.nowMillis();

        assertThat(schedule.takeDue(now + 99)).isEmpty();
        assertThat(schedule.takeDue(now + 100)).containsExactly(earlyA, earlyB);
        assertThat(schedule.size()).isEqualTo(1);
        assertThat(schedule.takeDue(now + 10_000)).containsExactly(late);
        assertThat(schedule.isEmpty()).isTrue();
    }

    @Test
    void aTimerIsAskedForOnlyWhenNoneSetComesFirst() {
        long now = host.nowMillis();
        schedule.add(host.message("a", null, 500));
        assertThat(schedule.timerNeeded()).isEqualTo(now + 500);

        schedule.add(host.message("b", null, 800));
        assertThat(schedule.timerNeeded()).as("the timer at +500 comes first").isZero();

        schedule.add(host.message("c", null, 200));
        assertThat(schedule.timerNeeded()).as("an earlier message needs an earlier timer").isEqualTo(now + 200);

        schedule.timerFired(now + 200);
        assertThat(schedule.takeDue(now + 200)).hasSize(1);
        assertThat(schedule.timerNeeded()).as("after the timer fired, the next one").isEqualTo(now + 500);
    }

    @Test
    void anEmptyScheduleNeedsNoTimerAndClearForgetsEverything() {
        assertThat(schedule.timerNeeded()).isZero();
        schedule.add(host.message("a", null, 500));
        assertThat(schedule.messages()).hasSize(1);

        schedule.clear();

        assertThat(schedule.size()).isZero();
        assertThat(schedule.messages()).isEqualTo(List.of());
        assertThat(schedule.timerNeeded()).isZero();
    }
}
