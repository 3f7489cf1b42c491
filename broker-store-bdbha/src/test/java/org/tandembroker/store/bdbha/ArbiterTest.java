package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.tandembroker.store.bdbha.HaGroup.ROLE_DEADLINE;

import com.sleepycat.je.StatsConfig;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import com.sleepycat.je.rep.arbiter.Arbiter;
import com.sleepycat.je.rep.arbiter.ArbiterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.store.bdbha.HaGroup.Commit;
import org.tandembroker.store.bdbha.HaGroup.Node;

/**
 * A two-node group with a JE arbiter fails over without an operator. The arbiter is configured as
 * {@code bin/arbiter} (broker-tools' {@code ArbiterMain}) configures it; that module tests its command line.
 */
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
        arbiter = startArbiter("arbitrated", "arbiter", "localhost:" + HaGroup.freePort(),
                first.hostPort() + "," + second.hostPort(), work.resolve("arbiter"));
        await().atMost(ROLE_DEADLINE).until(() -> first.store.groupMembers().stream()
                .anyMatch(member -> member.name().equals("arbiter") && member.type().equals("ARBITER")));
        List<Commit> committed = first.publishAll("m", 10);

        first.close();

        second.awaitActive();
        // The new master serves at once; its first heartbeat commit needs the arbiter, which may still be looking
        // for it (then the master passivates until the arbiter follows it and the heartbeat succeeds).
        await().atMost(ROLE_DEADLINE).until(() -> arbiter.getState() == ReplicatedEnvironment.State.REPLICA
                && arbiter.getStats(new StatsConfig()).getMaster().startsWith("second"));
        second.awaitActive();
        assertThat(second.store.isDesignatedPrimary()).isFalse();
        assertThat(second.recover().entries).containsExactlyElementsOf(committed.stream().map(Commit::id).toList());
        // The arbiter acknowledges in place of the missing replica.
        assertThat(second.publishAll("after", 3)).hasSize(3);
    }

    private static Arbiter startArbiter(String group, String node, String hostPort, String helpers, Path home)
            throws Exception {
        Files.createDirectories(home);
        ArbiterConfig config = new ArbiterConfig();
        config.setArbiterHome(home.toString());
        config.setGroupName(group);
        config.setNodeName(node);
        config.setNodeHostPort(hostPort);
        config.setHelperHosts(helpers);
        config.setUnknownStateTimeout(10, TimeUnit.SECONDS);
        return new Arbiter(config);
    }
}
