package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;

import com.sleepycat.je.DiskLimitException;
import com.sleepycat.je.EnvironmentFailureException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;

class StoreHealthTest {
    private final StoreFixture fixture = new StoreFixture(Path.of("unused"));
    private final List<String> environmentFailures = new ArrayList<>();
    private final StoreHealth health = new StoreHealth("bdb store of test", fixture.operationalLog,
            environmentFailures::add);

    @Test
    void aDiskFullEpisodeIsLoggedOnceAndTheNextSuccessLogsWritableAgain() {
        Throwable first = health.failed(new DiskLimitException(null, "Disk usage is not within je.maxDisk\nmore"));
        Throwable second = health.failed(new DiskLimitException(null, "Disk usage is not within je.maxDisk"));

        assertThat(first).isInstanceOf(BrokerException.class)
                .hasMessageStartingWith("store disk full: ")
                .hasMessageEndingWith("Disk usage is not within je.maxDisk"); // one line: the rest is dropped
        assertThat(((BrokerException) first).kind()).isEqualTo(ErrorKind.RESOURCE_LIMIT_EXCEEDED);
        assertThat(((BrokerException) second).kind()).isEqualTo(ErrorKind.RESOURCE_LIMIT_EXCEEDED);
        assertThat(fixture.linesWithCode("MST-1008")).isEqualTo(1);
        assertThat(health.diskFull()).isTrue();

        health.succeeded();
        health.succeeded();

        assertThat(health.diskFull()).isFalse();
        assertThat(fixture.linesWithCode("MST-1009")).isEqualTo(1);
        assertThat(fixture.logLines).hasSize(2);

        health.failed(new DiskLimitException(null, "full again"));
        assertThat(fixture.linesWithCode("MST-1008")).isEqualTo(2);
    }

    @Test
    void anEnvironmentFailureMakesTheStoreUnusableAndIsReportedOnce() {
        Throwable first = health.failed(EnvironmentFailureException.unexpectedState("log checksum"));
        health.failed(EnvironmentFailureException.unexpectedState("again"));

        assertThat(((BrokerException) first).kind()).isEqualTo(ErrorKind.INTERNAL_ERROR);
        assertThat(first.getMessage()).startsWith("store environment failed, restart the broker");
        assertThat(health.environmentFailure()).contains("log checksum");
        assertThat(environmentFailures).hasSize(1);
        assertThat(fixture.linesWithCode("MST-1008")).isEqualTo(1);
    }

    @Test
    void otherFailuresAreInternalErrorsAndBrokerExceptionsPassUnchanged() {
        BrokerException notActive = new BrokerException(ErrorKind.NOT_ACTIVE, "closed");

        assertThat(health.failed(notActive)).isSameAs(notActive);
        assertThat(((BrokerException) health.failed(new IllegalStateException("bug"))).kind())
                .isEqualTo(ErrorKind.INTERNAL_ERROR);
        assertThat(fixture.logLines).isEmpty();
    }
}
