package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.COMMIT_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;
import static org.tandembroker.store.bdbha.HaGroup.options;

import com.sleepycat.je.CheckpointConfig;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdbha.HaGroup.Commit;
import org.tandembroker.store.bdbha.HaGroup.Node;

/** Groups of three: JE elects a master by majority; nodes that lack log are seeded by network restore. */
class ThreeNodeGroupTest {
    @TempDir
    Path work;
    private HaGroup group;

    @BeforeEach
    void group() {
        group = new HaGroup(work, "three");
    }

    @AfterEach
    void close() {
        group.close();
    }

    @Test
    void whenTheMasterFailsTheOthersElectOneWithoutAnOperatorRespectingPriorities() throws Exception {
        Node first = group.start("first").awaitActive();
        // Designation means nothing in a group of three (a warning says so); priority 0 means never master.
        Node second = group.start("second", options().designated(true)).awaitRedirectTo(first);
        Node third = group.start("third", options().rep("je.rep.node.priority", "0")).awaitRedirectTo(first);
        assertThat(first.store.groupMembers()).extracting(GroupMember::name, GroupMember::type)
                .containsExactly(tuple("first", "ELECTABLE"), tuple("second", "ELECTABLE"),
                        tuple("third", "ELECTABLE"));
        for (Node node : List.of(first, second, third)) {
            assertThat(PromptReplayExit.installed(node.store.environment().orElseThrow()))
                    .as("%s's replay poll is capped", node.name).isTrue();
        }
        List<Commit> committed = first.publishAll("m", 30);

        // An operator moves the master role; then the new master fails and the group elects without anyone.
        assertThat(first.store.transferMaster("second", 60)).succeedsWithin(ROLE_DEADLINE).isEqualTo("second");
        second.awaitActive();
        first.awaitRedirectTo(second);
        second.close();

        first.awaitActive();
        third.awaitRedirectTo(first);
        assertThat(third.listener.everActive()).isFalse();
        assertThat(first.recover().entries).containsExactlyElementsOf(committed.stream().map(Commit::id).toList());
        assertThat(first.content(committed.get(29).id())).isEqualTo("m29");
        // Two of three nodes are a majority: the new master commits with acknowledgements.
        assertThat(first.publishAll("after", 5)).hasSize(5);

        // The failed node's address can be changed, or it can be removed from the group, while it is down.
        assertThat(first.store.updateAddress("second", "localhost", HaGroup.freePort()))
                .succeedsWithin(COMMIT_DEADLINE);
        assertThat(first.store.removeNodeFromGroup("second")).succeedsWithin(COMMIT_DEADLINE);
        assertThat(first.store.groupMembers()).extracting(GroupMember::name).containsExactly("first", "third");
    }

    @Test
    void anEmptyNodeJoiningAfterTheLogWasCleanedIsSeededByNetworkRestore() throws Exception {
        // Small log files whose cleaned copies JE may delete at once (je.reservedDisk, a short VLSN index), so
        // that the group soon lacks the start of its replication stream.
        HaGroup.Options smallLog = options().env("je.log.fileMax", "1000000").env("je.reservedDisk", "1")
                .env("je.cleaner.minUtilization", "90").env("je.cleaner.minAge", "1")
                .rep("je.rep.minVLSNIndexSize", "10");
        Node first = group.start("first", smallLog).awaitActive();
        Node second = group.start("second", smallLog.rep("je.rep.node.priority", "0")).awaitRedirectTo(first);
        String body = "x".repeat(100_000);
        for (int round = 0; round < 3; round++) {
            for (Commit commit : first.publishAll("r" + round + "-" + body, 30)) {
                assertThat(first.acknowledge(commit.id())).succeedsWithin(COMMIT_DEADLINE);
            }
        }
        List<Commit> kept = first.publishAll("kept", 10);
        ReplicatedEnvironment master = first.store.environment().orElseThrow();
        Path firstLogFile = work.resolve("first").resolve("00000000.jdb");
        await().atMost(ROLE_DEADLINE).until(() -> {
            master.cleanLog();
            master.checkpoint(new CheckpointConfig().setForce(true));
            return !Files.exists(firstLogFile);
        });

        Node third = group.start("third").awaitRedirectTo(first);

        assertThat(third.linesWith("HA-1006")).anyMatch(line -> line.contains("started"))
                .anyMatch(line -> line.contains("complete"));

        // The seeded node has everything: it takes over (the other survivor never may) and recovers it all.
        first.close();
        third.awaitActive();
        assertThat(third.recover().entries).containsExactlyElementsOf(kept.stream().map(Commit::id).toList());
        assertThat(third.content(kept.get(9).id())).isEqualTo("kept9");
    }
}
