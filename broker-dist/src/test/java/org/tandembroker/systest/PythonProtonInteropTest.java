package org.tandembroker.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second, independent AMQP 1.0 stack (Debian's python3-qpid-proton, the C Proton engine) against the broker:
 * the README's Python quick start. Required in CI ({@code .ci/run} installs the package); skipped on a developer
 * machine without it.
 */
class PythonProtonInteropTest {
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    @TempDir
    Path directory;

    @Test
    void pythonProtonClientSendsAndReceivesDurableMessages() throws Exception {
        boolean available = Files.isExecutable(PYTHON) && new ProcessBuilder(PYTHON.toString(), "-c", "import proton")
                .start().waitFor() == 0;
        if (System.getenv("CI") == null) {
            assumeTrue(available, "python3-qpid-proton is not installed (apt-get install python3-qpid-proton)");
        } else {
            assertThat(available).as("CI must have python3-qpid-proton (installed by .ci/run)").isTrue();
        }
        Path script = Path.of("src/test/python/send_receive.py").toAbsolutePath();
        try (EmbeddedBroker broker = new EmbeddedBroker(directory)) {
            Process python = new ProcessBuilder(PYTHON.toString(), script.toString(),
                    "amqp://guest:guest@127.0.0.1:" + broker.port(), "python.interop", "25")
                    .redirectErrorStream(true).start();
            assertThat(python.waitFor(60, TimeUnit.SECONDS)).as("python client finished").isTrue();
            String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(python.exitValue()).as("python client exit code; it printed:%n%s", output).isZero();
            List<String> expected = IntStream.range(0, 25).mapToObj(i -> "python-" + i).toList();
            assertThat(output.lines().toList()).containsExactlyElementsOf(expected);
        }
    }
}
