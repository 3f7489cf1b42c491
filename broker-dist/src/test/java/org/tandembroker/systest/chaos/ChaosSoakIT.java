package org.tandembroker.systest.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.tandembroker.systest.cluster.ContainerEnvironment;

/**
 * The chaos soak ({@link ChaosSoak}) in two profiles:
 * <ul>
 *   <li>in {@code mvn verify}: a short run of a three-node group with fixed seeds, about three minutes;</li>
 *   <li>for releases: {@code bin/chaos --duration 30m} (system properties {@code chaos.duration},
 *       {@code chaos.topology}, {@code chaos.durability}, {@code chaos.seed}, {@code chaos.faults}), a long run
 *       with a random seed unless one is given.</li>
 * </ul>
 * Reports go to {@code target/chaos/}.
 */
class ChaosSoakIT {
    private static final Path REPORTS = Path.of(System.getProperty("basedir", ".")).resolve("target/chaos");

    @BeforeAll
    static void requireDocker() {
        ContainerEnvironment.requireDocker();
    }

    @Test
    void aThreeNodeGroupUnderSeededRandomFaultsLosesNoConfirmedMessageAndItsNodesConverge() {
        ChaosResult result = new ChaosSoak(new ChaosOptions(ChaosTopology.THREE_NODES, null, 20261125L,
                Duration.ofSeconds(60), 4, REPORTS)).run();

        assertThat(result.failures()).as(result.describe()).isEmpty();
        assertThat(result.steps()).isGreaterThan(0);
        assertThat(result.confirmed()).isPositive();
        assertThat(result.lost()).isZero();
        assertThat(result.digests()).hasSize(3);
    }

    @Test
    @EnabledIfSystemProperty(named = "chaos.duration", matches = ".+")
    void releaseSoak() {
        long seed = Long.getLong("chaos.seed", ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE / 2));
        Duration duration = ChaosOptions.parseDuration(System.getProperty("chaos.duration"));
        int faults = Integer.getInteger("chaos.faults", 100_000);
        String topology = System.getProperty("chaos.topology", "three");
        String durability = System.getProperty("chaos.durability", "default");
        List<ChaosOptions> runs = new ArrayList<>();
        if (topology.equals("all") || durability.equals("all")) {
            // The release matrix: every topology with the default durability, then three nodes with the others.
            runs.add(new ChaosOptions(ChaosTopology.THREE_NODES, null, seed, duration, faults, REPORTS));
            runs.add(new ChaosOptions(ChaosTopology.TWO_NODES_OPERATOR, null, seed + 1, duration, faults, REPORTS));
            runs.add(new ChaosOptions(ChaosTopology.TWO_NODES_ARBITER, null, seed + 2, duration, faults, REPORTS));
            runs.add(new ChaosOptions(ChaosTopology.THREE_NODES, "SYNC,SYNC,ALL", seed + 3, duration, faults,
                    REPORTS));
            runs.add(new ChaosOptions(ChaosTopology.THREE_NODES, ChaosSoak.LOSSY_DURABILITY, seed + 4, duration,
                    faults, REPORTS));
        } else {
            runs.add(new ChaosOptions(ChaosTopology.parse(topology), durability, seed, duration, faults, REPORTS));
        }
        List<String> failed = new ArrayList<>();
        for (ChaosOptions options : runs) {
            ChaosResult result = new ChaosSoak(options).run();
            if (!result.passed()) {
                failed.add(result.describe());
            }
        }

        assertThat(failed).as("failed soaks").isEmpty();
    }
}
