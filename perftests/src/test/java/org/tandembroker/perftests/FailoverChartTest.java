package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FailoverChartTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    private static FailoverResult measured(int nodes, long depth, int size, double toFirst) {
        return new FailoverResult(new FailoverCell(nodes, depth, size), FailoverResult.Status.MEASURED, "",
                Duration.ZERO, Optional.empty(), Optional.of(Duration.ofMillis((long) (toFirst * 1000))),
                Optional.empty(), 1, 1, 0);
    }

    @Test
    void oneSeriesPerGroupAndMessageSizeWithItsMeasuredPointsByDepth() {
        List<FailoverResult> results = List.of(measured(2, 100_000, 2048, 3.0), measured(2, 0, 2048, 1.0),
                measured(2, 0, 20480, 1.5), FailoverResult.skipped(new FailoverCell(2, 500_000, 20480), "too large"),
                measured(3, 0, 2048, 2.5), FailoverResult.failed(new FailoverCell(3, 100_000, 2048), "broken"));

        var series = FailoverChart.series(results);

        assertThat(series).containsOnlyKeys("2 nodes, 2 KiB (from designation)", "2 nodes, 20 KiB (from designation)",
                "3 nodes, 2 KiB (from kill -9)");
        assertThat(series.get("2 nodes, 2 KiB (from designation)")).containsExactly(
                new FailoverChart.Point(0, 1.0), new FailoverChart.Point(100_000, 3.0));
        assertThat(series.get("2 nodes, 20 KiB (from designation)")).containsExactly(new FailoverChart.Point(0, 1.5));
        assertThat(series.get("3 nodes, 2 KiB (from kill -9)")).containsExactly(new FailoverChart.Point(0, 2.5));
    }

    @Test
    void writesAPngWhenSomethingWasMeasuredAndNothingOtherwise(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("failover.png");
        List<FailoverResult> results = List.of(measured(2, 0, 2048, 0.9), measured(2, 500_000, 2048, 7.4),
                measured(3, 500_000, 2048, 16.2));

        assertThat(FailoverChart.write(results, png)).isTrue();

        byte[] bytes = Files.readAllBytes(png);
        assertThat(Arrays.copyOf(bytes, 8)).isEqualTo(PNG_SIGNATURE);
        assertThat(bytes.length).isGreaterThan(5_000);
        assertThat(FailoverChart.targets(results)).containsOnlyKeys("target, 2 nodes", "target, 3 nodes");

        Path none = dir.resolve("none.png");
        assertThat(FailoverChart.write(List.of(FailoverResult.skipped(new FailoverCell(2, 1, 1), "x")), none))
                .isFalse();
        assertThat(none).doesNotExist();
    }
}
