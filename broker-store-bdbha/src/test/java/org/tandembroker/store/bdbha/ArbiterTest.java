package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import com.sleepycat.je.rep.arbiter.Arbiter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdbha.HaGroup.Commit;
import org.tandembroker.store.bdbha.HaGroup.Node;

/** A two-node group with a JE arbiter (bin/arbiter) fails over without an operator. */
class ArbiterTest {
    @TempDir
    Path work;
    private HaGroup group;
    private Arbiter arbiter;

    @BeforeEach
    void group() {
        group = new HaGroup(work, "arbitrated");
    }

    @AfterEach
    void close() {
        group.close();
        if (arbiter != null) {
            arbiter.shutdown();
        }
    }

    @Test
    void whenTheMasterFailsTheReplicaAndTheArbiterElectTheReplicaWithoutADesignation() throws Exception {
        Node first = group.start("first").awaitActive();
        Node second = group.start("second").awaitRedirectTo(first);
        arbiter = ArbiterMain.start(ArbiterMain.parse(new String[] {"--group", "arbitrated", "--node", "arbiter",
                "--host-port", "localhost:" + HaGroup.freePort(),
                "--helpers", first.hostPort() + "," + second.hostPort(),
                "--dir", work.resolve("arbiter").toString()}));
        await().atMost(ROLE_DEADLINE).until(() -> first.store.groupMembers().stream()
                .anyMatch(member -> member.name().equals("arbiter") && member.type().equals("ARBITER")));
        List<Commit> committed = first.publishAll("m", 10);

        first.close();

        second.awaitActive();
        assertThat(second.store.isDesignatedPrimary()).isFalse();
        assertThat(second.recover().entries).containsExactlyElementsOf(committed.stream().map(Commit::id).toList());
        // The arbiter acknowledges in place of the missing replica.
        assertThat(second.publishAll("after", 3)).hasSize(3);
    }

    @Test
    void theCommandLineNeedsEveryOptionOnce() {
        assertThatThrownBy(() -> ArbiterMain.parse(new String[] {"--group", "g"}))
                .hasMessage("--node is required");
        assertThatThrownBy(() -> ArbiterMain.parse(new String[] {"--group", "g", "--group", "h"}))
                .hasMessage("--group is given twice");
        assertThatThrownBy(() -> ArbiterMain.parse(new String[] {"--groups", "g"}))
                .hasMessageStartingWith("unknown option '--groups'");
        assertThatThrownBy(() -> ArbiterMain.parse(new String[] {"--group", "--node", "n"}))
                .hasMessage("--group needs a value");
        ArbiterMain.Options options = ArbiterMain.parse(new String[] {"--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000, localhost:5001", "--dir", "arb"});
        assertThat(options.helpers()).isEqualTo("localhost:5000,localhost:5001");
        assertThat(options.directory()).isAbsolute();
    }

    @Test
    void helpIsAskedForWithDashDashHelpOrDashHAnywhere() {
        assertThat(ArbiterMain.asksForHelp(new String[] {"--help"})).isTrue();
        assertThat(ArbiterMain.asksForHelp(new String[] {"--group", "g", "-h"})).isTrue();
        assertThat(ArbiterMain.asksForHelp(new String[] {"--group", "g"})).isFalse();
        assertThat(ArbiterMain.asksForHelp(new String[0])).isFalse();
    }
}
