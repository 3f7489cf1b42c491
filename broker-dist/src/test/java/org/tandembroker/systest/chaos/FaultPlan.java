package org.tandembroker.systest.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The faults of one soak, drawn from its seed before anything runs, so that a run replays with {@code --seed}: the
 * same kinds in the same order, aimed at the same roles (master or replica), held and rested for the same times,
 * overlapping at the same steps. Which node is master at a given moment depends on timing and is not part of the
 * plan; the role is.
 *
 * <p>Immutable.
 */
final class FaultPlan {
    /** What the nemesis does; {@code MASTER}/{@code REPLICA} is the role of the target at the moment of the fault. */
    enum Kind {
        KILL_MASTER, KILL_REPLICA, PAUSE_MASTER, PAUSE_REPLICA, PARTITION_MASTER, PARTITION_REPLICA,
        DISK_FULL_MASTER, DISK_FULL_REPLICA;

        boolean targetsMaster() {
            return name().endsWith("_MASTER");
        }

        boolean isKill() {
            return name().startsWith("KILL");
        }

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * One step: a fault, optionally a second one on another node {@code overlapAfterSeconds} later while the first
     * still holds, both held for {@code holdSeconds} (from the first), then healed; then {@code restSeconds} after
     * the group recovered.
     */
    record Step(int index, Kind kind, Kind overlapping, int overlapAfterSeconds, int holdSeconds, int restSeconds) {
        @Override
        public String toString() {
            return "#" + index + " " + kind.label() + (overlapping == null ? ""
                    : " + " + overlapping.label() + " after " + overlapAfterSeconds + " s")
                    + ", held " + holdSeconds + " s, rest " + restSeconds + " s";
        }
    }

    private final List<Step> steps;

    private FaultPlan(List<Step> steps) {
        this.steps = List.copyOf(steps);
    }

    /**
     * {@code count} steps from {@code seed}. Pauses and partitions are held longer than {@code minimumHoldSeconds}
     * (the heartbeat timeout plus a margin), so that the group notices.
     */
    static FaultPlan draw(long seed, int count, int minimumHoldSeconds, boolean overlaps) {
        // SplittableRandom mixes its seed: neighbouring seeds (the release matrix uses N..N+4) draw unrelated
        // plans, where java.util.Random's first draws from close seeds are alike.
        SplittableRandom random = new SplittableRandom(seed);
        Kind[] kinds = Kind.values();
        List<Step> steps = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            Kind kind = kinds[random.nextInt(kinds.length)];
            Kind second = null;
            int overlapAfter = 0;
            if (overlaps && random.nextInt(4) == 0) {
                second = kinds[random.nextInt(kinds.length)];
                overlapAfter = 1 + random.nextInt(4);
            }
            int hold = minimumHoldSeconds + random.nextInt(Math.max(1, minimumHoldSeconds));
            int rest = 3 + random.nextInt(8);
            steps.add(new Step(i, kind, second, overlapAfter, hold, rest));
        }
        return new FaultPlan(steps);
    }

    List<Step> steps() {
        return steps;
    }
}
