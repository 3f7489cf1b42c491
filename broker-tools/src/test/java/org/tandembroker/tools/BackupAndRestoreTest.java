package org.tandembroker.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.tools.backup.BDBBackup;
import org.tandembroker.tools.group.ResetReplicationGroup;

/**
 * Backups (spec 1.6.13) and disaster recovery (spec 1.6.15) with the operators' tools: {@code backup.sh}
 * ({@link BDBBackup}) against running and stopped brokers, a restore into a new directory, {@code reset-group} to a
 * new one-node group, and an empty replica joining it by network restore.
 */
class BackupAndRestoreTest {
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @TempDir
    Path directory;
    private final List<InJvmBroker> brokers = new java.util.ArrayList<>();

    @AfterEach
    void stopBrokers() {
        brokers.forEach(InJvmBroker::close);
    }

    @Test
    void aBackupTakenWhileProducersRunRestoresIntoANewGroupWhoseEmptyReplicaHoldsEveryMessageSettledBefore()
            throws Exception {
        Path originStore = directory.resolve("origin-store");
        int originPort = InJvmBroker.freePort();
        InJvmBroker origin = started(InJvmBroker.replicated(directory, "origin", originStore, "before", originPort,
                originPort));
        Path backup = directory.resolve("backup");
        Set<String> settledBeforeBackup;
        ToolRun backupRun;
        try (SettlingProducers producers = SettlingProducers.start(origin.connectionFactory(), 2)) {
            await().atMost(DEADLINE).until(() -> producers.settledCount() >= 300);
            settledBeforeBackup = producers.settledSoFar();

            backupRun = ToolRun.of(BDBBackup::run, origin.asAdmin(), "-fromdir", originStore.toString(), "-todir",
                    backup.toString());

            int settledWhenBackupEnded = producers.settledCount();
            await().atMost(DEADLINE).until(() -> producers.settledCount() > settledWhenBackupEnded + 100);
            producers.stop();
        }
        origin.close();

        assertThat(backupRun.exitCode()).as(backupRun.toString()).isZero();
        assertThat(backupRun.out()).contains("backup of " + originStore + " into " + backup)
                .contains("hot backup (JE DbBackup) of node origin (MASTER) of group before")
                .containsPattern("\\d+ files, \\d+ bytes, last file number \\d+ \\(0x[0-9a-f]+\\)")
                .containsPattern("00000000\\.jdb\\s+[\\d,]+ bytes");
        assertThat(backup.resolve("tandem-backup.txt")).exists();

        Path restoredStore = Files.createDirectories(directory.resolve("restored-store"));
        for (Path logFile : jdbFiles(backup)) {
            Files.copy(logFile, restoredStore.resolve(logFile.getFileName()));
        }
        int firstPort = InJvmBroker.freePort();
        ToolRun reset = ToolRun.of(ResetReplicationGroup::run, "-storePath", restoredStore.toString(), "-groupName",
                "after", "-nodeName", "r1", "-nodeHostPort", "localhost:" + firstPort);

        assertThat(reset.exitCode()).as(reset.toString()).isZero();
        assertThat(reset.out()).contains("is now the only node, r1 at localhost:" + firstPort + ", of the new group "
                + "after").contains("<groupName>after</groupName>");

        InJvmBroker first = started(InJvmBroker.replicated(directory, "r1", restoredStore, "after", firstPort,
                firstPort));
        InJvmBroker second = started(InJvmBroker.replicated(directory, "r2", directory.resolve("empty-store"),
                "after", InJvmBroker.freePort(), firstPort));
        await().atMost(DEADLINE).until(() -> state(second).equals("REPLICA"));
        assertThat(second.linesWith("HA-1006")).as("the empty replica was restored over the network")
                .anyMatch(line -> line.contains("complete"));

        // The replica holds it all: fail over to it (figure 1.3) and consume there.
        first.close();
        ToolRun designation = ToolRun.haAdmin(second.asAdmin(), "designate-primary", "r2", "--wait", "60");
        assertThat(designation.exitCode()).as(designation.toString()).isZero();
        Set<String> received = SettlingProducers.receiveAll(second.connectionFactory(), settledBeforeBackup,
                DEADLINE);

        assertThat(received).containsAll(settledBeforeBackup);
    }

    @Test
    void aRunningStandaloneStoreIsBackedUpByItsBrokerAndTheRestoredCopyHoldsEveryMessage() throws Exception {
        Path store = directory.resolve("store");
        InJvmBroker broker = started(InJvmBroker.standalone(directory, "standalone", store));
        Set<String> sent = send(broker, 50);

        ToolRun run = ToolRun.of(BDBBackup::run, broker.asAdmin(), "--store-path", store.toString(), "--to-dir",
                directory.resolve("backup").toString());
        broker.close();

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("hot backup (JE DbBackup) of the running standalone store");
        assertThat(receivedAfterRestore(directory.resolve("backup"), sent)).containsAll(sent);
    }

