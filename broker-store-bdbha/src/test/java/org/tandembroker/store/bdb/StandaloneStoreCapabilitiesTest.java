package org.tandembroker.store.bdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.store.BackupSummary;
import org.tandembroker.core.store.CommitterStatistics;
import org.tandembroker.core.store.HotBackup;
import org.tandembroker.core.store.LogFigures;
import org.tandembroker.core.store.StoreFigureSource;
import org.tandembroker.core.store.StoreTransaction;

/** What a standalone JE store offers management through the core SPI: figures and hot backups, no replication. */
class StandaloneStoreCapabilitiesTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path work;

    @Test
    void anOpenStoreGivesItsLogFiguresAndCountsItsCommits() throws Exception {
        try (BdbMessageStore store = new StoreFixture(work).open()) {
            store.recover(record -> { });
            commitOneMessage(store);

            StoreFigureSource figures = store.figures().orElseThrow();

            LogFigures log = figures.logFigures().orElseThrow();
            assertThat(log.totalLogSize()).isPositive();
            assertThat(log.availableLogSize()).isPositive();
            assertThat(log.logFsyncs()).isPositive();
            CommitterStatistics commits = figures.committerStatistics().orElseThrow();
            assertThat(commits.commits()).isGreaterThanOrEqualTo(1);
            assertThat(commits.failures()).isZero();
            assertThat(store.replication()).isEmpty();
        }
    }

    @Test
    void aHotBackupCopiesTheRunningStoreAndReportsWhatItCopied() throws Exception {
        try (BdbMessageStore store = new StoreFixture(work).open()) {
            store.recover(record -> { });
            commitOneMessage(store);
            HotBackup backup = store.hotBackup().orElseThrow();
            Path target = work.resolve("backup");

            BackupSummary summary = backup.backUp(target);

            assertThat(backup.storeDirectory()).hasValueSatisfying(dir -> assertThat(dir).isAbsolute()
                    .isDirectory().startsWith(work.toAbsolutePath()));
            assertThat(summary.fileCount()).isPositive();
            assertThat(summary.totalBytes()).isPositive();
            assertThat(summary.description()).contains("hot backup (JE DbBackup) of the running standalone store")
                    .contains(target.toString());
            try (var files = Files.list(target)) {
                assertThat(files.filter(f -> f.getFileName().toString().endsWith(".jdb")).count())
                        .isEqualTo(summary.fileCount());
            }
        }
    }

    @Test
    void aClosedStoreHasNoFiguresNoDirectoryAndRefusesABackupSayingWhy() throws Exception {
        BdbMessageStore store = new StoreFixture(work).open();
        StoreFigureSource figures = store.figures().orElseThrow();
        HotBackup backup = store.hotBackup().orElseThrow();

        store.close();

        assertThat(figures.logFigures()).isEmpty();
        assertThat(figures.committerStatistics()).isEmpty();
        assertThat(backup.storeDirectory()).isEmpty();
        assertThatThrownBy(() -> backup.backUp(work.resolve("backup"))).isInstanceOf(BrokerException.class)
                .hasMessageStartingWith("the store is not open (closed ");
    }

    private static void commitOneMessage(BdbMessageStore store) {
        StoreTransaction txn = store.newTransaction();
        long id = store.nextMessageId();
        txn.storeMessage(id, "meta".getBytes(StandardCharsets.UTF_8), "hello".getBytes(StandardCharsets.UTF_8));
        txn.enqueue(UUID.randomUUID(), id);
        assertThat(txn.commit()).succeedsWithin(DEADLINE);
    }
}
