package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.StoreRoleListener;

/** The role transitions, driven by events, with a fake environment instead of JE. */
class NodeRoleMachineTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final FakeEnvironment environment = new FakeEnvironment();
    private final Listener listener = new Listener();
    private final OperationalLog operationalLog = new OperationalLog();
    private final List<String> logLines = new CopyOnWriteArrayList<>();
    private final NodeRoleMachine<String> machine = new NodeRoleMachine<>(new NodeRoleMachine.Settings(
            "test store", "test", "n1", "group", false, false), environment, operationalLog);

    NodeRoleMachineTest() {
        operationalLog.addObserver(logLines::add);
    }

    @AfterEach
    void close() {
        machine.close();
    }

    @Test
    void aNewMasterServesAtOnceAndAFirstUnacknowledgedHeartbeatPassivatesIt() {
        becomeMaster();
        assertThat(listener.events).containsExactly("active");
        assertThat(linesWith("HA-1001")).singleElement().asString().contains("node n1 is now MASTER");

        environment.reports.quorumLost("too few replicas");
        idle();

        assertThat(listener.events).containsExactly("active", "passive: quorum lost: too few replicas");
        assertThat(machine.serving()).isFalse();
        assertThat(machine.session()).isEqualTo("session-1");
        assertThat(linesWith("HA-1005")).singleElement().asString().contains("lost: too few replicas");
    }

    @Test
    void aMasterThatLosesItsQuorumPassivatesAndLogsOnceThenServesAgainWhenTheQuorumReturns() {
        becomeMaster();
        environment.reports.quorumConfirmed();
        environment.reports.quorumLost("no acks");
        environment.reports.quorumLost("no acks");
        environment.reports.quorumLost("no acks");
        idle();
        assertThat(listener.events).containsExactly("active", "passive: quorum lost: no acks");
        assertThat(linesWith("HA-1005")).hasSize(1);

        environment.reports.quorumConfirmed();
        environment.reports.quorumConfirmed();
        idle();

        assertThat(listener.events).containsExactly("active", "passive: quorum lost: no acks", "active");
        assertThat(linesWith("HA-1005")).hasSize(2).last().asString().contains("regained");
        assertThat(machine.serving()).isTrue();
    }

    @Test
    void aNewMasterWithoutAQuorumYetLogsOnceAndRetriesUntilItsSessionOpens() {
        environment.sessionOutcomes.add(new NodeEnvironment.SessionOutcome.Refused<>(
                ReplicationFailures.Action.QUORUM_LOST, "1 of 2 nodes"));
        environment.sessionOutcomes.add(new NodeEnvironment.SessionOutcome.Refused<>(
                ReplicationFailures.Action.QUORUM_LOST, "1 of 2 nodes"));
        becomeMaster();
        assertThat(listener.events).containsExactly("passive: no quorum yet");

        await().atMost(DEADLINE).until(() -> listener.events.contains("active"));

        assertThat(listener.events).containsExactly("passive: no quorum yet", "passive: no quorum yet", "active");
        assertThat(linesWith("HA-1005")).singleElement().asString().contains("none yet: 1 of 2 nodes; retrying");
    }

    @Test
    void aReplicaRedirectsClientsOnceItLearnsTheMastersAddress() {
        environment.masterAddress = Optional.of("amqp-n2:5672");
        start();
        environment.changes.stateChanged(NodeRole.REPLICA, Optional.of("n2"));
        idle();

        assertThat(listener.events).containsExactly("passive: replica of master n2",
                "passive to amqp-n2:5672: replica of master n2 (clients: amqp-n2:5672)");
        assertThat(machine.masterClientAddress()).contains("amqp-n2:5672");
        assertThat(linesWith("HA-1001")).singleElement().asString().contains("is now REPLICA (master n2)");
    }

    @Test
    void aMasterThatBecomesReplicaWaitsForTheHostToPassivateBeforeClosingItsSession() {
        becomeMaster();
        CompletableFuture<Void> passivation = new CompletableFuture<>();
        listener.passivation = passivation;
        environment.changes.stateChanged(NodeRole.REPLICA, Optional.of("n2"));
        await().atMost(DEADLINE).until(() -> listener.events.size() == 2);
        assertThat(environment.closedSessions).isEmpty();

        passivation.complete(null);
        await().atMost(DEADLINE).until(() -> environment.closedSessions.size() == 1);

        assertThat(environment.closedSessions).containsExactly("session-1 closed");
        assertThat(machine.role()).isEqualTo(NodeRole.REPLICA);
    }

    @Test
    void aRestartRequiredLogsTheRollbackPassivatesAndReopensAndDropsTheOldSessionsReports() {
        becomeMaster();
        SessionReports oldSession = environment.reports;
        NodeEnvironment.StateChanges oldEnvironment = environment.changes;
        environment.invalidation = Optional.of(new NodeEnvironment.Invalidation("rolled back", OptionalLong.of(42)));

        oldSession.restartRequired("node n1 diverged");
        idle();

        assertThat(linesWith("HA-1003")).singleElement().asString().contains("node n1 diverged");
        assertThat(linesWith("HA-1004")).singleElement().asString().contains("from transaction 42 on");
        assertThat(listener.events).containsExactly("active", "passive: node n1 diverged");
        assertThat(environment.closedSessions).containsExactly("session-1 closed");
        assertThat(environment.closes).isEqualTo(1);
        assertThat(environment.opens).isEqualTo(2);
        assertThat(machine.role()).isEqualTo(NodeRole.RESTARTING);

        oldSession.quorumConfirmed();
        oldSession.restartRequired("again");
        oldEnvironment.stateChanged(NodeRole.MASTER, Optional.of("n1"));
        idle();
        assertThat(listener.events).hasSize(2);
        assertThat(environment.opens).isEqualTo(2);
        assertThat(machine.role()).isEqualTo(NodeRole.RESTARTING);
    }

    @Test
    void aDetachedNodeRestartsItsEnvironment() {
        start();
        environment.invalidation = Optional.of(new NodeEnvironment.Invalidation("disk gone", OptionalLong.empty()));
        environment.changes.stateChanged(NodeRole.DETACHED, Optional.empty());
        idle();

        assertThat(linesWith("HA-1003")).singleElement().asString()
                .contains("node n1 left the group: disk gone");
        assertThat(linesWith("HA-1004")).isEmpty();
        assertThat(environment.opens).isEqualTo(2);
        assertThat(machine.role()).isEqualTo(NodeRole.RESTARTING);
    }

    @Test
    void aRestartOpensTheEnvironmentWithTheDesignationLastSet() {
        becomeMaster();
        assertThat(machine.designate(true)).succeedsWithin(DEADLINE);
        environment.reports.restartRequired("invalid");
        idle();

        assertThat(environment.designations).containsExactly(true);
        assertThat(environment.openedDesignated).containsExactly(false, true);
        assertThat(linesWith("HA-1002")).singleElement().asString().contains("node n1 : true");
    }

    @Test
    void aDesignationWhileDetachedIsRememberedAndLogged() {
        environment.openOutcomes.add(new NodeEnvironment.OpenOutcome.Failed("the store directory is in use"));
        start();
        assertThat(machine.role()).isEqualTo(NodeRole.FAILED);
        assertThat(machine.role().reported()).isEqualTo("DETACHED");
        assertThat(machine.failure()).contains("the store directory is in use");

        assertThat(machine.designate(true)).succeedsWithin(DEADLINE);

        assertThat(machine.designatedPrimary()).isTrue();
        assertThat(linesWith("HA-1002")).singleElement().asString().contains("true");
        assertThat(listener.events).containsExactly("failed: the store directory is in use");
    }

    @Test
    void aDesignatedNodeThatReachesADesignatedMasterGivesUpItsDesignationAndJoinsAsReplica() {
        NodeRoleMachine<String> designated = new NodeRoleMachine<>(new NodeRoleMachine.Settings(
                "test store", "test", "n1", "group", true, false), environment, operationalLog);
        try {
            environment.openOutcomes.add(new NodeEnvironment.OpenOutcome.MasterAlsoDesignated(Optional.of("n2"), true));
            designated.start(listener);
            assertThat(designated.call(() -> null)).succeedsWithin(DEADLINE);
            environment.changes.stateChanged(NodeRole.REPLICA, Optional.of("n2"));
            assertThat(designated.call(() -> null)).succeedsWithin(DEADLINE);

            assertThat(environment.openedDesignated).containsExactly(true, false);
            assertThat(designated.designatedPrimary()).isFalse();
            assertThat(designated.role()).isEqualTo(NodeRole.REPLICA);
            assertThat(linesWith("HA-1002")).singleElement().asString()
                    .contains("node n1 : not designated primary any more: master n2 is designated primary");
            assertThat(listener.events).noneMatch(event -> event.startsWith("failed"));
        } finally {
            designated.close();
        }
    }

    @Test
    void aNewDesignatedNodeMeetingADesignatedMasterStopsAsTheSpecSays() {
        NodeRoleMachine<String> designated = new NodeRoleMachine<>(new NodeRoleMachine.Settings(
                "test store", "test", "n1", "group", true, false), environment, operationalLog);
        try {
            environment.openOutcomes.add(new NodeEnvironment.OpenOutcome.MasterAlsoDesignated(Optional.of("n2"),
                    false));
            designated.start(listener);
            assertThat(designated.call(() -> null)).succeedsWithin(DEADLINE);

            assertThat(designated.role()).isEqualTo(NodeRole.FAILED);
            assertThat(environment.openedDesignated).containsExactly(true);
            assertThat(listener.events).singleElement().asString()
                    .startsWith("failed: node n1 and the current master are both designated primary");
        } finally {
            designated.close();
        }
    }

    @Test
    void anUndesignatedNodeFacingAConflictingDesignationStops() {
        environment.openOutcomes.add(new NodeEnvironment.OpenOutcome.MasterAlsoDesignated(Optional.empty(), true));
        start();

        assertThat(machine.role()).isEqualTo(NodeRole.FAILED);
        assertThat(machine.failure()).hasValueSatisfying(failure ->
                assertThat(failure).contains("both designated primary"));
        assertThat(listener.events).singleElement().asString().startsWith("failed: node n1 and the current master");
    }

    @Test
    void anOpeningThatFailsRetriesAndThenFollowsJe() {
        environment.openOutcomes.add(new NodeEnvironment.OpenOutcome.Retry(1));
        start();
        await().atMost(DEADLINE).until(() -> environment.opens == 2);
        environment.changes.stateChanged(NodeRole.UNKNOWN, Optional.empty());
        idle();

        assertThat(machine.role()).isEqualTo(NodeRole.UNKNOWN);
        assertThat(listener.events).singleElement().asString().startsWith("passive: no master known to node n1");
    }

    @Test
    void aSessionThatFailsForAnUnexpectedReasonStopsTheNode() {
        environment.sessionOutcomes.add(new NodeEnvironment.SessionOutcome.Failed<>("checksum mismatch"));
        becomeMaster();

        assertThat(machine.role()).isEqualTo(NodeRole.FAILED);
        assertThat(machine.failure()).contains("cannot open the store's databases as master: checksum mismatch");
        assertThat(environment.closes).isEqualTo(1);
    }

    @Test
    void aClosingMasterHandsItsSessionOverWithoutTellingTheHost() {
        becomeMaster();
        machine.close();

        assertThat(machine.role()).isEqualTo(NodeRole.CLOSED);
        assertThat(environment.closedSessions).containsExactly("session-1 handed over");
        assertThat(listener.events).containsExactly("active");
        assertThat(machine.designate(false)).failsWithin(DEADLINE);
    }

    @Test
    void aMasterThatLostItsQuorumDoesNotTryTheHandOver() {
        becomeMaster();
        environment.reports.quorumLost("no acks");
        idle();
        machine.close();

        assertThat(environment.closedSessions).containsExactly("session-1 handed over, quorum lost");
    }

    @Test
    void closingDuringAPassivationStopsWaitingForTheHost() {
        becomeMaster();
        listener.passivation = new CompletableFuture<>(); // the host never finishes
        environment.changes.stateChanged(NodeRole.UNKNOWN, Optional.empty());
        await().atMost(DEADLINE).until(() -> listener.events.size() == 2);

        CompletableFuture<Void> closed = CompletableFuture.runAsync(machine::close);

        assertThat(closed).succeedsWithin(DEADLINE);
        assertThat(machine.role()).isEqualTo(NodeRole.CLOSED);
        assertThat(environment.closedSessions).hasSize(1);
        assertThat(environment.closes).isEqualTo(1);
    }

    private void start() {
        machine.start(listener);
        idle();
    }

    private void becomeMaster() {
        start();
        environment.changes.stateChanged(NodeRole.MASTER, Optional.of("n1"));
        idle();
    }

    /** Waits until the machine handled every event posted before. */
    private void idle() {
        assertThat(machine.call(() -> null)).succeedsWithin(DEADLINE);
    }

    private List<String> linesWith(String code) {
        return logLines.stream().filter(line -> line.startsWith(code + " ")).toList();
    }

    /** What the virtual host was told, in order. */
    private static final class Listener implements StoreRoleListener {
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile CompletableFuture<Void> passivation = CompletableFuture.completedFuture(null);

        @Override
        public CompletableFuture<Void> becameActive() {
            events.add("active");
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> becamePassive(Optional<String> address, String reason) {
            events.add("passive" + address.map(a -> " to " + a).orElse("") + ": " + reason);
            return passivation;
        }

        @Override
        public CompletableFuture<Void> failed(String reason) {
            events.add("failed: " + reason);
            return passivation;
        }
    }

    /** Stands in for JE and the master session; called on the machine's thread. */
    private static final class FakeEnvironment implements NodeEnvironment<String> {
        final Deque<OpenOutcome> openOutcomes = new ArrayDeque<>();
        final Deque<SessionOutcome<String>> sessionOutcomes = new ArrayDeque<>();
        final List<String> closedSessions = new CopyOnWriteArrayList<>();
        final List<Boolean> designations = new CopyOnWriteArrayList<>();
        final List<Boolean> openedDesignated = new CopyOnWriteArrayList<>();
        volatile Optional<Invalidation> invalidation = Optional.empty();
        volatile Optional<String> masterAddress = Optional.empty();
        volatile StateChanges changes;
        volatile SessionReports reports;
        volatile int opens;
        volatile int closes;
        private int sessions;

        @Override
        public OpenOutcome open(int attempt, boolean designatedPrimary, StateChanges stateChanges) {
            opens++;
            openedDesignated.add(designatedPrimary);
            OpenOutcome outcome = openOutcomes.isEmpty() ? new OpenOutcome.Opened() : openOutcomes.poll();
            if (outcome instanceof OpenOutcome.Opened) {
                changes = stateChanges;
            }
            return outcome;
        }

        @Override
        public Optional<Invalidation> invalidation() {
            return invalidation;
        }

        @Override
        public void close() {
            closes++;
        }

        @Override
        public SessionOutcome<String> openSession(SessionReports sessionReports) {
            SessionOutcome<String> outcome = sessionOutcomes.isEmpty()
                    ? new SessionOutcome.Opened<>("session-" + ++sessions) : sessionOutcomes.poll();
            if (outcome instanceof SessionOutcome.Opened) {
                reports = sessionReports;
            }
            return outcome;
        }

        @Override
        public void closeSession(String session, boolean handingOver, boolean quorumKnownLost) {
            closedSessions.add(session + (handingOver ? " handed over" : " closed")
                    + (quorumKnownLost ? ", quorum lost" : ""));
        }

        @Override
        public Optional<String> clientAddressOf(String masterName) {
            return masterAddress;
        }

        @Override
        public void applyDesignation(boolean designated) {
            designations.add(designated);
        }

        @Override
        public OptionalInt electableNodes() {
            return OptionalInt.of(2);
        }
    }
}
