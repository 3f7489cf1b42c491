package org.tandembroker.systest.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The soak's plan replays from its seed; its options are checked. */
class FaultPlanTest {
    @Test
    void theSameSeedDrawsTheSameStepsAndAnotherSeedOthers() {
        FaultPlan first = FaultPlan.draw(42, 50, 8, true);
        FaultPlan again = FaultPlan.draw(42, 50, 8, true);
        FaultPlan other = FaultPlan.draw(43, 50, 8, true);

        assertThat(again.steps()).isEqualTo(first.steps());
        assertThat(other.steps()).isNotEqualTo(first.steps());
    }

    @Test
    void everyStepHoldsAtLeastTheMinimumAndAFewOverlap() {
        FaultPlan plan = FaultPlan.draw(7, 200, 8, true);

        assertThat(plan.steps()).allSatisfy(step -> assertThat(step.holdSeconds()).isBetween(8, 15));
        assertThat(plan.steps()).anySatisfy(step -> assertThat(step.overlapping()).isNotNull());
        assertThat(plan.steps()).extracting(FaultPlan.Step::kind).contains(FaultPlan.Kind.values());
    }

    @Test
    void optionsRefuseAnUnknownDurabilityAndParseDurations() {
        assertThatThrownBy(() -> new ChaosOptions(ChaosTopology.THREE_NODES, "SYNC,NONE", 1, Duration.ofMinutes(1), 1,
                Path.of("x"))).hasMessageContaining("durability SYNC,NONE: one of default");
        assertThat(ChaosOptions.parseDuration("30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(ChaosOptions.parseDuration("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(ChaosOptions.parseDuration("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(ChaosTopology.parse("arbiter")).isEqualTo(ChaosTopology.TWO_NODES_ARBITER);
    }
}
