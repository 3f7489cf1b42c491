package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.tandembroker.core.store.replication.MemberState;

/** How the replicated store's own state names reach management (the JMX NodeState values). */
class ReplicatedStoreControlTest {

    @Test
    void jesFourStatesPassThroughTransientOnesAreUnknownAndAClosedNodeIsDetached() {
        assertThat(ReplicatedStoreControl.nodeState("MASTER")).isEqualTo(MemberState.MASTER);
        assertThat(ReplicatedStoreControl.nodeState("REPLICA")).isEqualTo(MemberState.REPLICA);
        assertThat(ReplicatedStoreControl.nodeState("UNKNOWN")).isEqualTo(MemberState.UNKNOWN);
        assertThat(ReplicatedStoreControl.nodeState("DETACHED")).isEqualTo(MemberState.DETACHED);
        assertThat(ReplicatedStoreControl.nodeState("OPENING")).isEqualTo(MemberState.UNKNOWN);
        assertThat(ReplicatedStoreControl.nodeState("RESTARTING")).isEqualTo(MemberState.UNKNOWN);
        assertThat(ReplicatedStoreControl.nodeState("CLOSED")).isEqualTo(MemberState.DETACHED);
    }

    @Test
    void anArbiterMemberKeepsItsStateOtherMembersMapLikeThisNode() {
        assertThat(ReplicatedStoreControl.memberState("ARBITER")).isEqualTo(MemberState.ARBITER);
        assertThat(ReplicatedStoreControl.memberState("MASTER")).isEqualTo(MemberState.MASTER);
        assertThat(ReplicatedStoreControl.memberState("RESTARTING")).isEqualTo(MemberState.UNKNOWN);
    }
}
