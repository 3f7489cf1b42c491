package org.tandembroker.core.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.config.BrokerConfig;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.config.ListenerConfig;
import org.tandembroker.core.config.ManagementConfig;

/** What a broker checks before it opens any store: its ports, and that no other broker uses its work directory. */
class StartupChecksTest {
    @TempDir
    Path directory;

    @Test
    void aPortInUseIsNamedWithTheElementThatAsksForIt() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            BrokerConfig config = config(new ManagementConfig(ManagementConfig.Jmx.OFF,
                    new ManagementConfig.Metrics(true, "127.0.0.1", port), ManagementConfig.DiskWatermark.OFF));

            assertThatThrownBy(() -> PortCheck.requireFree(config)).isInstanceOf(StartupFailure.class)
                    .hasMessageStartingWith("port " + port + " on 127.0.0.1 for metrics and health "
                            + "(<management><metrics port>) in " + config.sourceFile() + " is not available");
        }
    }

    @Test
    void freePortsAndEphemeralListenersPass() throws Exception {
        PortCheck.requireFree(config(ManagementConfig.OFF));
    }

    @Test
    void aSecondLockOnAWorkDirectorySaysAnotherBrokerUsesItUntilTheFirstIsReleased() throws Exception {
        WorkDirectoryLock first = WorkDirectoryLock.acquire(directory);
        assertThat(Files.readString(directory.resolve(WorkDirectoryLock.FILE_NAME)))
                .isEqualTo(String.valueOf(ProcessHandle.current().pid()));

        assertThatThrownBy(() -> WorkDirectoryLock.acquire(directory)).isInstanceOf(StartupFailure.class)
                .hasMessage("work directory " + directory + " is in use by another broker (pid "
                        + ProcessHandle.current().pid() + "): stop it, or give this broker a work directory of its "
                        + "own (--work DIR)");

        first.close();
        WorkDirectoryLock.acquire(directory).close();
    }

    private BrokerConfig config(ManagementConfig management) {
        return new BrokerConfig(directory.resolve("broker.xml"),
                List.of(new ListenerConfig("amqp", "127.0.0.1", 0, Optional.empty())), "localhost:5672",
                directory.resolve("users"), false, ConnectionLimits.DEFAULTS, 0, List.of(), "default", management);
    }
}
