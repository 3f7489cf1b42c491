package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class GcLogTest {

    @Test
    void peaksComeFromPauseLinesOfAnyUnit() {
        GcLog gc = GcLog.parse(List.of(
                "[0.010s][info][gc] Using G1",
                "[1.234s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 2.500ms",
                "[5.000s][info][gc] GC(1) Pause Young (Concurrent Start) (G1 Humongous Allocation) 300M->120M(512M) 5.5ms",
                "[5.100s][info][gc] GC(2) Concurrent Mark Cycle 12.000ms",
                "[9.000s][info][gc] GC(3) Pause Full (G1 Compaction Pause) 511M->400M(512M) 900.000ms",
                "[9.500s][info][gc] GC(4) Pause Young (Normal) (G1 Evacuation Pause) 409600K->204800K(524288K) 1.0ms"));

        assertThat(gc.pauses()).isEqualTo(4);
        assertThat(gc.fullPauses()).isEqualTo(1);
        assertThat(gc.peakUsedBytes()).isEqualTo(511L << 20);
        assertThat(gc.peakAfterGcBytes()).isEqualTo(400L << 20);
        assertThat(gc.peakCommittedBytes()).isEqualTo(512L << 20);
        assertThat(gc.pauseMillis()).isEqualTo(909.0);
    }
}
