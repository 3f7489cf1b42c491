package org.tandembroker.systest.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of {@code src/test/python}'s python3-qpid-proton clients and returns what it printed. Required in CI
 * ({@code .ci/run} installs the package); skipped on a machine without it.
 */
final class PythonScript {
    private static final Path PYTHON = Path.of("/usr/bin/python3");

    private PythonScript() {
    }

    static void assumeAvailable() throws Exception {
        boolean available = Files.isExecutable(PYTHON) && new ProcessBuilder(PYTHON.toString(), "-c", "import proton")
                .start().waitFor() == 0;
        if (System.getenv("CI") == null) {
            assumeTrue(available, "python3-qpid-proton is not installed (apt-get install python3-qpid-proton)");
        } else {
            assertThat(available).as("CI must have python3-qpid-proton (installed by .ci/run)").isTrue();
        }
    }

    /** Runs {@code script} with {@code arguments}; fails unless it exits 0 within a minute. Returns its lines. */
    static List<String> run(String script, String... arguments) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(PYTHON.toString());
        command.add(Path.of("src/test/python", script).toAbsolutePath().toString());
        command.addAll(List.of(arguments));
        Process python = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(python.waitFor(60, TimeUnit.SECONDS)).as("python client finished").isTrue();
        String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(python.exitValue()).as("python client exit code; it printed:%n%s", output).isZero();
        return output.lines().toList();
    }
}
