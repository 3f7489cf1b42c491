package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.COMMIT_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.options;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdbha.HaGroup.Commit;
import org.tandembroker.store.bdbha.HaGroup.Node;

/**
 * A replica whose store is over its {@code maxDisk} while its volume has room gets back under the limit and catches
 * up by itself (docs/reliability.md, finding 7: a node a few kilobytes over its limit after a disk-full fault waited
 * "for disk space" for good, since JE forbids the cleaner's writes too). Here the replica's log is made to hold
 * about 10 MB of messages that were all consumed, with its cleaner off, and the replica then reopens with its
 * cleaner on and a limit 100 KB below its log's size (JE's limit is {@code maxDisk} less {@code je.freeDisk}). Without
 * the headroom ({@code MST-1013}) it stays UNKNOWN for good: JE logs "Node waiting for disk space" and nothing
 * changes (seen while writing this test, when a first version gave too little headroom).
 */
class ReplicaOverMaxDiskTest {
    private static final String LOG_FILE_MAX = "1000000";
    private static final String FREE_DISK = "1000000";

    @TempDir
    Path work;
    private HaGroup group;

    @AfterEach
    void close() {
        if (group != null) {
            group.close();
        }
    }

    @Test
    void aReplicaOverItsMaxDiskWithRoomOnItsVolumeCleansItselfBackUnderTheLimitAndCatchesUp() throws IOException {
        group = new HaGroup(work, "overlimit");
        Node master = group.start("master", options().designated(true).env("je.log.fileMax", LOG_FILE_MAX)
                .env("je.freeDisk", FREE_DISK).element("maxDisk", "64000000")).awaitActive();
        Node replica = group.start("replica", options().env("je.log.fileMax", LOG_FILE_MAX)
                .env("je.freeDisk", FREE_DISK).env("je.env.runCleaner", "false").element("maxDisk", "64000000"))
                .awaitRedirectTo(master);
        String body = "x".repeat(16 * 1024);
        for (int round = 0; round < 6; round++) {
            for (Commit commit : master.publishAll("round-" + round + "-" + body, 100)) {
                assertThat(master.acknowledge(commit.id())).succeedsWithin(COMMIT_DEADLINE);
            }
        }
        replica.close();
        long logSize = logSize(work.resolve("replica"));
        assertThat(logSize).isGreaterThan(9_000_000);
        String maxDisk = Long.toString(logSize + Long.parseLong(FREE_DISK) - 100_000);

        Node reopened = group.start("replica", options().env("je.log.fileMax", LOG_FILE_MAX)
                .env("je.freeDisk", FREE_DISK).element("maxDisk", maxDisk));

        await().atMost(Duration.ofMinutes(1)).until(() -> !reopened.linesWith("MST-1013").isEmpty());
        assertThat(reopened.linesWith("MST-1013").get(0)).contains("is over its maxDisk of " + maxDisk + " bytes");
        reopened.awaitRedirectTo(master);
        await().atMost(Duration.ofMinutes(2)).until(() -> !reopened.linesWith("MST-1014").isEmpty());
        assertThat(reopened.linesWith("MST-1014")).singleElement().asString()
                .contains("is back under its maxDisk of " + maxDisk + " bytes");
        assertThat(master.publish("after").future()).succeedsWithin(COMMIT_DEADLINE);
        assertThat(reopened.linesWith("MST-1008")).isEmpty();
        assertThat(reopened.store.nodeState()).isEqualTo("REPLICA");
        assertThat(logSize(work.resolve("replica"))).isLessThan(Long.parseLong(maxDisk) - Long.parseLong(FREE_DISK));
    }

    /**
     * Finding 8: a master that reached its {@code maxDisk} refused every write, its consumers' removals included, so
     * nothing could ever free space (the soak's group served nobody for minutes with 115 MB free on the volume). It
     * now gets headroom for removals only: publishes are refused until the cleaner has brought it back under.
     */
    @Test
    void aMasterAtItsMaxDiskRefusesPublishesButNotRemovalsUntilItIsBackUnder() {
        group = new HaGroup(work, "fullmaster");
        Node master = group.start("alone", options().env("je.log.fileMax", LOG_FILE_MAX)
                .env("je.freeDisk", FREE_DISK).element("maxDisk", "12000000")).awaitActive();
        String body = "x".repeat(16 * 1024);
        List<Long> published = new ArrayList<>();
        Throwable refusal = null;
        for (int i = 0; i < 2_000 && refusal == null; i++) {
            Commit commit = master.publish("m" + i + body);
            try {
                commit.future().get(COMMIT_DEADLINE.toSeconds(), TimeUnit.SECONDS);
                published.add(commit.id());
            } catch (ExecutionException e) {
                refusal = e.getCause();
            } catch (InterruptedException | TimeoutException e) {
                throw new AssertionError(e);
            }
        }
        assertThat(refusal).as("JE's own limit refused a publish").isNotNull().hasMessageContaining("store disk full");

        await().atMost(Duration.ofMinutes(1)).until(() -> !master.linesWith("MST-1013").isEmpty());
        assertThat(master.linesWith("MST-1013").get(0)).contains("publishes are refused until then");
        assertThat(master.publish("while over").future()).failsWithin(COMMIT_DEADLINE)
                .withThrowableThat().withMessageContaining("only removals are written");
        for (long id : published) {
            assertThat(master.acknowledge(id)).succeedsWithin(COMMIT_DEADLINE);
        }

        await().atMost(Duration.ofMinutes(2)).until(() -> !master.linesWith("MST-1014").isEmpty());
        assertThat(master.linesWith("MST-1014")).singleElement().asString()
                .contains("publishes are accepted again");
        assertThat(master.publish("after").future()).succeedsWithin(COMMIT_DEADLINE);
    }

    private static long logSize(Path store) throws IOException {
        try (Stream<Path> files = Files.list(store)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".jdb")).mapToLong(file -> {
                try {
                    return Files.size(file);
                } catch (IOException e) {
                    return 0; // deleted by the cleaner meanwhile
                }
            }).sum();
        }
    }
}
