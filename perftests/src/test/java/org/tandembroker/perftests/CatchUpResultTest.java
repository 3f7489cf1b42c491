package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CatchUpResultTest {

    private static CatchUpResult result(Optional<Duration> toCaughtUp, Optional<DeliveryLedger.Check> check) {
        return new CatchUpResult(10_000, 2048, "SIGTERM", Duration.ofSeconds(3), 20_012, Duration.ofMillis(1500),
                Optional.of(Duration.ofMillis(1800)), toCaughtUp, Optional.of(Duration.ofMillis(2900)), check, "");
    }

    @Test
    void ratesRunOverRestartToCaughtUpAndOverJoinedToCaughtUp() {
        CatchUpResult r = result(Optional.of(Duration.ofMillis(2800)), Optional.empty());

        assertThat(r.messagesPerSecond().getAsDouble()).isCloseTo(10_000 / 2.8, org.assertj.core.data.Offset.offset(0.01));
        assertThat(r.megabytesPerSecond().getAsDouble()).isCloseTo(10_000 * 2048 / 1e6 / 2.8,
                org.assertj.core.data.Offset.offset(1e-6));
        assertThat(r.joinedToCaughtUp()).hasValue(Duration.ofSeconds(1));
        assertThat(r.messagesPerSecondAfterJoining().getAsDouble()).isCloseTo(10_000,
                org.assertj.core.data.Offset.offset(0.01));

        List<String> row = r.markdown().rows().get(0);
        assertThat(row).contains("10,000", "2 KiB", "SIGTERM", "1.500 s", "1.800 s", "2.800 s", "1 s", "3,571", "7.3",
                "10,000", "20.5", "2.900 s", "20,012", "not checked");
        assertThat(r.csv().rows().get(0)).contains("2.800", "3571.4", "7.314", "10000.0", "20.480");
    }

    @Test
    void aReplicaThatNeverCaughtUpHasNoRate() {
        CatchUpResult r = result(Optional.empty(), Optional.empty());

        assertThat(r.messagesPerSecond()).isEmpty();
        assertThat(r.joinedToCaughtUp()).isEmpty();
        assertThat(r.markdown().rows().get(0)).contains("not within the timeout");
    }

    @Test
    void theCheckOnTheReplicaCountsMissingMessages() {
        CatchUpResult complete = result(Optional.of(Duration.ofSeconds(2)),
                Optional.of(new DeliveryLedger.Check(10_000, 10_000, 0, 2, 0)));
        CatchUpResult lossy = result(Optional.of(Duration.ofSeconds(2)),
                Optional.of(new DeliveryLedger.Check(10_000, 9_999, 1, 0, 0)));

        assertThat(complete.lossless()).isTrue();
        assertThat(complete.markdown().rows().get(0)).contains("10,000 of 10,000 (2 duplicates)");
        assertThat(lossy.lossless()).isFalse();
        assertThat(lossy.markdown().rows().get(0)).contains("9,999 of 10,000 (0 duplicates)");
    }
}
