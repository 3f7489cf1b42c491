package org.tandembroker.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sleepycat.je.rep.arbiter.Arbiter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tandembroker.tools.arbiter.ArbiterMain;

/**
 * {@code bin/arbiter}: its command line (the long options, and the earlier spellings as aliases), and an arbiter
 * started from it joining a running pair. That a pair with an arbiter fails over without an operator is the store's
 * test ({@code ArbiterTest} in broker-store-bdbha).
 */
class ArbiterTest {
    private static final Duration ROLE_DEADLINE = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path directory;
    private final List<InJvmBroker> brokers = new ArrayList<>();
    private Arbiter arbiter;

    @AfterEach
    void stop() {
        if (arbiter != null) {
            arbiter.shutdown();
        }
        for (int i = brokers.size() - 1; i >= 0; i--) {
            brokers.get(i).close();
        }
    }

    @Test
    void anArbiterStartedWithTheLongOptionsJoinsThePairAsItsArbiter() throws Exception {
        int firstPort = InJvmBroker.freePort();
        int secondPort = InJvmBroker.freePort();
        InJvmBroker first = started(InJvmBroker.replicated(directory, "node-1", directory.resolve("node-1-store"),
                "pair", firstPort, firstPort));
        started(InJvmBroker.replicated(directory, "node-2", directory.resolve("node-2-store"), "pair", secondPort,
                firstPort));
        await().atMost(ROLE_DEADLINE).until(() -> "REPLICA".equals(node(first, "node-2").path("state").asText()));

        arbiter = ArbiterMain.start(ArbiterMain.parse("--group-name", "pair", "--node-name", "arbiter",
                "--node-host-port", "localhost:" + InJvmBroker.freePort(),
                "--helper-host-port", "localhost:" + firstPort + ",localhost:" + secondPort,
                "--dir", directory.resolve("arbiter").toString()));

        await().atMost(ROLE_DEADLINE).until(() -> "ARBITER".equals(node(first, "arbiter").path("type").asText()));
    }

    @Test
    void theEarlierSpellingsNameTheSameOptions() {
        ArbiterMain.Options earlier = ArbiterMain.parse("--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000, localhost:5001", "--dir", "arb");
        ArbiterMain.Options longOptions = ArbiterMain.parse("--group-name", "g", "--node-name", "a",
                "--node-host-port", "localhost:6000", "--helper-host-port", "localhost:5000, localhost:5001",
                "--dir", "arb");

        assertThat(earlier).isEqualTo(longOptions);
        assertThat(earlier.helpers()).isEqualTo("localhost:5000,localhost:5001");
        assertThat(earlier.directory()).isAbsolute();
    }

    @Test
    void theArbiterElectsWithTheBrokersElectionTimeoutsUnlessTold() {
        ArbiterMain.Options defaults = ArbiterMain.parse("--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb");
        ArbiterMain.Options told = ArbiterMain.parse("--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb",
                "--rep-config", "je.rep.electionsOpenTimeout=5 s", "--rep-config", "je.rep.feederTimeout=10 s");

        assertThat(ArbiterMain.config(defaults).getConfigParam("je.rep.electionsOpenTimeout")).isEqualTo("2 s");
        assertThat(ArbiterMain.config(defaults).getConfigParam("je.rep.electionsReadTimeout")).isEqualTo("2 s");
        assertThat(ArbiterMain.config(told).getConfigParam("je.rep.electionsOpenTimeout")).isEqualTo("5 s");
        assertThat(ArbiterMain.config(told).getConfigParam("je.rep.electionsReadTimeout")).isEqualTo("2 s");
        assertThat(ArbiterMain.config(told).getConfigParam("je.rep.feederTimeout")).isEqualTo("10 s");
    }

    @Test
    void theArbiterWaitsForAnyAnswerAtMostItsElectionReadTimeout() {
        ArbiterMain.Options defaults = ArbiterMain.parse("--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb");
        ArbiterMain.Options told = ArbiterMain.parse("--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb",
                "--rep-config", "je.rep.electionsReadTimeout=3 s");

        assertThat(ArbiterMain.answerTimeoutMillis(defaults)).isEqualTo(2000);
        assertThat(ArbiterMain.answerTimeoutMillis(told)).isEqualTo(3000);
        assertThat(ArbiterMain.config(told).getRepNetConfig().getChannelFactoryParams())
                .endsWith(";readTimeoutCapMillis=3000");
    }

