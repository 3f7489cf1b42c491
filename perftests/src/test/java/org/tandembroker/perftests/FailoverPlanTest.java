package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailoverPlanTest {
    private static final long FOUR_GIB = 4L << 30;

    @Test
    void issueMatrixRunsTwelveCellsAndListsTheSixTooLargeOnesAsSkippedWithTheirSize() {
        FailoverPlan plan = FailoverPlan.of(List.of(2, 3), List.of(0L, 100_000L, 500_000L),
                List.of(2048, 20480, 204800), FOUR_GIB);

        assertThat(plan.entries()).hasSize(18);
        assertThat(plan.cellsToRun()).hasSize(12);
        assertThat(plan.entries()).filteredOn(e -> !e.runs()).extracting(FailoverPlan.Entry::cell)
                .containsExactly(new FailoverCell(2, 500_000, 20480), new FailoverCell(2, 100_000, 204800),
                        new FailoverCell(2, 500_000, 204800), new FailoverCell(3, 500_000, 20480),
                        new FailoverCell(3, 100_000, 204800), new FailoverCell(3, 500_000, 204800));
        FailoverPlan.Entry largest = plan.entries().stream()
                .filter(e -> e.cell().equals(new FailoverCell(2, 500_000, 204800))).findFirst().orElseThrow();
        assertThat(largest.skipReason()).hasValue(
                "500,000 x 200 KiB = 95.4 GiB queued exceeds --max-queued-bytes 4 GiB");
    }

    @Test
    void cellsRunByGroupThenMessageSizeThenDepth() {
        FailoverPlan plan = FailoverPlan.of(List.of(3, 2), List.of(100L, 0L), List.of(20480, 2048), Long.MAX_VALUE);

        assertThat(plan.cellsToRun()).containsExactly(
                new FailoverCell(3, 100, 20480), new FailoverCell(3, 0, 20480),
                new FailoverCell(3, 100, 2048), new FailoverCell(3, 0, 2048),
                new FailoverCell(2, 100, 20480), new FailoverCell(2, 0, 20480),
                new FailoverCell(2, 100, 2048), new FailoverCell(2, 0, 2048));
    }

    @Test
    void aCellExactlyAtTheLimitRunsAndOneByteMoreIsSkipped() {
        FailoverPlan plan = FailoverPlan.of(List.of(2), List.of(1024L, 1025L), List.of(1024), 1024L * 1024);

        assertThat(plan.entries()).extracting(FailoverPlan.Entry::runs).containsExactly(true, false);
    }

    @Test
    void repeatedValuesGiveOneCell() {
        FailoverPlan plan = FailoverPlan.of(List.of(2, 2), List.of(0L, 0L), List.of(2048, 2048), FOUR_GIB);

        assertThat(plan.entries()).hasSize(1);
    }

    @Test
    void impossibleValuesAreRefusedWithTheValue() {
        assertThatThrownBy(() -> FailoverPlan.of(List.of(1), List.of(0L), List.of(2048), FOUR_GIB))
                .hasMessageContaining("at least 2 nodes, not 1");
        assertThatThrownBy(() -> FailoverPlan.of(List.of(2), List.of(-5L), List.of(2048), FOUR_GIB))
                .hasMessageContaining("not -5");
        assertThatThrownBy(() -> FailoverPlan.of(List.of(2), List.of(), List.of(2048), FOUR_GIB))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTargetsAreTheIssuesTwoCells() {
        assertThat(new FailoverCell(2, 500_000, 2048).target()).hasValue(Duration.ofSeconds(2));
        assertThat(new FailoverCell(3, 500_000, 2048).target()).hasValue(Duration.ofSeconds(3));
        assertThat(new FailoverCell(2, 500_000, 20480).target()).isEmpty();
        assertThat(new FailoverCell(3, 100_000, 2048).target()).isEmpty();
        assertThat(new FailoverCell(2, 0, 2048).measuredFrom()).isEqualTo("designation");
        assertThat(new FailoverCell(3, 0, 2048).measuredFrom()).isEqualTo("kill -9");
    }

    @Test
    void byteSizesReadAndWriteInBinaryUnits() {
        assertThat(ByteSizeConverter.parse("4GiB")).isEqualTo(FOUR_GIB);
        assertThat(ByteSizeConverter.parse("2048")).isEqualTo(2048);
        assertThat(ByteSizeConverter.parse("1.5 KiB")).isEqualTo(1536);
        assertThat(ByteSizeConverter.format(204800)).isEqualTo("200 KiB");
        assertThat(ByteSizeConverter.format(1000)).isEqualTo("1,000 B");
        assertThatThrownBy(() -> ByteSizeConverter.parse("4GB")).hasMessageContaining("not a byte size");
    }
}
