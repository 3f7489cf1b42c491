package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FillCpuTest {
    private static final long SECOND = 1_000_000_000L;

    private static FillCpu.Sample sample(long nanoTime, long masterMillis, long replicaMillis, long clientMillis,
                                         long busyMillis) {
        return new FillCpu.Sample(nanoTime, Duration.ofMillis(masterMillis), Duration.ofMillis(replicaMillis),
                Duration.ofMillis(clientMillis), Duration.ofMillis(busyMillis));
    }

    @Test
    void eachPartsCpuIsDividedByTheSendsConfirmedAndTheRestOfTheMachinesBusyTimeIsTheKernelsAndOthers() {
        FillCpu.Sample start = sample(5 * SECOND, 1_000, 500, 2_000, 10_000);
        // 10 s on 2 cores: master 7 s, replica 2.5 s, clients 8 s, machine busy 19 s of 20
        FillCpu.Sample end = sample(15 * SECOND, 8_000, 3_000, 10_000, 29_000);

        FillCpu cpu = FillCpu.between(start, end, 100_000, 2).orElseThrow();

        assertThat(cpu.masterMicros()).isCloseTo(70, within(1e-9));
        assertThat(cpu.replicaMicros()).isCloseTo(25, within(1e-9));
        assertThat(cpu.clientMicros()).isCloseTo(80, within(1e-9));
        assertThat(cpu.restMicros()).isCloseTo(15, within(1e-9));
        assertThat(cpu.totalMicros()).isCloseTo(190, within(1e-9));
        assertThat(cpu.idlePercent()).isCloseTo(5, within(1e-9));
        assertThat(cpu.describe()).isEqualTo("70 / 25 / 80 / 15 µs, idle 5 %");
    }

    @Test
    void countersThatTickAtDifferentMomentsNeverMakeTheRestOrTheIdleShareNegative() {
        FillCpu.Sample start = sample(0, 0, 0, 0, 0);
        // the processes' counters ran a little ahead of the machine's, which counts in 10 ms steps
        FillCpu.Sample end = sample(SECOND, 1_000, 500, 520, 2_010);

        FillCpu cpu = FillCpu.between(start, end, 1_000, 2).orElseThrow();

        assertThat(cpu.restMicros()).isZero();
        assertThat(cpu.idlePercent()).isZero();
    }

    @Test
    void withoutConfirmedSendsOrWithoutTheMachinesCountersThereIsNoFigure() {
        FillCpu.Sample start = sample(0, 0, 0, 0, 0);

        assertThat(FillCpu.between(start, sample(SECOND, 100, 100, 100, 400), 0, 2)).isEmpty();
        assertThat(FillCpu.between(start, sample(SECOND, 100, 100, 100, 0), 1_000, 2))
                .as("/proc/stat unreadable: SystemCpu.busy() is zero").isEmpty();
    }
}