    @Test
    void aJeParameterJeRejectsIsAUsageErrorNamingIt() {
        ToolRun unknown = ToolRun.of(ArbiterMain::run, "--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb", "--rep-config", "je.rep.noSuch=1");
        ToolRun badValue = ToolRun.of(ArbiterMain::run, "--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb", "--rep-config",
                "je.rep.electionsOpenTimeout=soon");
        ToolRun noValue = ToolRun.of(ArbiterMain::run, "--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb", "--rep-config", "je.rep.x");

        assertThat(List.of(unknown, badValue, noValue)).allSatisfy(run -> assertThat(run.exitCode()).isEqualTo(2));
        assertThat(unknown.err()).contains("--rep-config je.rep.noSuch=1", "JE says");
        assertThat(badValue.err()).contains("--rep-config je.rep.electionsOpenTimeout=soon", "JE says");
        assertThat(noValue.err()).contains("--rep-config takes NAME=VALUE");
    }

    @Test
    void everyOptionIsNeededOnceOrItIsAUsageError() {
        ToolRun missing = ToolRun.of(ArbiterMain::run, "--group-name", "g");
        ToolRun twice = ToolRun.of(ArbiterMain::run, "--group", "g", "--group-name", "h", "--node", "a",
                "--host-port", "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb");
        ToolRun unknown = ToolRun.of(ArbiterMain::run, "--groups", "g", "--group", "g", "--node", "a", "--host-port",
                "localhost:6000", "--helpers", "localhost:5000", "--dir", "arb");
        ToolRun empty = ToolRun.of(ArbiterMain::run, "--group", " ", "--node", "a", "--host-port", "localhost:6000",
                "--helpers", "localhost:5000", "--dir", "arb");

        assertThat(List.of(missing, twice, unknown, empty)).allSatisfy(run -> assertThat(run.exitCode()).isEqualTo(2));
        assertThat(missing.err()).contains("Missing required options", "--node-name=NAME", "Usage: arbiter");
        assertThat(twice.err()).contains("should be specified only once");
        assertThat(unknown.err()).contains("Unknown options: '--groups'", "Possible solutions: --group-name");
        assertThat(empty.err()).contains("arbiter: --group-name is empty");
    }

    @Test
    void replicationTlsSettingsAreValidatedLikeTheBrokersAndABadOneIsAUsageError(@TempDir Path dir)
            throws Exception {
        Path inline = dir.resolve("inline.properties");
        Files.writeString(inline, "keyStore=node.p12\nkeyStorePassword=secret\n");
        Path missingStore = dir.resolve("missing.properties");
        Files.writeString(missingStore, "keyStore=nowhere.p12\nkeyStorePasswordFile=pw\ntrustStore=t.jks\n"
                + "allowedNodes=mirror\n");
        String[] common = {"--group", "g", "--node", "a", "--host-port", "localhost:6000", "--helpers",
                "localhost:5000", "--dir", dir.resolve("arb").toString(), "--replication-tls"};

        ToolRun absent = ToolRun.of(ArbiterMain::run, append(common, dir.resolve("absent").toString()));
        ToolRun password = ToolRun.of(ArbiterMain::run, append(common, inline.toString()));
        ToolRun store = ToolRun.of(ArbiterMain::run, append(common, missingStore.toString()));

        assertThat(List.of(absent, password, store)).allSatisfy(run -> assertThat(run.exitCode()).isEqualTo(2));
        assertThat(absent.err()).contains("--replication-tls " + dir.resolve("absent") + " cannot be read");
        assertThat(password.err()).contains(inline + ": <replicationTls/keyStorePassword>", "(not shown)",
                "keyStorePasswordFile").doesNotContain("secret");
        assertThat(store.err()).contains("<replicationTls/keyStore>", dir.resolve("nowhere.p12") + " does not exist");
    }

    private static String[] append(String[] first, String last) {
        String[] all = java.util.Arrays.copyOf(first, first.length + 1);
        all[first.length] = last;
        return all;
    }

    @Test
    void helpIsAskedForWithDashDashHelpOrDashHAnywhere() {
        ToolRun help = ToolRun.of(ArbiterMain::run, "--help");
        ToolRun dashH = ToolRun.of(ArbiterMain::run, "--group", "g", "-h");

        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("Usage: arbiter --group-name=GROUP", "--helper-host-port", "--helpers");
        assertThat(dashH.exitCode()).isZero();
        assertThat(dashH.out()).isEqualTo(help.out());
    }

    private InJvmBroker started(InJvmBroker broker) throws Exception {
        brokers.add(broker);
        return broker.start();
    }

    private static JsonNode node(InJvmBroker asked, String name) throws Exception {
        ToolRun run = ToolRun.haAdmin(asked.asAdmin(), "status", "--json");
        if (run.exitCode() != 0) {
            return JSON.missingNode();
        }
        return StreamSupport.stream(JSON.readTree(run.out()).path("nodes").spliterator(), false)
                .filter(n -> n.path("name").asText().equals(name)).findFirst().orElse(JSON.missingNode());
    }
}
