package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.tandembroker.store.bdbha.HaGroup.COMMIT_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.options;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdbha.HaGroup.Node;

/**
 * A replica whose disk fills up rejoins by itself once space is freed, however long that takes: the chaos soak
 * found a replica that gave up after five reopen attempts and stayed down (docs/reliability.md, finding 1). The
 * replica's store lives on a small tmpfs this test mounts (root only; skipped otherwise), filled with a file.
 */
class FullReplicaDiskTest {
    private static final String VOLUME_SIZE = "48m";

    @TempDir
    Path work;
    private HaGroup group;
    private Path volume;

    @AfterEach
    void close() throws Exception {
        if (group != null) {
            group.close();
        }
        if (volume != null) {
            run("umount", "-l", volume.toString());
        }
    }

    @Test
    void aReplicaWhoseDiskFilledRejoinsAndCatchesUpOnceSpaceIsFreedLongAfterFiveReopenAttempts() throws Exception {
        volume = Files.createDirectories(work.resolve("replica-volume"));
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=" + VOLUME_SIZE, "tmpfs", volume.toString()),
                "mounting a tmpfs needs root");
        group = new HaGroup(work, "diskfull");
        HaGroup.Options small = options().designated(true).env("je.log.fileMax", "1000000")
                .env("je.freeDisk", Long.toString(2L * 1024 * 1024));
        Node master = group.start("master", small).awaitActive();
        HaGroup.Options replicaOptions = options().env("je.log.fileMax", "1000000")
                .env("je.freeDisk", Long.toString(2L * 1024 * 1024))
                .element("storePath", volume.resolve("store").toString());
        Node replica = group.start("replica", replicaOptions).awaitRedirectTo(master);
        master.publishAll("before-", 20);

        Path filler = volume.resolve("filler");
        fill(filler);
        // The designated master commits alone while its replica cannot write.
        // A little at a time: the replica must hold all of it once it rejoins (its maxDisk is half of 48 MB).
        String body = "x".repeat(1024);
        List<CompletableFuture<Void>> commits = new ArrayList<>();
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> {
            for (int i = 0; i < 5; i++) {
                commits.add(master.publishOrFail(body));
            }
            return replica.logLines.stream().anyMatch(line -> line.startsWith("MST-1008 ")
                    && line.contains("is full"));
        });
        // Longer than five attempts with the old bounded back-off (2+4+6+8 s) would have taken.
        await().pollDelay(Duration.ofSeconds(25)).atMost(Duration.ofSeconds(30)).until(() -> true);
        assertThat(replica.store.nodeState()).isNotEqualTo("DETACHED");

        Files.delete(filler);
        await().atMost(Duration.ofMinutes(2)).until(() -> replica.logLines.stream()
                .anyMatch(line -> line.startsWith("MST-1009 ")));
        replica.awaitRedirectTo(master);
        assertThat(master.publish("after").future()).succeedsWithin(COMMIT_DEADLINE);
        assertThat(replica.linesWith("MST-1008")).hasSize(1);
    }

    private static void fill(Path filler) throws IOException {
        byte[] block = new byte[64 * 1024];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
                throw e;
            }
        }
    }

    private static boolean run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getInputStream().readAllBytes();
        return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
    }
}
