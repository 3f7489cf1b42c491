package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WarmStartCurveTest {
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final int SLOTS_PER_SECOND = 1000 / WarmStartCurve.SLOT_MILLIS;

    /** Slots of a curve: nothing for {@code silentSeconds}, then the given messages per second, evenly spread. */
    private static long[] curve(int silentSeconds, int... perSecond) {
        long[] slots = new long[(silentSeconds + perSecond.length) * SLOTS_PER_SECOND];
        for (int s = 0; s < perSecond.length; s++) {
            for (int i = 0; i < SLOTS_PER_SECOND; i++) {
                slots[(silentSeconds + s) * SLOTS_PER_SECOND + i] = perSecond[s] / SLOTS_PER_SECOND;
            }
        }
        return slots;
    }

    private static WarmStartCurve.Reading read(long[] slots) {
        // Reported span 6 s, warm window 2 s starting 6 s after serving, 80 % within 3 s.
        return WarmStartCurve.read(slots, SECOND, Duration.ofSeconds(6), Duration.ofSeconds(6), Duration.ofSeconds(2),
                0.8, Duration.ofSeconds(3));
    }

    @Test
    void ratesAreCountedFromTheFirstServedMessageAgainstTheWarmWindow() {
        WarmStartCurve.Reading r = read(curve(2, 400, 500, 900, 1000, 1000, 1000, 1000, 1000));

        assertThat(r.toServing()).contains(Duration.ofSeconds(2));
        assertThat(r.warmRate()).isEqualTo(1000.0);
        assertThat(r.rates()).containsExactly(400, 500, 900, 1000, 1000, 1000);
        assertThat(r.ratios()).containsExactly(0.4, 0.5, 0.9, 1.0, 1.0, 1.0);
        assertThat(r.meanRatioToDeadline()).isCloseTo(0.6, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void theTargetIsMetWhenReachedAndHeldWithinTheDeadline() {
        WarmStartCurve.Reading r = read(curve(0, 400, 500, 900, 1000, 1000, 1000, 1000, 1000));

        assertThat(r.reached()).contains(Duration.ofSeconds(3));
        assertThat(r.met()).isTrue();
    }

    @Test
    void aLuckySecondFollowedByASlowStretchDoesNotCountAsReached() {
        WarmStartCurve.Reading r = read(curve(0, 900, 300, 300, 300, 900, 1000, 1000, 1000));

        assertThat(r.reached()).as("the first second is at 90 %%, but the mean after it is not")
                .contains(Duration.ofSeconds(5));
        assertThat(r.met()).isFalse();
    }

    @Test
    void aCurveThatNeverReachesTheTargetIsNeverReached() {
        WarmStartCurve.Reading r = read(curve(0, 100, 200, 300, 400, 500, 600, 1000, 1000));

        assertThat(r.reached()).isEmpty();
        assertThat(r.met()).isFalse();
    }

    @Test
    void aBrokerThatNeverServedHasNoReading() {
        WarmStartCurve.Reading r = read(new long[800]);

        assertThat(r.toServing()).isEmpty();
        assertThat(r.met()).isFalse();
        assertThat(r.rates()).isEmpty();
    }

    @Test
    void recordsCountIntoTheSlotOfTheirTimeAndIgnoreTimesOutsideTheCurve() {
        long origin = 1_000_000_000L;
        WarmStartCurve curve = new WarmStartCurve(origin, Duration.ofSeconds(1));

        curve.record(origin - 1);
        curve.record(origin);
        curve.record(origin + 25_000_000L);
        curve.record(origin + 25_000_001L);
        curve.record(origin + 1_000_000_000L);

        long[] slots = curve.slots();
        assertThat(slots).hasSize(100);
        assertThat(slots[0]).isEqualTo(1);
        assertThat(slots[2]).isEqualTo(2);
        assertThat(java.util.Arrays.stream(slots).sum()).isEqualTo(3);
    }

    @Test
    void aWarmWindowBeyondTheCurveIsRefused() {
        assertThatThrownBy(() -> WarmStartCurve.read(curve(0, 1000, 1000), SECOND, SECOND, Duration.ofSeconds(2),
                SECOND, 0.8, SECOND)).isInstanceOf(IllegalArgumentException.class);
    }
}