    @Test
    void aStoppedStoreIsCopiedDirectlyAndTheCopyHoldsEveryMessage() throws Exception {
        Path store = directory.resolve("store");
        InJvmBroker broker = started(InJvmBroker.standalone(directory, "stopped", store));
        Set<String> sent = send(broker, 50);
        broker.close();

        ToolRun run = ToolRun.of(BDBBackup::run, "-fromdir", store.toString(), "-todir",
                directory.resolve("backup").toString());

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("copy of the stopped store");
        assertThat(receivedAfterRestore(directory.resolve("backup"), sent)).containsAll(sent);
    }

    @Test
    void aStoreInUseNeedsTheBrokerAndItsCredentialsToBeBackedUp() throws Exception {
        Path store = directory.resolve("store");
        InJvmBroker broker = started(InJvmBroker.standalone(directory, "busy", store));

        ToolRun withoutUser = ToolRun.of(BDBBackup::run, "-fromdir", store.toString(), "-todir",
                directory.resolve("backup").toString());
        ToolRun asMonitor = ToolRun.of(BDBBackup::run, broker.as("watcher"), "-fromdir", store.toString(), "-todir",
                directory.resolve("backup").toString());

        assertThat(withoutUser.exitCode()).isEqualTo(2);
        assertThat(withoutUser.err()).contains("is in use by a running broker, which must take the backup itself")
                .contains("--user USER --password-file FILE");
        assertThat(asMonitor.exitCode()).isEqualTo(4);
        assertThat(asMonitor.err()).contains("user 'watcher' has role monitor (read only)");
        assertThat(directory.resolve("backup")).doesNotExist();
    }

    @Test
    void aDirectoryThatHoldsABackupAlreadyOrIsNotAStoreIsRefused() throws Exception {
        Path store = directory.resolve("store");
        InJvmBroker broker = started(InJvmBroker.standalone(directory, "twice", store));
        Path backup = directory.resolve("backup");
        ToolRun first = ToolRun.of(BDBBackup::run, broker.asAdmin(), "-fromdir", store.toString(), "-todir",
                backup.toString());

        ToolRun second = ToolRun.of(BDBBackup::run, broker.asAdmin(), "--fromdir", store.toString(), "--todir",
                backup.toString());
        ToolRun notAStore = ToolRun.of(BDBBackup::run, "-fromdir", backup.getParent().resolve("nothing").toString(),
                "-todir", directory.resolve("other").toString());
        ToolRun usage = ToolRun.of(BDBBackup::run, "--store-path", store.toString());

        assertThat(first.exitCode()).as(first.toString()).isZero();
        assertThat(second.exitCode()).as(second.toString()).isEqualTo(1);
        assertThat(second.err()).contains("already holds a backup");
        assertThat(notAStore.exitCode()).isEqualTo(2);
        assertThat(notAStore.err()).contains("is not a directory");
        assertThat(usage.exitCode()).isEqualTo(2);
        assertThat(usage.err()).contains("Missing required option: '--to-dir=DIR'");
    }

    @Test
    void helpShowsTheLongOptionsWithTheSpecsSpellingsAndTheSharedConnectionOptions() {
        ToolRun help = ToolRun.of(BDBBackup::run, "--help");

        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("Usage: backup.sh", "--store-path", "-fromdir", "--to-dir", "-todir",
                "--host", "--port", "--user", "--password-file", "--tls", "--trust-store", "--connect-timeout");
    }

    private InJvmBroker started(InJvmBroker broker) throws Exception {
        brokers.add(broker);
        return broker.start();
    }

    private static Set<String> send(InJvmBroker broker, int count) throws Exception {
        try (SettlingProducers producers = SettlingProducers.start(broker.connectionFactory(), 1)) {
            await().atMost(DEADLINE).until(() -> producers.settledCount() >= count);
            producers.stop();
            return producers.settledSoFar();
        }
    }

    /** Copies a backup's log files into a new store and starts a standalone broker on it; returns what it holds. */
    private Set<String> receivedAfterRestore(Path backup, Set<String> expected) throws Exception {
        Path restored = Files.createDirectories(directory.resolve("restored-" + backup.getFileName()));
        for (Path logFile : jdbFiles(backup)) {
            Files.copy(logFile, restored.resolve(logFile.getFileName()));
        }
        InJvmBroker broker = started(InJvmBroker.standalone(directory, "restored", restored));
        return SettlingProducers.receiveAll(broker.connectionFactory(), expected, DEADLINE);
    }

    private static List<Path> jdbFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jdb")).sorted().toList();
        }
    }

    private static String state(InJvmBroker node) {
        ToolRun run = ToolRun.haAdmin(node.asAdmin(), "status", "--json");
        if (run.exitCode() != 0) {
            return "unreachable: " + run.err();
        }
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out()).path("askedNodeState")
                    .asText();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
