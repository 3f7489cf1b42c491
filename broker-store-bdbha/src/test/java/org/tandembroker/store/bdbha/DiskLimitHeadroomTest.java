package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.tandembroker.store.bdbha.DiskLimitHeadroom.decide;

import org.junit.jupiter.api.Test;
import org.tandembroker.store.bdbha.DiskLimitHeadroom.Limits;
import org.tandembroker.store.bdbha.DiskLimitHeadroom.Reading;
import org.tandembroker.store.bdbha.DiskLimitHeadroom.Step;

/** When a store over its maxDisk is given headroom, when the limit comes back, and when an operator must act. */
class DiskLimitHeadroomTest {
    private static final long MB = 1_000_000;
    /** finding 7's node: maxDisk 160 MB, je.freeDisk 8 MiB, 10 MB log files. */
    private static final Limits LIMITS = new Limits(160 * MB, 8L << 20, 10 * MB);

    @Test
    void aReplicaOverItsLimitWithRoomOnItsVolumeGetsThreeLogFilesOrFivePercentOfHeadroom() {
        Step step = decide(new Reading(false, true, -9_541, 116 * MB), LIMITS, 0);

        assertThat(step).isEqualTo(new Step.Grant(190 * MB, 30 * MB));
        assertThat(decide(new Reading(false, true, -1, 10_000 * MB), new Limits(2_000 * MB, 0, MB), 0))
                .isEqualTo(new Step.Grant(2_100 * MB, 100 * MB));
    }

    @Test
    void theHeadroomLeavesFreeDiskAndALogFileOnTheVolume() {
        Step step = decide(new Reading(false, true, -1, 40 * MB), LIMITS, 0);

        long room = 40 * MB - (8L << 20) - 10 * MB;
        assertThat(step).isEqualTo(new Step.Grant(160 * MB + room, room));
    }

    @Test
    void aFullVolumeNeedsAnOperatorNotHeadroom() {
        assertThat(decide(new Reading(false, true, -1, 20 * MB), LIMITS, 0))
                .isInstanceOf(Step.NeedsOperator.class)
                .extracting(step -> ((Step.NeedsOperator) step).reason()).asString()
                .contains("free space on the volume");
    }

    @Test
    void aStoreThatMayWriteIsLeftAlone() {
        assertThat(decide(new Reading(false, false, 5 * MB, 116 * MB), LIMITS, 0)).isEqualTo(new Step.Keep());
        assertThat(decide(new Reading(true, false, 5 * MB, 116 * MB), LIMITS, 0)).isEqualTo(new Step.Keep());
    }

    /** Finding 8: a master over its limit could not even remove what its consumers took; the group served nobody. */
    @Test
    void aMasterOverItsLimitWithRoomOnItsVolumeGetsHeadroomLikeAReplica() {
        assertThat(decide(new Reading(true, true, -547_071, 115 * MB), LIMITS, 0))
                .isEqualTo(new Step.Grant(190 * MB, 30 * MB));
    }

    @Test
    void theLimitIsRestoredOnceTheStoreIsUnderItWithALogFileToSpare() {
        long granted = 30 * MB;

        assertThat(decide(new Reading(false, false, 35 * MB, 116 * MB), LIMITS, granted)).isEqualTo(new Step.Keep());
        assertThat(decide(new Reading(false, false, 41 * MB, 116 * MB), LIMITS, granted))
                .isEqualTo(new Step.Restore(160 * MB));
    }

    @Test
    void aNodeThatBecomesMasterKeepsItsHeadroomUntilItIsBackUnderItsLimit() {
        assertThat(decide(new Reading(true, false, 10 * MB, 116 * MB), LIMITS, 30 * MB)).isEqualTo(new Step.Keep());
        assertThat(decide(new Reading(true, false, 41 * MB, 116 * MB), LIMITS, 30 * MB))
                .isEqualTo(new Step.Restore(160 * MB));
    }

    @Test
    void aStoreFarOverItsLimitGetsItsOverageAndTwoLogFiles() {
        assertThat(decide(new Reading(false, true, -50 * MB, 116 * MB), LIMITS, 0))
                .isEqualTo(new Step.Grant(230 * MB, 70 * MB));
    }

    @Test
    void aStoreStillOverItsLimitGetsAnotherStepUpToHalfItsMaxDiskThenNeedsAnOperator() {
        assertThat(decide(new Reading(false, true, -1, 116 * MB), LIMITS, 30 * MB))
                .isEqualTo(new Step.Grant(220 * MB, 60 * MB));
        assertThat(decide(new Reading(false, true, -1, 116 * MB), LIMITS, 60 * MB))
                .isEqualTo(new Step.Grant(240 * MB, 80 * MB));
        assertThat(decide(new Reading(false, true, -1, 116 * MB), LIMITS, 80 * MB))
                .isInstanceOf(Step.NeedsOperator.class)
                .extracting(step -> ((Step.NeedsOperator) step).reason()).asString()
                .contains("live data exceeds maxDisk");
    }
}
