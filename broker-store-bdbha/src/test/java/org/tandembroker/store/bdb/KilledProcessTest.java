package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker process killed with SIGKILL in the middle of committing loses no commit whose future had completed.
 * (A process kill leaves the OS page cache intact, so this proves that a future completes only after JE has
 * written the commit, not that it was fsynced; a power cut is out of reach of a unit test.)
 */
class KilledProcessTest {
    private static final int ACKNOWLEDGED_BEFORE_KILL = 500;

    @TempDir
    Path work;

    @Test
    void everyCommitAcknowledgedBeforeAKillIsRecovered() throws Exception {
        Path stderr = work.resolve("child-stderr.txt");
        Process child = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                CommittingProcess.class.getName(), work.toString())
                .redirectError(stderr.toFile())
                .start();
        Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
        Thread reader = new Thread(() -> readAcknowledgements(child, acknowledged), "child-stdout-reader");
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(45))
                    .failFast("the child exited by itself", () -> !child.isAlive())
                    .until(() -> acknowledged.size() >= ACKNOWLEDGED_BEFORE_KILL);
        } catch (RuntimeException e) {
            throw new AssertionError("the child did not acknowledge " + ACKNOWLEDGED_BEFORE_KILL
                    + " commits; its stderr:\n" + stderrOf(stderr), e);
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        reader.join(TimeUnit.SECONDS.toMillis(30)); // reads what the child printed before it died, then EOF
        assertThat(reader.isAlive()).isFalse();
        assertThat(child.exitValue()).as("killed, not exited").isNotZero();

        StoreFixture fixture = new StoreFixture(work);
        BdbMessageStore store = fixture.open(Map.of(), List.of());
        try {
            StoreFixture.Recovered recovered = StoreFixture.Recovered.from(store, 64, CommittingProcess.QUEUE);

            assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(ACKNOWLEDGED_BEFORE_KILL);
            assertThat(recovered.metadata.keySet()).containsAll(acknowledged);
            assertThat(recovered.entries.get(CommittingProcess.QUEUE)).containsAll(acknowledged)
                    .isSorted();
            for (long id : acknowledged) {
                assertThat(recovered.metadata.get(id)).isEqualTo(CommittingProcess.metadataFor(id));
                assertThat(store.loadContent(id)).succeedsWithin(Duration.ofSeconds(10))
                        .isEqualTo(CommittingProcess.contentFor(id));
            }
            assertThat(store.nextMessageId()).isGreaterThan(acknowledged.stream().mapToLong(Long::longValue).max()
                    .orElseThrow());
        } finally {
            store.close();
        }
    }

    /** Only complete lines count: the kill may cut the last one short. */
    private static void readAcknowledgements(Process child, Set<Long> acknowledged) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1) {
                if (c != '\n') {
                    line.append((char) c);
                    continue;
                }
                if (line.indexOf(CommittingProcess.COMMITTED) == 0) {
                    acknowledged.add(Long.parseLong(line.substring(CommittingProcess.COMMITTED.length()).trim()));
                }
                line.setLength(0);
            }
        } catch (java.io.IOException e) {
            // the pipe closes when the child dies
        }
    }

    private static String stderrOf(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
