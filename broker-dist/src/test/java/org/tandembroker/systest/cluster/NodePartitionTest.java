package org.tandembroker.systest.cluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class NodePartitionTest {

    @Test
    void withoutRootAPartitionCannotBeMadeAndTheTestIsSkippedOrInCiFailedSayingWhy() {
        String user = System.getProperty("user.name");
        System.setProperty("user.name", "operator");
        try {
            assertThatThrownBy(NodePartition::requireAvailable)
                    .isInstanceOf(ContainerEnvironment.isCi() ? AssertionError.class : TestAbortedException.class)
                    .hasMessageContaining("the tests do not run as root (user operator)")
                    .hasMessageContaining("nsenter -t PID -n iptables");
        } finally {
            System.setProperty("user.name", user);
        }
    }
}
