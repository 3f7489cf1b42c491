package org.tandembroker.core.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.exec.OwningThread;

class ServingStatusTest {
    private final OwningThread lifecycleThread = new OwningThread("vhost-test");
    private final ServingStatus status = new ServingStatus("test", lifecycleThread);

    @Test
    void aStartingGroupMemberRefusesClientsAndSaysToTryAnotherNode() {
        status.groupMember(true);

        Admission.Refused refusal = status.refusal();

        assertThat(refusal.kind()).isEqualTo(ErrorKind.NOT_ACTIVE);
        assertThat(refusal.redirectAddress()).isNull();
        assertThat(refusal.description())
                .isEqualTo("virtual host 'test' is not active on this node (PASSIVE: starting); try another node");
    }

    @Test
    void aReplicaRedirectsToTheActiveNodeWhenItKnowsIt() {
        status.activeNodeIs("node1:5672");
        status.passive("this node is a replica");

        Admission.Refused refusal = status.refusal();

        assertThat(refusal.redirectAddress()).isEqualTo("node1:5672");
        assertThat(refusal.description()).isEqualTo("virtual host 'test' is not active on this node "
                + "(PASSIVE: this node is a replica); the active node serves clients at node1:5672");
        assertThatThrownBy(status::requireActive).isInstanceOf(BrokerException.class)
                .hasMessage(refusal.description());
    }

    @Test
    void becomingActiveForgetsTheRedirect() {
        status.activeNodeIs("node1:5672");

        status.becameActive();

        assertThat(status.isActive()).isTrue();
        assertThat(status.activeNodeAddress()).isNull();
        status.requireActive();
    }

    @Test
    void onlyTheLifecycleThreadChangesTheStatus() {
        Thread owner = new Thread(() -> { });
        lifecycleThread.adopt(owner);

        assertThatThrownBy(status::becameActive).isInstanceOf(AssertionError.class)
                .hasMessageContaining("must run on the vhost-test thread");
        assertThat(status.state()).isEqualTo(VirtualHostState.PASSIVE);
    }

    @Test
    void aStandaloneHostNeverSendsClientsToAnotherNode() {
        Admission.Refused refusal = status.refusal();

        assertThat(refusal.description())
                .isEqualTo("virtual host 'test' is not active on this node (PASSIVE: starting)")
                .doesNotContain("another node");
    }

    @Test
    void aFailedStoreIsNamedInTheRefusalWithoutARedirect() {
        status.groupMember(true);
        status.activeNodeIs("node1:5672");
        status.failed("store directory /x is in use by another broker");

        Admission.Refused refusal = status.refusal();

        assertThat(refusal.redirectAddress()).isNull();
        assertThat(refusal.description()).isEqualTo("virtual host 'test' cannot serve: its store failed "
                + "(store directory /x is in use by another broker)");
        assertThat(status.reason()).isEqualTo("store directory /x is in use by another broker");
    }
}
